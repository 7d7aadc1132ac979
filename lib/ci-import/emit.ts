/**
 * A draft pipeline as the text of a `.step-runner.yml`, with what could not be converted written
 * as YAML comments where it belongs: the file's at the top, a job's above its step.
 */
import { Document, isMap, isScalar, isSeq, visit, type Node, type YAMLMap } from 'yaml';
import type { DraftPipeline, DraftStep, Unconverted } from './types.js';

/** The comment text of one unconverted part (yaml writes each line after a `#`). */
function unconvertedComment(part: Unconverted): string {
  return ` not converted (line ${part.line}): ${part.what}\n   instead: ${part.instead}`;
}

const STEP_KEYS = ['name', 'image', 'commands', 'matrix', 'fail-fast', 'env', 'secrets', 'services', 'cache', 'artifacts', 'reports', 'needs', 'when', 'timeout', 'retry'] as const;

function stepData(step: DraftStep): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const key of STEP_KEYS) {
    const value = step[key];
    if (value === undefined) continue;
    if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) continue;
    if (Array.isArray(value) && value.length === 0 && key !== 'needs') continue;
    data[key] = value;
  }
  return data;
}

export function emitPipeline(draft: DraftPipeline, header: readonly string[]): string {
  const data: Record<string, unknown> = { version: 1 };
  if (draft.checkout !== undefined) data.checkout = draft.checkout;
  if (draft.when && Object.keys(draft.when).length > 0) data.when = draft.when;
  data.steps = draft.steps.map(stepData);
  // Objects shared between steps (one `when` for all) are written out each time, never as anchors.
  const doc = new Document(data, { aliasDuplicateObjects: false });
  doc.commentBefore = [...header, ...draft.notes.map((note) => ` ${note}`), ...draft.unconverted.map(unconvertedComment)].join('\n');
  // Short lists of names on one line (`needs: [a, b]`), as people write them; commands one per line.
  visit(doc, {
    Pair(_key, pair) {
      const value = pair.value;
      if (isScalar(pair.key) && pair.key.value !== 'commands' && isSeq(value) && value.items.every(isScalar) && JSON.stringify(value.toJSON()).length <= 80) value.flow = true;
    },
  });
  const steps = doc.get('steps', true);
  if (isSeq(steps)) {
    let shared: Node | undefined;
    steps.items.forEach((item, index) => {
      const step = draft.steps[index];
      if (!step || !isMap(item)) return;
      shared = shareEnv(doc, item as YAMLMap, step, draft.sharedEnv, shared);
      const lines = [` ${step.origin}`, ...step.notes.flatMap((note) => note.split('\n').map((text) => ` ${text}`)), ...[...step.unconverted].sort((a, b) => a.line - b.line).map(unconvertedComment)];
      (item as YAMLMap).commentBefore = lines.join('\n');
      // A blank line between steps, as people write them.
      if (index > 0) (item as YAMLMap).spaceBefore = true;
    });
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

const SHARED_ENV_ANCHOR = 'variables';

/**
 * The file's variables written once: the first step that has them all holds them under an anchor
 * (`<<: &variables {...}`), the others merge them in (`<<: *variables`) and add their own. YAML's
 * merge key, which the pipeline reader accepts (lib/pipeline/yaml-document.ts).
 */
function shareEnv(doc: Document, item: YAMLMap, step: DraftStep, sharedEnv: Readonly<Record<string, string>> | undefined, anchored: Node | undefined): Node | undefined {
  const env = step.env ?? {};
  const entries = Object.entries(sharedEnv ?? {});
  if (entries.length === 0 || !entries.every(([key, value]) => env[key] === value)) return anchored;
  let shared = anchored;
  let reference: Node;
  if (shared === undefined) {
    shared = doc.createNode(Object.fromEntries(entries));
    shared.anchor = SHARED_ENV_ANCHOR;
    reference = shared;
  } else {
    reference = doc.createAlias(shared as never, SHARED_ENV_ANCHOR);
  }
  const own = Object.entries(env).filter(([key]) => !(key in (sharedEnv ?? {})));
  if (own.length === 0) {
    item.set('env', reference);
    return shared;
  }
  const node = doc.createNode(Object.fromEntries(own)) as YAMLMap;
  node.items.unshift(doc.createPair('<<', reference) as never);
  item.set('env', node);
  return shared;
}
