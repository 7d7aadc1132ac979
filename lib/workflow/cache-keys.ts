/**
 * A cache key from the files it names: the clone step (the only one that has the checkout before
 * any step's pod is made) hashes each set of key files and prints one line per set, which
 * FinishStep reads from its log; LaunchStep later presigns the URLs of the exact keys that gives.
 * The lines are the clone's own output, printed after git's, and shown to people as they are.
 */
import { createHash } from 'node:crypto';
import { shellQuote } from '../kube/index.js';
import type { Cache } from '../pipeline/types.js';

/** Names one set of key files, whatever order the pipeline lists them in. */
export function keyFilesId(files: readonly string[]): string {
  const canonical = [...new Set(files)].sort().join('\n');
  return createHash('sha256').update(canonical).digest('hex').slice(0, 12);
}

/** `${prefix}-${hash}`, `${hash}` or `${prefix}`: the entry's exact key. */
export function cacheKeyName(cache: Pick<Cache, 'key'>, filesHash: string | undefined): string {
  const { prefix, files } = cache.key;
  if (files.length === 0) return prefix!;
  if (filesHash === undefined) throw new Error(`no hash for the key files ${files.join(', ')}`);
  return prefix ? `${prefix}-${filesHash}` : filesHash;
}

/** The key-file sets of these steps' caches, once each, by keyFilesId. */
export function keyFileSets(caches: readonly Cache[]): Map<string, string[]> {
  const sets = new Map<string, string[]>();
  for (const cache of caches) if (cache.key.files.length > 0) sets.set(keyFilesId(cache.key.files), [...new Set(cache.key.files)].sort());
  return sets;
}

const LINE = 'step-runner cache key';

/** Characters of a hash in a key: 40 hex of sha256 (160 bits) is unique enough and keeps keys short. */
export const KEY_HASH_LENGTH = 40;

/**
 * The clone's commands that print each set's hash (`step-runner cache key ID HASH`), or, for a
 * pattern that matches no tracked file, `step-runner cache key ID unmatched PATTERN`. Run after
 * the checkout, in its folder; they need git, sh, sha256sum and cut.
 */
export function keyHashCommands(sets: ReadonlyMap<string, readonly string[]>): string[] {
  return [...sets].map(([id, files]) => {
    const specs = files.map((file) => shellQuote(`:(glob)${file}`)).join(' ');
    const unmatched = files
      .map((file) => `[ -n "$(git ls-files -- ${shellQuote(`:(glob)${file}`)})" ] || echo ${shellQuote(`${LINE} ${id} unmatched ${file}`)}`)
      .join('; ');
    return `${unmatched}; echo "${LINE} ${id} $(git ls-files -s -- ${specs} | sha256sum | cut -c1-${KEY_HASH_LENGTH})"`;
  });
}

export interface KeyHashes {
  /** keyFilesId -> hash */
  hashes: Record<string, string>;
  /** Patterns that matched nothing, by keyFilesId. */
  unmatched: { id: string; pattern: string }[];
}

/** Reads keyHashCommands' lines back from the clone's log. */
export function parseKeyHashes(log: string): KeyHashes {
  const hashes: Record<string, string> = {};
  const unmatched: { id: string; pattern: string }[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith(`${LINE} `)) continue;
    const [id, second, ...rest] = line.slice(LINE.length + 1).split(' ');
    if (!id || !second) continue;
    if (second === 'unmatched') unmatched.push({ id, pattern: rest.join(' ') });
    else if (/^[0-9a-f]+$/.test(second)) hashes[id] = second;
  }
  return { hashes, unmatched };
}
