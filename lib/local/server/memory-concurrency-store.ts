/**
 * The local server's record of each concurrency group's current build, in memory, with the
 * conditional semantics of the S3 store (s3-concurrency-store.ts): a create fails when the group
 * has a record, a replace when the record moved on since it was read. In memory because the
 * executions it names are (executions.ts): a record outliving the server would name an execution
 * nothing can stop. Each write takes a new version, as each S3 PUT takes a new ETag.
 */
import type { ConcurrencyStore, GroupRecord, StoredGroupRecord } from '../../workflow/concurrency-store.js';

export function memoryConcurrencyStore(): ConcurrencyStore {
  const records = new Map<string, StoredGroupRecord>();
  let writes = 0;
  const write = (record: GroupRecord) => records.set(record.group, { record: { ...record }, version: `"${++writes}"` });
  return {
    async read(group) {
      const stored = records.get(group);
      return stored && { record: { ...stored.record }, version: stored.version };
    },
    async create(record) {
      if (records.has(record.group)) return false;
      write(record);
      return true;
    },
    async replace(record, version) {
      if (records.get(record.group)?.version !== version) return false;
      write(record);
      return true;
    },
  };
}
