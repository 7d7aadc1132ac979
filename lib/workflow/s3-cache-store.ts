import type { S3Client } from '@aws-sdk/client-s3';
import { buildKeysName, type CacheStore } from './cache-store.js';
import { objectAbsent } from './s3-absent.js';

/**
 * Cache entries and artifacts in S3, looked up and presigned with the Lambda's role; the build's key hashes at
 * `${buildPrefix}BUILD/cache-keys.json`. The SDK and the presigner are loaded on first use only,
 * so functions that plan no cache do not pay for them at a cold start.
 *
 * The client must not add checksums to requests that do not need them
 * (`requestChecksumCalculation: 'WHEN_REQUIRED'`): presigning a PutObject otherwise signs the
 * CRC32 of an empty body into the URL, and S3 refuses every real upload to it.
 */
export function s3CacheStore(bucket: string, buildPrefix: string, client?: S3Client): CacheStore {
  let s3: S3Client | undefined = client;
  const sdk = async () => {
    const { S3Client, HeadObjectCommand, ListObjectsV2Command, GetObjectCommand, PutObjectCommand } = await import('@aws-sdk/client-s3');
    s3 ??= new S3Client({ requestChecksumCalculation: 'WHEN_REQUIRED' });
    // The commands by name: a copy of the whole module's namespace (hundreds of names) on every call cost more than the call.
    return { s3, HeadObjectCommand, ListObjectsV2Command, GetObjectCommand, PutObjectCommand };
  };
  const presigner = async () => {
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    const loaded = await sdk();
    if ((await loaded.s3.config.requestChecksumCalculation()) !== 'WHEN_REQUIRED') {
      throw new Error("the cache's S3 client computes checksums when supported: a presigned PUT would carry an empty body's CRC32 (set requestChecksumCalculation: 'WHEN_REQUIRED')");
    }
    return { ...loaded, getSignedUrl };
  };
  const keysKey = (buildId: string) => `${buildPrefix}${buildKeysName(buildId)}`;
  return {
    async exists(key) {
      const { s3, HeadObjectCommand } = await sdk();
      try {
        await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return true;
      } catch (error) {
        // A 403 is an absence only when a listing of the key says so (s3-absent.ts): a role that
        // may not read the entry fails loudly.
        if (await objectAbsent(error, s3, bucket, key)) return false;
        throw error;
      }
    },
    async newest(prefix) {
      const { s3, ListObjectsV2Command } = await sdk();
      let best: { key: string; at: number } | undefined;
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const object of page.Contents ?? []) {
          if (!object.Key) continue;
          const at = object.LastModified?.getTime() ?? 0;
          // Same second (S3's resolution): the greater key, so the answer does not depend on the listing.
          if (!best || at > best.at || (at === best.at && object.Key > best.key)) best = { key: object.Key, at };
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return best?.key;
    },
    async presignGet(key, seconds) {
      const { s3, GetObjectCommand, getSignedUrl } = await presigner();
      return getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: seconds });
    },
    async presignPut(key, seconds) {
      const { s3, PutObjectCommand, getSignedUrl } = await presigner();
      // If-None-Match is no x-amz-* header, so the presigner leaves it a header and signs it
      // (X-Amz-SignedHeaders=host;if-none-match): a PUT without it does not match the signature.
      return getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key, IfNoneMatch: '*' }), { expiresIn: seconds });
    },
    async presignUpload(key, seconds) {
      const { s3, PutObjectCommand, getSignedUrl } = await presigner();
      return getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: seconds });
    },
    async signingCredentials() {
      const { s3 } = await sdk();
      // A Lambda's role session comes from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
      // AWS_SESSION_TOKEN and names no expiration (fromEnv reads one from AWS_CREDENTIAL_EXPIRATION,
      // which Lambda does not set); other providers (STS, SSO, containers) name theirs.
      const identity = await s3.config.credentials();
      return { temporary: Boolean(identity.sessionToken), expiration: identity.expiration };
    },
    async readJson(key) {
      const { s3, GetObjectCommand } = await sdk();
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return JSON.parse((await object.Body?.transformToString('utf8')) ?? '') as unknown;
      } catch (error) {
        if (await objectAbsent(error, s3, bucket, key)) return undefined;
        throw error;
      }
    },
    async download(key) {
      const { s3, GetObjectCommand } = await sdk();
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!object.Body) return undefined;
        return { body: object.Body as AsyncIterable<Uint8Array>, size: object.ContentLength };
      } catch (error) {
        if (await objectAbsent(error, s3, bucket, key)) return undefined;
        throw error;
      }
    },
    locationOf(key) {
      return `s3://${bucket}/${key}`;
    },
    async putBuildKeys(buildId, keys) {
      const { s3, PutObjectCommand } = await sdk();
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: keysKey(buildId), Body: JSON.stringify(keys), ContentType: 'application/json' }));
    },
    async buildKeys(buildId) {
      const { s3, GetObjectCommand } = await sdk();
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: keysKey(buildId) }));
        const parsed: unknown = JSON.parse((await object.Body?.transformToString('utf8')) ?? '{}');
        return isStringRecord(parsed) ? parsed : {};
      } catch (error) {
        if (await objectAbsent(error, s3, bucket, keysKey(buildId))) return {};
        throw error;
      }
    },
  };
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((item) => typeof item === 'string');
}
