import type { S3Client } from '@aws-sdk/client-s3';
import { objectAbsent } from '../workflow/s3-absent.js';
import { isStepResultName, LOG_END_BYTES, parseStepRecord, stepLogName, stepResultName, type StepLogStore, type StepRecord } from '../workflow/step-log-store.js';

const TEXT = 'text/plain; charset=utf-8';
const RESULT_READS_AT_ONCE = 16;

/**
 * Step logs in S3, under `prefix`: BUILD/STEP.log. A running step's parts are objects of their own
 * (BUILD/STEP.log.parts/000001, ...), rewritten as they grow; `complete` streams them, in order,
 * into BUILD/STEP.log (a multipart upload once it is large) and deletes them. The S3 SDK is loaded
 * on first use only, so functions that keep no log do not pay for it at a cold start.
 */
export function s3LogStore(bucket: string, prefix: string, client?: S3Client): StepLogStore {
  let s3: S3Client | undefined = client;
  const sdk = async () => {
    const { S3Client, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand } = await import('@aws-sdk/client-s3');
    s3 ??= new S3Client({});
    // The commands by name: a copy of the whole module's namespace (hundreds of names) on every call cost more than the call.
    return { s3, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand };
  };
  const keyOf = (buildId: string, step: string) => `${prefix}${stepLogName(buildId, step)}`;
  const partKey = (key: string, part: number) => `${key}.parts/${String(part).padStart(6, '0')}`;
  return {
    // A request every 10 s at most while a step prints: $0.0018 an hour of steady output.
    partEveryMs: 10_000,
    liveLocation: (buildId, step) => `s3://${bucket}/${keyOf(buildId, step)}.parts/`,
    async put(buildId, step, log) {
      const { s3, PutObjectCommand } = await sdk();
      const key = keyOf(buildId, step);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: log, ContentType: TEXT }));
      return `s3://${bucket}/${key}`;
    },
    async putPart(buildId, step, text, { part }) {
      const { s3, PutObjectCommand } = await sdk();
      const key = partKey(keyOf(buildId, step), part);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: text, ContentType: TEXT }));
      return `s3://${bucket}/${key}`;
    },
    async putResult(buildId, record) {
      const { s3, PutObjectCommand } = await sdk();
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}${stepResultName(buildId, record.step)}`, Body: JSON.stringify(record), ContentType: 'application/json' }));
    },
    async results(buildId) {
      const { s3, ListObjectsV2Command, GetObjectCommand } = await sdk();
      const folder = `${prefix}${stepResultName(buildId, 'x').replace(/[^/]*$/, '')}`;
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: folder, ...(token ? { ContinuationToken: token } : {}) }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key ?? '').filter(isStepResultName));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      const read = async (Key: string) => parseStepRecord((await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key }))).Body?.transformToString('utf8')) ?? '');
      // A few at a time: a build has tens of steps, and a report must not queue hundreds of requests on the client.
      const records: (StepRecord | undefined)[] = [];
      for (let i = 0; i < keys.length; i += RESULT_READS_AT_ONCE) records.push(...(await Promise.all(keys.slice(i, i + RESULT_READS_AT_ONCE).map(read))));
      return records.filter((record): record is StepRecord => record !== undefined);
    },
    async complete(buildId, step, parts) {
      const { s3, GetObjectCommand, DeleteObjectsCommand } = await sdk();
      const key = keyOf(buildId, step);
      // Ended already by an invocation whose answer was lost: its parts are gone, the log is whole.
      const firstPart = async () => {
        try {
          return await s3.send(new GetObjectCommand({ Bucket: bucket, Key: partKey(key, 1), Range: 'bytes=0-0' }));
        } catch (error) {
          if (await objectAbsent(error, s3, bucket, partKey(key, 1))) return undefined;
          throw error;
        }
      };
      if (!(await firstPart())) {
        const ended = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=-${LOG_END_BYTES}` }));
        return { location: `s3://${bucket}/${key}`, tail: (await ended.Body?.transformToString('utf8')) ?? '' };
      }
      const { Upload } = await import('@aws-sdk/lib-storage');
      const { PassThrough } = await import('node:stream');
      const body = new PassThrough();
      const upload = new Upload({ client: s3, params: { Bucket: bucket, Key: key, Body: body, ContentType: TEXT } });
      const uploaded = upload.done();
      let end = Buffer.alloc(0);
      try {
        for (let part = 1; part <= parts; part++) {
          const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: partKey(key, part) }));
          for await (const chunk of object.Body as AsyncIterable<Uint8Array>) {
            const bytes = Buffer.from(chunk);
            end = Buffer.concat([end, bytes]).subarray(-LOG_END_BYTES);
            if (!body.write(bytes)) await new Promise((resolve) => body.once('drain', resolve));
          }
        }
        body.end();
        await uploaded;
      } catch (error) {
        body.destroy();
        await upload.abort().catch(() => undefined);
        throw error;
      }
      const keys = Array.from({ length: parts }, (_, i) => ({ Key: partKey(key, i + 1) }));
      // At most 1000 keys per request; a part left behind expires with the bucket's rule.
      for (let i = 0; i < keys.length; i += 1000) {
        await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.slice(i, i + 1000), Quiet: true } }));
      }
      return { location: `s3://${bucket}/${key}`, tail: end.toString('utf8') };
    },
  };
}
