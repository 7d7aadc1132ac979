/**
 * The local stand-in for the bucket's lifecycle rules: objects under a prefix older than N days
 * are deleted (S3 does it within a day of the age; here at start and then every hour).
 */
import type { ObjectStore } from './object-store.js';

export interface ExpiryRule {
  prefix: string;
  days: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes what the rules say has expired at `now`; resolves how many objects went. */
export async function deleteExpired(store: ObjectStore, rules: readonly ExpiryRule[], now: number): Promise<number> {
  let deleted = 0;
  for (const bucket of store.bucketNames()) {
    for (const object of store.list(bucket)) {
      const expired = rules.some((rule) => object.key.startsWith(rule.prefix) && now - object.lastModified > rule.days * DAY_MS);
      if (expired) {
        await store.delete(bucket, object.key);
        deleted++;
      }
    }
  }
  return deleted;
}
