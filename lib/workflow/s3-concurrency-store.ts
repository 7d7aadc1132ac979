/**
 * The groups' records in S3 (concurrency-store.ts), at `concurrency/<sha256(group)>.json` in the
 * deployment's bucket. S3's conditional writes make the claim safe under concurrent webhooks
 * (Amazon S3 User Guide, "How to prevent object overwrites with conditional writes",
 * docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html): `If-None-Match: *`
 * writes a record only when the group has none, `If-Match: <ETag>` replaces only the record that
 * was read. A refused condition is 412 PreconditionFailed; a write that raced another one on the
 * same key may get 409 ConditionalRequestConflict instead: both mean "read again". S3 is strongly
 * consistent for reads after writes, so the next read sees whichever write landed.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { CONCURRENCY_PREFIX, groupKey, parseGroupRecord, type ConcurrencyStore, type GroupRecord } from './concurrency-store.js';
import { objectAbsent, statusOf } from './s3-absent.js';

export function s3ConcurrencyStore(bucket: string, prefix: string = CONCURRENCY_PREFIX, client?: S3Client): ConcurrencyStore {
  let s3: S3Client | undefined = client;
  const sdk = async () => {
    const { S3Client, GetObjectCommand, PutObjectCommand } = await import('@aws-sdk/client-s3');
    s3 ??= new S3Client({ requestChecksumCalculation: 'WHEN_REQUIRED' });
    // The commands by name: a copy of the whole module's namespace (hundreds of names) on every call cost more than the call.
    return { s3, GetObjectCommand, PutObjectCommand };
  };
  const put = async (record: GroupRecord, condition: { IfNoneMatch: '*' } | { IfMatch: string }): Promise<boolean> => {
    const { s3, PutObjectCommand } = await sdk();
    try {
      await s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: groupKey(record.group, prefix), Body: JSON.stringify(record), ContentType: 'application/json', ...condition }),
      );
      return true;
    } catch (error) {
      if (lostTheRace(error)) return false;
      throw error;
    }
  };
  return {
    async read(group) {
      const { s3, GetObjectCommand } = await sdk();
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: groupKey(group, prefix) }));
        const text = (await object.Body?.transformToString('utf8')) ?? '';
        const record = parseGroupRecord(text);
        // Unreadable (not ours): replaced by the next claim, as a record of no build.
        return object.ETag ? { record: record ?? { group, executionArn: '', buildId: '', pushedAt: '', claimedAt: '' }, version: object.ETag } : undefined;
      } catch (error) {
        // A group with no record yet (s3-absent.ts: a 403 too, when a listing of the key shows none).
        if (await objectAbsent(error, s3, bucket, groupKey(group, prefix))) return undefined;
        throw error;
      }
    },
    create: (record) => put(record, { IfNoneMatch: '*' }),
    replace: (record, version) => put(record, { IfMatch: version }),
  };
}

/**
 * 412: the condition did not hold (the key exists, or its ETag moved on); 409: another write to
 * the key was under way; 404: If-Match named a record that has gone (expired) since it was read.
 */
function lostTheRace(error: unknown): boolean {
  const status = statusOf(error);
  return status === 412 || status === 409 || status === 404 || ['PreconditionFailed', 'ConditionalRequestConflict', 'NoSuchKey'].includes(nameOf(error) ?? '');
}


function nameOf(error: unknown): string | undefined {
  return (error as { name?: string }).name;
}
