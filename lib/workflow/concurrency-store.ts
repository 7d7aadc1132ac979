/**
 * Where each concurrency group's current build is recorded: one record per group, written only
 * conditionally, so that of two builds claiming a group at once exactly one write lands and the
 * other build reads it and decides again. S3 on AWS (s3-concurrency-store.ts: If-None-Match and
 * If-Match writes); the local stack keeps its own (lib/local/server/memory-concurrency-store.ts).
 *
 * Not Step Functions' ListExecutions: it is eventually consistent (an execution started a moment
 * ago may be missing from it) and throttled per account, so two webhooks racing could each miss
 * the other and both builds would run.
 */
import { createHash } from 'node:crypto';

/** The build a group is current with. */
export interface GroupRecord {
  group: string;
  executionArn: string;
  buildId: string;
  commit?: string;
  /** The build's order (BuildRef.pushedAt, else when it claimed the group), ISO 8601. */
  pushedAt: string;
  /** When it claimed the group, ISO 8601: breaks a tie between two builds of one commit. */
  claimedAt: string;
}

/** A record as read, with the version a conditional replace must name (S3: its ETag). */
export interface StoredGroupRecord {
  record: GroupRecord;
  version: string;
}

export interface ConcurrencyStore {
  read(group: string): Promise<StoredGroupRecord | undefined>;
  /** Writes the group's first record; false when another build's was written first. */
  create(record: GroupRecord): Promise<boolean>;
  /** Replaces the record read as `version`; false when it has changed (or gone) since. */
  replace(record: GroupRecord, version: string): Promise<boolean>;
}

/** The deployment's prefix for the records, in the cache bucket (serverless.yml's IAM and lifecycle name it). */
export const CONCURRENCY_PREFIX = 'concurrency/';

/** A group's key: its hash, since a group is any text and a key must stay under S3's 1,024 bytes. */
export function groupKey(group: string, prefix = CONCURRENCY_PREFIX): string {
  return `${prefix}${createHash('sha256').update(group, 'utf8').digest('hex')}.json`;
}

/** A record as JSON, back; undefined for anything that is not one (a record is then written afresh). */
export function parseGroupRecord(text: string): GroupRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<GroupRecord>;
    const fields = [value.group, value.executionArn, value.buildId, value.pushedAt, value.claimedAt];
    return fields.every((field) => typeof field === 'string') ? (value as GroupRecord) : undefined;
  } catch {
    return undefined;
  }
}
