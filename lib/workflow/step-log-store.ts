import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';

/** Where FinishStep keeps a step's whole log: S3 on AWS, a folder locally. */
export interface StepLogStore {
  /** Stores the log and returns where it went (s3://bucket/key or a file path). */
  put(buildId: string, step: string, log: string): Promise<string>;
}

/** Build ids and step names are validated elsewhere, but a key must never climb out of its prefix. */
function safeSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_');
}

/**
 * The S3 SDK is loaded on first use only: every task shares one bundle's imports, and only
 * FinishStep writes logs, so PollStep's cold start should not pay for it.
 */
export function s3LogStore(bucket: string, prefix: string, client?: S3Client): StepLogStore {
  let s3: S3Client | undefined = client;
  return {
    async put(buildId, step, log) {
      const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
      s3 ??= new S3Client({});
      const key = `${prefix}${safeSegment(buildId)}/${safeSegment(step)}.log`;
      await s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: log, ContentType: 'text/plain; charset=utf-8' }),
      );
      return `s3://${bucket}/${key}`;
    },
  };
}

export function directoryLogStore(root: string): StepLogStore {
  return {
    async put(buildId, step, log) {
      const dir = path.resolve(root, safeSegment(buildId));
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${safeSegment(step)}.log`);
      await writeFile(file, log);
      return file;
    },
  };
}
