/**
 * Reading pipeline YAML defensively and keeping the positions: the text comes from a webhook, so
 * it may be hostile (alias bombs, huge files) as well as merely wrong.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from 'yaml';
import type { PathSegment } from './schema.js';

/**
 * The largest pipeline file. The text travels in the execution's input, and its steps in PrepareBuild's
 * output and every state of RunSteps; Step Functions fails an execution whose state data passes
 * 256 KiB (States.DataLimitExceeded, which no Catch handles), so a file keeps to a quarter of that.
 */
export const MAX_PIPELINE_BYTES = 64 * 1024;
/** Far above any real pipeline, far below what hurts: an alias bomb expands to millions. */
export const MAX_EXPANDED_NODES = 10_000;
/** yaml's own guard, kept as a second line behind the expansion count. */
const MAX_ALIAS_COUNT = 50;

export interface Position {
  line: number;
  column: number;
}

export interface YamlProblem {
  message: string;
  position?: Position;
}

export type YamlRead =
  | { ok: true; data: unknown; locate: (path: readonly PathSegment[]) => Position | undefined }
  | { ok: false; problems: YamlProblem[] };

/** Why a pipeline text is too large to run (see MAX_PIPELINE_BYTES), or undefined. */
export function pipelineSizeProblem(text: string): string | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= MAX_PIPELINE_BYTES) return undefined;
  return `the file is ${Math.ceil(bytes / 1024)} KiB; a pipeline file may be at most ${MAX_PIPELINE_BYTES / 1024} KiB, so that the build's data stays within Step Functions' 256 KiB per state`;
}

/**
 * Parses one YAML document. Merge keys (`<<: *defaults`) are allowed because CI files use them;
 * duplicate keys, several documents, oversized text and alias bombs are problems, not surprises.
 */
export function readYaml(text: string): YamlRead {
  const tooLarge = pipelineSizeProblem(text);
  if (tooLarge) return { ok: false, problems: [{ message: tooLarge }] };
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, uniqueKeys: true, merge: true, prettyErrors: false });
  // Errors "at the end of the file" would name the line after the last one.
  const lastOffset = Math.max(0, text.trimEnd().length - 1);
  const positionOf = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(Math.min(offset, lastOffset));
    return { line, column: col };
  };
  if (!Array.isArray(documents) || documents.length === 0) {
    return { ok: true, data: null, locate: () => undefined };
  }
  const [doc, second] = documents;
  if (!doc) return { ok: true, data: null, locate: () => undefined };

  // After the first syntax error the parser is guessing, so later ones are mostly echoes of it;
  // duplicate keys are independent of each other and all worth fixing in one go.
  const firstSyntaxError = doc.errors.find((error) => error.code !== 'DUPLICATE_KEY');
  const reported = doc.errors.filter((error) => error.code === 'DUPLICATE_KEY' || error === firstSyntaxError);
  const problems: YamlProblem[] = reported.map((error) => ({
    message: yamlErrorMessage(error.code, error.message, text, error.pos[0]),
    position: positionOf(error.pos[0]),
  }));
  if (second) {
    problems.push({
      message: 'a second YAML document starts here ("---"); a pipeline file holds exactly one document',
      position: positionOf(documentStart(second, text)),
    });
  }
  if (problems.length > 0) return { ok: false, problems };

  const bomb = findExcessiveAlias(doc);
  if (bomb) {
    return {
      ok: false,
      problems: [
        {
          message: `aliases here expand to more than ${MAX_EXPANDED_NODES} values (an "alias bomb"); write the values out or use fewer nested aliases`,
          position: bomb.range ? positionOf(bomb.range[0]) : undefined,
        },
      ],
    };
  }

  const collectionKey = findCollectionKey(doc);
  if (collectionKey) {
    return {
      ok: false,
      problems: [
        {
          message: `this key is a ${isSeq(collectionKey) ? 'list' : 'map'}; a key in a pipeline file is a word or a number (quote it if it is meant as text)`,
          position: collectionKey.range ? positionOf(collectionKey.range[0]) : undefined,
        },
      ],
    };
  }

  keepEnvScalarsAsWritten(doc);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    return { ok: false, problems: [{ message: `the YAML could not be read: ${error instanceof Error ? error.message : String(error)}` }] };
  }
  return { ok: true, data, locate: (path) => locate(doc, path, positionOf) };
}

/** The position of the node a data path leads to; for a map entry, its key (where the field is written). */
function locate(doc: Document, path: readonly PathSegment[], positionOf: (offset: number) => Position): Position | undefined {
  let node: unknown = doc.contents;
  let found = startOf(node);
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) break;
      found = startOf(pair.key) ?? startOf(pair.value) ?? found;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item === undefined) break;
      found = startOf(item) ?? found;
      node = item;
    } else {
      break;
    }
  }
  return found === undefined ? undefined : positionOf(found);
}

function startOf(node: unknown): number | undefined {
  if (isAlias(node) || isScalar(node) || isMap(node) || isSeq(node)) return node.range?.[0];
  return undefined;
}

function documentStart(doc: Document, text: string): number {
  const start = doc.range?.[0] ?? 0;
  // The range begins at the content; point at the "---" marker that opened it when there is one.
  const marker = text.lastIndexOf('---', start);
  return marker >= 0 && text.slice(marker + 3, start).trim() === '' ? marker : start;
}

/**
 * YAML reads `CI: true` and `VERSION: 1.10` as a boolean and a number; an environment variable is
 * text, and the text the user wrote ("1.10", not "1.1") is the only faithful one. So is a word of
 * a service's command line, and an input's default and choices.
 */
function keepEnvScalarsAsWritten(doc: Document): void {
  const steps = doc.get('steps', true);
  const scalars: unknown[] = [...serviceScalars(doc.get('services', true)), ...inputScalars(doc.get('inputs', true))];
  for (const step of isSeq(steps) ? steps.items : []) {
    if (!isMap(step)) continue;
    // Label values too (`gpu: true` under node-selector, a toleration's `value: 1`): labels are text.
    const tolerations = step.get('tolerations', true);
    const pairs = [
      ...mapPairs(step.get('env', true)),
      ...mapPairs(step.get('node-selector', true)),
      ...(isSeq(tolerations) ? tolerations.items.flatMap(mapPairs).filter((pair) => isScalar(pair.key) && pair.key.value === 'value') : []),
    ];
    scalars.push(...pairs.map((pair) => pair.value), ...serviceScalars(step.get('services', true)), ...matrixScalars(step.get('matrix', true)));
  }
  for (const value of scalars) {
    if (isScalar(value) && (typeof value.value === 'number' || typeof value.value === 'boolean') && value.source !== undefined) {
      value.value = value.source;
    }
  }
}

/** An input's default and choices (`default: 1.10`): a value a step sees as text, as written. */
function inputScalars(inputs: unknown): unknown[] {
  if (!isSeq(inputs)) return [];
  return inputs.items.flatMap((input) => {
    if (!isMap(input)) return [];
    const choices = input.get('choices', true);
    return [input.get('default', true), ...(isSeq(choices) ? choices.items : [])];
  });
}

/** A matrix's values (`node: [18, 20]`, `python: [3.10]`) and its include and exclude entries' values: each becomes an environment variable. */
function matrixScalars(matrix: unknown): unknown[] {
  return mapPairs(matrix).flatMap((pair) => (isSeq(pair.value) ? pair.value.items.flatMap((item) => (isMap(item) ? item.items.map((entry) => entry.value) : [item])) : []));
}

/** A service's env values and the words of its `entrypoint` and `command` (`[--port, 6380]`): text, as written. */
function serviceScalars(services: unknown): unknown[] {
  if (!isSeq(services)) return [];
  return services.items.flatMap((service) => {
    if (!isMap(service)) return [];
    const words = (key: string) => {
      const node = service.get(key, true);
      return isSeq(node) ? node.items : [node];
    };
    return [...mapPairs(service.get('env', true)).map((pair) => pair.value), ...words('entrypoint'), ...words('command')];
  });
}

function mapPairs(node: unknown) {
  return isMap(node) ? node.items : [];
}

/** The first alias at which the expanded document grows past MAX_EXPANDED_NODES. */
function findExcessiveAlias(doc: Document): Node | undefined {
  const sizes = new Map<unknown, number>();
  const inProgress = new Set<unknown>();
  let expanded = 0;
  let culprit: Node | undefined;
  const sizeOf = (node: unknown): number => {
    if (culprit) return 0;
    if (isAlias(node)) {
      const target = node.resolve(doc);
      const size = target === undefined || inProgress.has(target) ? 1 : sizeOf(target);
      expanded += size;
      if (expanded > MAX_EXPANDED_NODES && !culprit) culprit = node;
      return size;
    }
    const known = sizes.get(node);
    if (known !== undefined) return known;
    inProgress.add(node);
    let size = 1;
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items) size += isPair(item) ? sizeOf(item.key) + sizeOf(item.value) : sizeOf(item);
    }
    inProgress.delete(node);
    sizes.set(node, size);
    return size;
  };
  sizeOf(doc.contents);
  return culprit;
}

/**
 * The first key that is a map or a list (`? [a, b]: x`, `{a: 1}: x`, or an alias to one). A
 * JavaScript object has only text keys: yaml's toJS would write such a key as its YAML text and warn
 * on stderr ("Keys with collection values will be stringified", yaml's addPairToJSMap), a line the
 * person reading a build's output cannot act on; no pipeline key is one, so it is refused here.
 */
function findCollectionKey(doc: Document): Node | undefined {
  const seen = new Set<unknown>();
  const search = (node: unknown): Node | undefined => {
    if (seen.has(node)) return undefined;
    seen.add(node);
    if (!isMap(node) && !isSeq(node)) return undefined;
    for (const item of node.items) {
      if (isPair(item)) {
        const key = isAlias(item.key) ? item.key.resolve(doc) : item.key;
        if (isMap(key) || isSeq(key)) return isAlias(item.key) ? (item.key as Node) : key;
        const inValue = search(isAlias(item.value) ? item.value.resolve(doc) : item.value);
        if (inValue) return inValue;
      } else {
        const inItem = search(isAlias(item) ? item.resolve(doc) : item);
        if (inItem) return inItem;
      }
    }
    return undefined;
  };
  return search(doc.contents);
}

function yamlErrorMessage(code: string, message: string, text: string, offset: number): string {
  switch (code) {
    case 'TAB_AS_INDENT':
      return 'a tab is used for indentation; YAML indents with spaces only';
    case 'DUPLICATE_KEY': {
      const end = text.indexOf('\n', offset);
      const key = /^\s*(?:-\s+)?["']?([^"':#\n]+?)["']?\s*:/.exec(text.slice(offset, end < 0 ? undefined : end))?.[1];
      return key ? `the key "${key}" appears twice in the same map` : 'a key appears twice in the same map';
    }
    default: {
      // yaml reports its own stack overflow as a parse error; say what the user can change.
      if (/call stack size/i.test(message)) return 'the YAML is nested too deeply to read; a pipeline needs only a few levels';
      const first = message.split('\n')[0] ?? message;
      const plain = first.replace(/ at line \d+, column \d+:?$/, '').replace(/\.$/, '');
      return `YAML syntax error: ${plain.charAt(0).toLowerCase()}${plain.slice(1)}`;
    }
  }
}
