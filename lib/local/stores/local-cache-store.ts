/**
 * The cache's store for local builds: the local stack's own S3 server (lib/emulators/s3) over a folder
 * of the state directory, so a second `run` restores what the first saved, and the very code that
 * runs on AWS (s3-cache-store.ts: lookups, presigned GET and PUT URLs, conditional puts) runs
 * against it. It listens where the pods reach this machine (the cluster's hostAddress), since it
 * is the pods that download and upload the entries.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import type { CacheStore } from '../../workflow/cache-store.js';
import { DEFAULT_CACHE_PREFIX } from '../../workflow/settings.js';
import { s3CacheStore } from '../../workflow/s3-cache-store.js';
import { ARTIFACT_EXPIRY_CLASSES, ARTIFACTS_PREFIX } from '../../workflow/artifact-plan.js';
import { startLocalS3 } from '../../emulators/s3/index.js';

export const LOCAL_CACHE_BUCKET = 'step-runner-local';
const REGION = 'us-east-1';
/** As the deployment's cacheExpiryDays: an entry nobody saves again goes after a week. */
export const LOCAL_CACHE_EXPIRY_DAYS = 7;
const BUILD_PREFIX = 'builds/';

export interface LocalCacheStore {
  store: CacheStore;
  endpoint: string;
  close(): Promise<void>;
}

export async function startLocalCacheStore(options: { stateDir: string; host: string; expiryDays?: number }): Promise<LocalCacheStore> {
  // A key pair of this run's own: the URLs the pods get are signed with it, and nothing else
  // on the machine (or in a container) can sign a request the server accepts.
  const credentials = { accessKeyId: `local-${randomBytes(6).toString('hex')}`, secretAccessKey: randomBytes(24).toString('base64url') };
  const days = options.expiryDays ?? LOCAL_CACHE_EXPIRY_DAYS;
  const server = await startLocalS3({
    dir: path.join(options.stateDir, 's3'),
    host: options.host,
    region: REGION,
    credentials,
    buckets: [LOCAL_CACHE_BUCKET],
    expiry: [
      { prefix: DEFAULT_CACHE_PREFIX, days },
      { prefix: BUILD_PREFIX, days },
      // As serverless.yml's ExpireArtifacts rules: each class keeps its artifacts its own days.
      ...ARTIFACT_EXPIRY_CLASSES.map((kept) => ({ prefix: `${ARTIFACTS_PREFIX}${kept}d/`, days: kept })),
    ],
  });
  const client = new S3Client({ endpoint: server.endpoint, region: REGION, forcePathStyle: true, credentials, requestChecksumCalculation: 'WHEN_REQUIRED' });
  return {
    store: s3CacheStore(LOCAL_CACHE_BUCKET, BUILD_PREFIX, client),
    endpoint: server.endpoint,
    async close() {
      client.destroy();
      await server.close();
    },
  };
}
