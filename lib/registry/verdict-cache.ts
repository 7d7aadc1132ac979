/**
 * Verdicts kept briefly, so a warm function does not ask again for every build of a busy
 * repository. An inconclusive verdict is not kept: the next build may get through.
 */
import type { ImageVerdict } from './types.js';

export const CACHE_TTL_MS = { found: 60_000, notFound: 15_000 } as const;

export interface VerdictCache {
  get(key: string): ImageVerdict | undefined;
  set(key: string, verdict: ImageVerdict): void;
}

export function verdictCache(now: () => number = Date.now, maxEntries = 1_000): VerdictCache {
  const entries = new Map<string, { verdict: ImageVerdict; until: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry && entry.until > now()) return entry.verdict;
      entries.delete(key);
      return undefined;
    },
    set(key, verdict) {
      const ttl = verdict.kind === 'found' ? CACHE_TTL_MS.found : verdict.kind === 'not-found' ? CACHE_TTL_MS.notFound : 0;
      if (ttl === 0) return;
      // Oldest first out: a Map iterates in insertion order.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { verdict, until: now() + ttl });
    },
  };
}
