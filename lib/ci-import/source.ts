/**
 * Reading another CI's YAML: its data, and the line of any part of it. GitLab's `!reference [job,
 * key]` tag becomes `{"!reference": [job, key]}`, resolved by the GitLab reader, so it is never lost
 * as a plain list. Anchors, aliases and `<<` merge keys are YAML's own and resolved here.
 */
import { isMap, isNode, isScalar, isSeq, LineCounter, parseAllDocuments, YAMLMap, type Document, type YAMLSeq } from 'yaml';
import { UnreadableCiFile } from './types.js';

export type SourcePath = readonly (string | number)[];

export interface SourceFile {
  data: Record<string, unknown>;
  /** The line of the nearest part of `path` that the file spells out (an alias is not followed). */
  lineOf(path: SourcePath): number;
}

export const REFERENCE_KEY = '!reference';

// https://docs.gitlab.com/ci/yaml/yaml_optimization/#reference-tags
const referenceTag = {
  tag: '!reference',
  collection: 'seq' as const,
  default: false,
  resolve(seq: YAMLSeq) {
    const marker = new YAMLMap();
    marker.set(REFERENCE_KEY, seq);
    return marker;
  },
};

/**
 * Parses the file's YAML; a file that is not YAML (or holds no map) is refused with its line. One
 * document, or two when the first is a GitLab `spec:` header (docs.gitlab.com/ci/inputs/): the
 * second is the configuration, the header kept as its `spec` key.
 */
export function readSource(text: string, file: string): SourceFile {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, merge: true, uniqueKeys: false, customTags: [referenceTag], prettyErrors: false });
  const docs = Array.isArray(documents) ? documents : [];
  const error = docs.flatMap((doc) => doc.errors)[0];
  if (error) throw new UnreadableCiFile(`${file} line ${lineCounter.linePos(error.pos[0]).line}: not YAML: ${error.message.split('\n')[0]}`);
  const values = docs.map((doc): unknown => doc.toJS({ maxAliasCount: 1000 }));
  const header = values.length === 2 && Object.keys(mapOf(values[0])).join() === 'spec' ? mapOf(values[0]) : undefined;
  if (values.length > 1 && !header) throw new UnreadableCiFile(`${file}: ${values.length} YAML documents; a CI file holds one (a GitLab file may start with a \`spec:\` header)`);
  const data = header ? { ...mapOf(values[1]), spec: header.spec } : values[0];
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new UnreadableCiFile(`${file}: not a CI file: it holds no map of keys`);
  // A key's line, not its value's: a map written below its key starts on the next line.
  const keyLine = (doc: Document.Parsed, path: SourcePath): number | undefined => {
    const parent: unknown = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
    const last = path[path.length - 1];
    if (isMap(parent)) {
      const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === last);
      const node: unknown = pair?.key;
      return isNode(node) && node.range ? lineCounter.linePos(node.range[0]).line : undefined;
    }
    if (isSeq(parent) && typeof last === 'number') {
      const node: unknown = parent.items[last];
      return isNode(node) && node.range ? lineCounter.linePos(node.range[0]).line : undefined;
    }
    return undefined;
  };
  // The configuration's document first: the header holds only `spec`.
  const searched = header ? [docs[1]!, docs[0]!] : docs;
  const lineOf = (path: SourcePath): number => {
    for (let length = path.length; length > 0; length--) {
      for (const doc of searched) {
        const line = keyLine(doc, path.slice(0, length));
        if (line !== undefined) return line;
      }
    }
    return 1;
  };
  return { data: data as Record<string, unknown>, lineOf };
}

/** The value as a map, or an empty one. */
export function mapOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A value a CI file may give as one item or a list, as a list. */
export function listOf(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Scalars as the text a person wrote (numbers and booleans included). */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A list of scalars as texts; anything else in it dropped by the caller's choice, never here. */
export function textsOf(value: unknown): string[] {
  return listOf(value).flatMap((item) => {
    const text = textOf(item);
    return text === undefined ? [] : [text];
  });
}
