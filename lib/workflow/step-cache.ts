/**
 * A step's cache, planned by LaunchStep: for each entry of the step's `cache:` list, which saved
 * entries its pod tries to restore (in order) and whether it saves its own, each as a presigned
 * URL the pod's helper containers read from the step's Secret. Lookups go through the CacheStore;
 * the decisions are here.
 */
import type { Cache, Step } from '../pipeline/types.js';
import { cacheKeyName, keyFilesId } from './cache-keys.js';
import {
  cacheFingerprint,
  cacheScopes,
  entryFolder,
  entryKey,
  fallbackListPrefix,
  RESTORE_URL_SECONDS,
  saveUrlSeconds,
  scopeLabel,
  type CacheBuild,
  type EntryPlace,
} from './cache-plan.js';
import type { CacheStore } from './cache-store.js';
import type { PodCacheEntry, UrlSigning } from '../kube/index.js';
import { signUrl } from './step-urls.js';

/** One entry of the step's cache, planned: exactly what the pod side takes. */
export type PlannedEntry = PodCacheEntry;

export interface StepCachePlan {
  entries: PlannedEntry[];
  /** secretKey -> presigned URL: the step's Secret's data. */
  urls: Record<string, string>;
  /** secretKey -> how its URL is signed, so PollStep can sign it again. */
  signing: Record<string, UrlSigning>;
  /** One line per entry of what was found and decided, for the step's log. */
  notes: string[];
}

/**
 * A cache entry keyed on files whose hash the clone did not report (the clone ran before the key
 * was added, or its line was lost): the entry cannot be named, so it can be neither restored nor
 * saved. The caller decides whether that is a log line or a failure.
 */
export class CacheKeyHashMissing extends Error {
  override readonly name = 'CacheKeyHashMissing';
  constructor(
    readonly files: readonly string[],
    readonly line?: number,
  ) {
    super(`the clone reported no hash for the cache key files ${files.join(', ')}${line ? ` (line ${line})` : ''}`);
  }
}

export interface StepCacheInput {
  step: Pick<Step, 'cache' | 'timeoutSeconds'>;
  build: CacheBuild & { repository?: string };
  /** keyFilesId -> hash, as the clone reported them (parseKeyHashes' `hashes`). */
  keyHashes: Record<string, string>;
  store: CacheStore;
  /** The deployment's cache prefix (`cache/`). */
  prefix: string;
}

export async function planStepCache({ step, build, keyHashes, store, prefix }: StepCacheInput): Promise<StepCachePlan> {
  const scopes = cacheScopes(build);
  const plan: StepCachePlan = { entries: [], urls: {}, signing: {}, notes: [] };
  const sign = async (secretKey: string, signing: UrlSigning) => {
    plan.signing[secretKey] = signing;
    plan.urls[secretKey] = await signUrl(store, signing);
  };
  const caches = step.cache ?? [];
  for (const [index, cache] of caches.entries()) {
    const key = keyName(cache, keyHashes);
    const fingerprint = cacheFingerprint(cache.paths);
    const place = (scope: string): EntryPlace => ({ prefix, repository: build.repository, scope, fingerprint });
    const where = (scope: string) => scopeLabel(scope, scopes.own);

    // HEAD the exact key even when the policy restores nothing: a hit anywhere means no save.
    const exactHits: string[] = [];
    for (const scope of scopes.read) if (await store.exists(entryKey({ ...place(scope), key }))) exactHits.push(scope);

    const candidates: { objectKey: string; label: string }[] = [];
    if (cache.policy !== 'push') {
      for (const scope of exactHits) candidates.push({ objectKey: entryKey({ ...place(scope), key }), label: `${shortKey(key)} (${where(scope)})` });
      for (const fallback of cache.fallbackKeys) {
        for (const scope of scopes.read) {
          const found = await store.newest(fallbackListPrefix({ ...place(scope), fallback }));
          if (found === undefined || candidates.some((candidate) => candidate.objectKey === found)) continue;
          const foundKey = found.slice(entryFolder(place(scope)).length);
          candidates.push({ objectKey: found, label: `${shortKey(foundKey)} (fallback ${fallback}, ${where(scope)})` });
        }
      }
    }

    const entry: PlannedEntry = { key, paths: [...cache.paths], restore: [] };
    for (const [candidateIndex, candidate] of candidates.entries()) {
      const secretKey = `RESTORE_${index}_${candidateIndex}`;
      await sign(secretKey, { how: 'get', object: candidate.objectKey, seconds: RESTORE_URL_SECONDS });
      entry.restore.push({ label: candidate.label, secretKey });
    }

    if (cache.policy !== 'push' && candidates.length === 0) {
      const fallbacks = cache.fallbackKeys.length > 0 ? ` or under ${cache.fallbackKeys.join(', ')}` : '';
      entry.restoreMiss = `nothing saved as ${shortKey(key)}${fallbacks} on ${scopes.read.map(where).join(' or ')}`;
    }
    const skipped = saveSkipped(cache, key, exactHits, scopes.write, scopes.noWrite, where);
    const saveSeconds = saveUrlSeconds(step.timeoutSeconds);
    if (skipped === undefined) {
      const secretKey = `SAVE_${index}`;
      await sign(secretKey, { how: 'put-new', object: entryKey({ ...place(scopes.write!), key }), seconds: saveSeconds });
      entry.save = { secretKey };
    } else {
      entry.saveSkipped = skipped;
    }
    plan.entries.push(entry);
    plan.notes.push(note(entry, cache, scopes.read.map(where)));
  }
  return plan;
}

function keyName(cache: Cache, keyHashes: Record<string, string>): string {
  if (cache.key.files.length === 0) return cacheKeyName(cache, undefined);
  const hash = keyHashes[keyFilesId(cache.key.files)];
  if (hash === undefined) throw new CacheKeyHashMissing(cache.key.files, cache.filesLine ?? cache.line);
  return cacheKeyName(cache, hash);
}

function saveSkipped(
  cache: Cache,
  key: string,
  exactHits: readonly string[],
  write: string | undefined,
  noWrite: string | undefined,
  where: (scope: string) => string,
): string | undefined {
  if (cache.policy === 'pull') return 'policy pull';
  if (write === undefined) return noWrite ?? 'the build saves nothing';
  const hit = exactHits[0];
  if (hit !== undefined) return `the exact key is saved already, on ${where(hit)}`;
  return undefined;
}

/** A key's hash cut to 12 characters for a log line: enough to tell entries apart by eye. */
function shortKey(key: string): string {
  return key.replace(/([0-9a-f]{12})[0-9a-f]+$/, '$1…');
}

function note(entry: PlannedEntry, cache: Cache, readFrom: string[]): string {
  const head = `cache ${shortKey(entry.key)} (${cache.paths.join(', ')})`;
  const restore =
    cache.policy === 'push'
      ? 'restores nothing (policy push)'
      : entry.restore.length > 0
        ? `restores the first of: ${entry.restore.map((candidate) => candidate.label).join('; ')}`
        : `has no entry to restore on ${readFrom.join(' or ')}`;
  const save = entry.save ? 'saves it if the step succeeds' : `saves nothing: ${entry.saveSkipped}`;
  return `${head}: ${restore}; ${save}`;
}
