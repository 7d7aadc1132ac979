import type { S3Client } from '@aws-sdk/client-s3';
import { stepLogName, type StepLogStore } from '../workflow/step-log-store.js';

/**
 * Step logs in S3, under `prefix`. The S3 SDK is loaded on first use only: only FinishStep writes
 * logs, so the other functions' cold starts should not pay for it.
 */
export function s3LogStore(bucket: string, prefix: string, client?: S3Client): StepLogStore {
  let s3: S3Client | undefined = client;
  return {
    async put(buildId, step, log) {
      const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
      s3 ??= new S3Client({});
      const key = `${prefix}${stepLogName(buildId, step)}`;
      await s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: log, ContentType: 'text/plain; charset=utf-8' }),
      );
      return `s3://${bucket}/${key}`;
    },
  };
}
