import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { MOTO_CREDENTIALS, MOTO_REGION, motoServerInstalled, startMotoServer, type MotoServer } from '../../test/fixtures/moto-server.js';
import { describeRequiring } from '../../test/fixtures/requirements.js';
import type { Cache } from '../pipeline/types.js';
import { keyFilesId } from './cache-keys.js';
import { cacheFingerprint, entryKey } from './cache-plan.js';
import { CacheKeyHashMissing, planStepCache, type StepCacheInput } from './step-cache.js';
import { s3CacheStore } from './s3-cache-store.js';

const HASH = 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12';
const npm: Cache = { key: { files: ['package-lock.json'], prefix: 'npm' }, paths: ['node_modules'], fallbackKeys: ['npm-'], policy: 'pull-push' };
const keyHashes = { [keyFilesId(npm.key.files)]: HASH };
const fingerprint = cacheFingerprint(npm.paths);
const at = (scope: string, key: string) => entryKey({ prefix: 'cache/', repository: 'octo/app', scope, fingerprint, key });

/** Past the current second: moto, like S3, keeps LastModified to the second. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1050 - (Date.now() % 1000)));

describeRequiring('the cache planned against an S3 server (moto)', motoServerInstalled, () => {
  let moto: MotoServer;
  let client: S3Client;
  beforeAll(async () => {
    moto = await startMotoServer();
    client = new S3Client({ endpoint: moto.endpoint, region: MOTO_REGION, forcePathStyle: true, credentials: MOTO_CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED' });
  });
  afterAll(async () => {
    client?.destroy();
    await moto?.stop();
  });

  async function setUp() {
    const bucket = await moto.bucket();
    const store = s3CacheStore(bucket, 'builds/', client);
    const put = (key: string, body = key) => client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    const plan = (build: StepCacheInput['build'], cache: Cache = npm) =>
      planStepCache({ step: { cache: [cache], timeoutSeconds: 600 }, build, keyHashes, store, prefix: 'cache/' });
    return { bucket, store, put, plan };
  }
  const onBranch = { repository: 'octo/app', ref: 'refs/heads/feature', event: 'push' };

  it('finds a saved exact key, presigns it, and saves nothing more', async () => {
    const { put, plan } = await setUp();
    await put(at('branch/main', `npm-${HASH}`), 'archive of main');
    const { entries, urls, notes } = await plan(onBranch);
    expect(entries).toEqual([
      {
        key: `npm-${HASH}`,
        paths: ['node_modules'],
        restore: [{ label: 'npm-ab12cd34ef56… (branch main)', secretKey: 'RESTORE_0_0' }],
        saveSkipped: "the exact key is saved already, on branch main",
      },
    ]);
    expect(Object.keys(urls)).toEqual(['RESTORE_0_0']);
    expect(await (await fetch(urls.RESTORE_0_0!)).text()).toBe('archive of main');
    expect(notes).toEqual([`cache npm-ab12cd34ef56… (node_modules): restores the first of: npm-ab12cd34ef56… (branch main); saves nothing: the exact key is saved already, on branch main`]);
  });

  it('falls back on the newest entry of each scope, its own first, and saves the exact key', async () => {
    const { bucket, put, plan } = await setUp();
    await put(at('branch/feature', 'npm-1111'));
    await put(at('branch/main', 'npm-2222'));
    await nextSecond();
    await put(at('branch/feature', 'npm-3333'));
    await put(at('branch/main', 'npm-4444'));
    await put(at('branch/other', 'npm-5555'));
    const { entries, urls } = await plan(onBranch);
    expect(entries[0]!.restore).toEqual([
      { label: 'npm-3333 (fallback npm-, this branch)', secretKey: 'RESTORE_0_0' },
      { label: 'npm-4444 (fallback npm-, branch main)', secretKey: 'RESTORE_0_1' },
    ]);
    expect(entries[0]!.save).toEqual({ secretKey: 'SAVE_0' });
    expect(await (await fetch(urls.RESTORE_0_1!)).text()).toBe(at('branch/main', 'npm-4444'));
    expect(decodeURIComponent(new URL(urls.SAVE_0!).pathname)).toBe(`/${bucket}/${at('branch/feature', `npm-${HASH}`)}`);
  });

  it('gives a fork\'s pull request restores but no save', async () => {
    const { put, plan } = await setUp();
    await put(at('branch/main', 'npm-old'));
    const { entries, urls } = await plan({ repository: 'octo/app', ref: 'refs/pull/4/head', event: 'pull_request', pullRequest: { number: 4, fork: true } });
    expect(entries[0]).toMatchObject({ restore: [{ label: 'npm-old (fallback npm-, branch main)' }], saveSkipped: "a fork's pull request saves nothing" });
    expect(entries[0]!.save).toBeUndefined();
    expect(Object.keys(urls)).toEqual(['RESTORE_0_0']);
  });

  it('follows the policy: pull saves nothing, push restores nothing', async () => {
    const { put, plan } = await setUp();
    await put(at('branch/feature', 'npm-old'));
    expect((await plan(onBranch, { ...npm, policy: 'pull' })).entries[0]).toMatchObject({ restore: [{ secretKey: 'RESTORE_0_0' }], saveSkipped: 'policy pull' });
    const push = (await plan(onBranch, { ...npm, policy: 'push' })).entries[0]!;
    expect(push.restore).toEqual([]);
    expect(push.save).toEqual({ secretKey: 'SAVE_0' });
  });

  it('names the key files whose hash the clone did not report', async () => {
    const { store } = await setUp();
    const plan = planStepCache({ step: { cache: [{ ...npm, filesLine: 3 }], timeoutSeconds: 600 }, build: onBranch, keyHashes: {}, store, prefix: 'cache/' });
    await expect(plan).rejects.toThrow(CacheKeyHashMissing);
    await expect(plan).rejects.toThrow('the clone reported no hash for the cache key files package-lock.json (line 3)');
  });

  it('presigns a PUT that saves once: a second save of the key is refused with 412', async () => {
    const { store } = await setUp();
    const key = at('branch/feature', `npm-${HASH}`);
    const url = await store.presignPut(key, 600);
    // Signed, so a holder of the URL cannot drop the condition; no checksum of an empty body in it.
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('host;if-none-match');
    expect(url).not.toMatch(/checksum/i);
    const save = (body: string) => fetch(url, { method: 'PUT', body, headers: { 'If-None-Match': '*' } });
    expect((await save('first')).status).toBe(200);
    expect((await save('second')).status).toBe(412);
    expect(await store.exists(key)).toBe(true);
    expect(await (await fetch(await store.presignGet(key, 600))).text()).toBe('first');
  });

  it('keeps the clone\'s key hashes with the build', async () => {
    const { store } = await setUp();
    expect(await store.buildKeys('gh-1')).toEqual({});
    await store.putBuildKeys('gh-1', keyHashes);
    expect(await store.buildKeys('gh-1')).toEqual(keyHashes);
    expect(await store.newest('builds/gh-1/')).toBe('builds/gh-1/cache-keys.json');
    expect(await store.newest('builds/gh-2/')).toBeUndefined();
  });
});

describe('the S3 cache store on answers moto does not give', () => {
  const client = () => new S3Client({ region: 'eu-west-1', credentials: MOTO_CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED' });

  it('takes a 403 (a role without s3:ListBucket) for a refusal, not for a miss', async () => {
    const s3 = client();
    mockClient(s3).on(HeadObjectCommand).rejects(new S3ServiceException({ name: 'Forbidden', $fault: 'client', $metadata: { httpStatusCode: 403 } }));
    await expect(s3CacheStore('b', 'builds/', s3).exists('cache/x')).rejects.toThrow();
  });

  it('reads every page of a listing for the newest entry', async () => {
    const s3 = client();
    mockClient(s3)
      .on(ListObjectsV2Command, { ContinuationToken: undefined })
      .resolves({ IsTruncated: true, NextContinuationToken: 't2', Contents: [{ Key: 'p/a', LastModified: new Date('2026-01-02') }] })
      .on(ListObjectsV2Command, { ContinuationToken: 't2' })
      .resolves({ IsTruncated: false, Contents: [{ Key: 'p/b', LastModified: new Date('2026-01-03') }, { Key: 'p/c', LastModified: new Date('2026-01-01') }] });
    expect(await s3CacheStore('b', 'builds/', s3).newest('p/')).toBe('p/b');
  });

  it('refuses to presign with a client that signs an empty body\'s checksum into a PUT', async () => {
    const s3 = new S3Client({ region: 'eu-west-1', credentials: MOTO_CREDENTIALS });
    await expect(s3CacheStore('b', 'builds/', s3).presignPut('k', 60)).rejects.toThrow(/WHEN_REQUIRED/);
  });
});
