/**
 * Whether a read of one S3 object failed because the object is not there. S3 answers a missing
 * key 404 only to a caller that may list the bucket ("If you don't have the s3:ListBucket
 * permission, Amazon S3 returns an HTTP status code 403 Access Denied error": S3 API Reference,
 * GetObject and HeadObject, Permissions). The deployment's roles may list only under prefixes
 * (serverless.yml: `StringLike s3:prefix`), and a read names no prefix for that condition to
 * compare, so a 403 is checked with a listing of exactly that key, which does name one: no such
 * key listed is an absence; the key listed, or the listing refused, leaves the 403 a refusal.
 */
import type { S3Client } from '@aws-sdk/client-s3';

export function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/** `error` came from reading `key`; true when the key is not there, false when it is (or nobody could say). */
export async function objectAbsent(error: unknown, s3: S3Client, bucket: string, key: string): Promise<boolean> {
  const name = (error as { name?: string }).name;
  if (name === 'NoSuchKey' || name === 'NotFound' || statusOf(error) === 404) return true;
  if (statusOf(error) !== 403) return false;
  const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  try {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key, MaxKeys: 1 }));
    // Keys are listed in UTF-8 binary order, so the key itself comes before any longer one it starts.
    return listed.Contents?.[0]?.Key !== key;
  } catch {
    return false;
  }
}
