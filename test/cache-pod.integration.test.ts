/**
 * A step pod with a cache, as stepPodManifest makes it, on the embedded cluster (process runtime)
 * against a real S3 protocol server: the restore init container fills the workspace before the
 * step's commands, the step hands over through the scratch emptyDir, the save sidecar saves and
 * lets the step end, and the pod Succeeds.
 */
import { jest } from '@jest/globals';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { V1Pod } from '@kubernetes/client-node';
import { CacheContainers, cacheSecretManifest, DEFAULT_CACHE_IMAGE, type PodCachePlan } from '../lib/kube/cache-containers.js';
import { STEP_CONTAINER, stepPodManifest, stepPodName } from '../lib/kube/index.js';
import type { Step } from '../lib/pipeline/types.js';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { startMotoServer, motoServerInstalled, type MotoServer } from './fixtures/moto-server.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';

jest.setTimeout(120_000);

const NS = 'cache-pods';
const kube = embeddedClusterForFile(NS);

let moto: MotoServer;
let s3: S3Client;
let bucket: string;

const getUrl = (key: string) => getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 600 });
const putUrl = (key: string) =>
  getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key, IfNoneMatch: '*' }), { expiresIn: 600, unhoistableHeaders: new Set(['if-none-match']) });

function step(name: string, commands: string[]): Step {
  return { name, image: 'alpine:3.23', commands, env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [] };
}

/** Creates the step's cache Secret and its pod; resolves the pod once it has ended. */
async function runWithCache(buildId: string, own: Step, entries: PodCachePlan['entries'], urls: Record<string, string>): Promise<V1Pod> {
  const podName = stepPodName(buildId, own.name);
  const secret = cacheSecretManifest({ buildId, namespace: NS, podName, urls });
  await kube.api.createNamespacedSecret({ namespace: NS, body: secret });
  const cache: PodCachePlan = { image: DEFAULT_CACHE_IMAGE, secret: secret.metadata!.name!, entries };
  await kube.api.createNamespacedPod({ namespace: NS, body: stepPodManifest({ buildId, step: own, namespace: NS, workspace: { ephemeral: true }, cache }) });
  return waitFor(
    async () => {
      const pod = await kube.api.readNamespacedPod({ name: podName, namespace: NS });
      return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' ? pod : undefined;
    },
    { timeoutMs: 90_000, what: `pod ${podName} to end` },
  );
}

const log = (pod: V1Pod, container: string) => kube.api.readNamespacedPodLog({ name: pod.metadata!.name!, namespace: NS, container });

describeRequiring('a step pod with a cache on the embedded cluster', motoServerInstalled, () => {
  beforeAll(async () => {
    moto = await startMotoServer();
    s3 = moto.client();
    bucket = await moto.bucket();
  });
  afterAll(async () => {
    await moto?.stop();
  });

  const key = 'cache/acme%2Fweb/branch/main/0123456789abcdef/npm-3f2a';

  it('misses, runs the step, saves after the hand-over, and Succeeds', async () => {
    const pod = await runWithCache(
      'cache-first',
      step('build', ['mkdir -p node_modules/left-pad', 'echo built > node_modules/left-pad/index.js']),
      [{ key: 'npm-3f2a', paths: ['node_modules'], restore: [{ label: 'npm-3f2a', secretKey: 'restore-0' }], save: { secretKey: 'save-0' } }],
      { 'restore-0': await getUrl(key), 'save-0': await putUrl(key) },
    );
    expect(pod.status?.phase).toBe('Succeeded');
    expect(pod.status?.initContainerStatuses?.map((s) => s.name)).toEqual([CacheContainers.restore, CacheContainers.save]);
    expect(await log(pod, CacheContainers.restore)).toBe('cache npm-3f2a: miss (tried npm-3f2a)\n');
    // The step's own log tells the cache's part too, in order: what the restore said, the commands, what the save said.
    expect(await log(pod, STEP_CONTAINER)).toMatch(
      /^cache npm-3f2a: miss \(tried npm-3f2a\)\n\+ mkdir -p node_modules\/left-pad\n\+ echo built > node_modules\/left-pad\/index.js\n\+ saving the cache\ncache npm-3f2a: saved \(.+\)\n$/,
    );
    expect(await log(pod, CacheContainers.save)).toMatch(/^cache npm-3f2a: saved \(\d+(\.\d)? (B|kB|MB), \d+ s\)\n$/);
    // The sidecar was stopped by the kubelet once the step ended, and went quietly.
    expect(pod.status?.initContainerStatuses?.[1]?.state?.terminated?.exitCode).toBe(0);
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).resolves.toBeDefined();
  });

  it('restores before the step\'s commands run, into the workspace they see', async () => {
    const pod = await runWithCache(
      'cache-second',
      step('build', ['cat node_modules/left-pad/index.js']),
      [{ key: 'npm-3f2a', paths: ['node_modules'], restore: [{ label: 'npm-3f2a', secretKey: 'restore-0' }], saveSkipped: 'the exact key was restored' }],
      { 'restore-0': await getUrl(key) },
    );
    expect(pod.status?.phase).toBe('Succeeded');
    // No save sidecar: nothing to save, and the step does not wait for one.
    expect(pod.status?.initContainerStatuses?.map((s) => s.name)).toEqual([CacheContainers.restore]);
    expect(await log(pod, CacheContainers.restore)).toMatch(/^cache npm-3f2a: restored from npm-3f2a \(.+\)\ncache npm-3f2a: will not be saved: the exact key was restored\n$/);
    expect(await log(pod, STEP_CONTAINER)).toMatch(/^cache npm-3f2a: restored from npm-3f2a \(.+\)\ncache npm-3f2a: will not be saved: the exact key was restored\n\+ cat node_modules\/left-pad\/index.js\nbuilt\n$/);
  });

  it('does not save after a failed step: the pod Fails with the step\'s code, the sidecar is stopped', async () => {
    const other = `${key}-failed`;
    const pod = await runWithCache(
      'cache-failed',
      step('build', ['mkdir out', 'exit 4']),
      [{ key: 'k', paths: ['out'], restore: [], save: { secretKey: 'save-0' } }],
      { 'save-0': await putUrl(other) },
    );
    expect(pod.status?.phase).toBe('Failed');
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(4);
    expect(await log(pod, CacheContainers.save)).toBe('');
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: other }))).rejects.toThrow();
  });
});
