/**
 * A step pod with a cache, as stepPodManifest makes it, on the embedded cluster (process runtime)
 * against a real S3 protocol server: the restore init container fills the workspace before the
 * step's commands, the step hands over through the scratch emptyDir, the save sidecar saves and
 * lets the step end, and the pod Succeeds. And the URLs signed again while a pod runs (PollStep's
 * renewStepUrls): the Secret's URLs replaced in place, and the kubelet bringing them into the
 * running pod's Secret volume.
 */
import { jest } from '@jest/globals';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { V1Pod } from '@kubernetes/client-node';
import { CacheContainers, cacheSecretManifest, DEFAULT_CACHE_IMAGE, URL_SIGNING_ANNOTATION, type PodCachePlan } from '../lib/kube/cache-containers.js';
import { replaceCacheSecretUrls } from '../lib/kube/cache-secret.js';
import { s3CacheStore } from '../lib/workflow/s3-cache-store.js';
import { renewStepUrls } from '../lib/workflow/step-urls.js';
import { kubeStepCluster, STEP_CONTAINER, stepPodManifest, stepPodName } from '../lib/kube/index.js';
import type { Step } from '../lib/pipeline/types.js';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { MOTO_CREDENTIALS, MOTO_REGION, startMotoServer, motoServerInstalled, type MotoServer } from './fixtures/moto-server.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';
import { parseImageReference } from '../lib/pipeline/index.js';

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
  return { name, image: 'alpine:3.23', imageRef: parseImageReference('alpine:3.23'), commands, env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [] };
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

  it("takes URLs signed again into a running pod's Secret volume, keeping the Secret and its other keys", async () => {
    const podName = stepPodName('cache-renewed', 'build');
    const signing = { 'save-0': { how: 'put-new' as const, object: key, seconds: 3600 } };
    const secret = cacheSecretManifest({ buildId: 'cache-renewed', namespace: NS, podName, urls: { 'save-0': 'https://old.example/save', 'restore-0': 'https://old.example/get' }, signing });
    const created = await kube.api.createNamespacedSecret({ namespace: NS, body: secret });
    const name = secret.metadata!.name!;
    // Prints what the volume holds at its start, then waits for the new URL to reach the volume.
    const script = 'cat "$URLS/save-0"; echo; until grep -q new.example "$URLS/save-0"; do sleep 0.1; done; cat "$URLS/save-0"; echo; cat "$URLS/restore-0"';
    await kube.api.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name: podName },
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'reader', image: DEFAULT_CACHE_IMAGE, command: ['/bin/sh', '-c', script], env: [{ name: 'URLS', value: '/urls' }], volumeMounts: [{ name: 'urls', mountPath: '/urls', readOnly: true }] }],
          volumes: [{ name: 'urls', secret: { secretName: name } }],
        },
      },
    });
    const read = () => kube.api.readNamespacedPodLog({ name: podName, namespace: NS, container: 'reader' }).catch(() => '');
    await waitFor(async () => ((await read()).startsWith('https://old.example/save\n') ? true : undefined), { timeoutMs: 60_000, what: 'the pod to read the first URL' });

    expect(await replaceCacheSecretUrls(kube.api, NS, name, { 'save-0': 'https://new.example/save' })).toBe(true);
    const pod = await waitFor(
      async () => {
        const seen = await kube.api.readNamespacedPod({ name: podName, namespace: NS });
        return seen.status?.phase === 'Succeeded' || seen.status?.phase === 'Failed' ? seen : undefined;
      },
      { timeoutMs: 60_000, what: 'the pod to see the new URL' },
    );
    expect(pod.status?.phase).toBe('Succeeded');
    expect(await read()).toBe('https://old.example/save\nhttps://new.example/save\nhttps://old.example/get');
    const after = await kube.api.readNamespacedSecret({ namespace: NS, name });
    expect(after.metadata?.uid).toBe(created.metadata?.uid);
    expect(after.metadata?.annotations?.[URL_SIGNING_ANNOTATION]).toBe(JSON.stringify(signing));
    expect(after.metadata?.labels).toEqual(created.metadata?.labels);
    // A Secret gone (the build's cleanup) is not made anew.
    await kube.api.deleteNamespacedSecret({ namespace: NS, name });
    expect(await replaceCacheSecretUrls(kube.api, NS, name, { 'save-0': 'https://newer.example/save' })).toBe(false);
    await expect(kube.api.readNamespacedSecret({ namespace: NS, name })).rejects.toThrow();
  });

  it("signs the Secret's URLs again when they are due, with the cache PUT's condition, and never logs one", async () => {
    const podName = stepPodName('cache-resign', 'build');
    const entry = `${key}-resigned`;
    const signing = { 'save-0': { how: 'put-new' as const, object: entry, seconds: 7200 }, 'artifact-0': { how: 'put' as const, object: 'artifacts/1d/x', seconds: 7200 } };
    const secret = cacheSecretManifest({ buildId: 'cache-resign', namespace: NS, podName, urls: { 'save-0': 'https://old.example/save', 'artifact-0': 'https://old.example/art', kept: 'as it was' }, signing });
    await kube.api.createNamespacedSecret({ namespace: NS, body: secret });
    const name = secret.metadata!.name!;
    const lines: string[] = [];
    // As the deployment's client: a presigned PUT must not carry an empty body's checksum.
    const client = new S3Client({ endpoint: moto.endpoint, region: MOTO_REGION, forcePathStyle: true, credentials: MOTO_CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const deps = {
      cluster: kubeStepCluster(async () => kube.api),
      cache: s3CacheStore(bucket, 'builds/', client),
      now: () => new Date(),
      log: { info: (line: string) => void lines.push(line), warn: (line: string) => void lines.push(`WARN ${line}`) },
    };
    const input = { namespace: NS, step: step('build', []) };
    const urls = async () => Object.fromEntries(Object.entries((await kube.api.readNamespacedSecret({ namespace: NS, name })).data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));

    const later = { validUntil: new Date(Date.now() + 60 * 60 * 1000).toISOString() };
    expect(await renewStepUrls(input, { podName, urls: later }, deps, 60)).toBe(later);
    expect((await urls())['save-0']).toBe('https://old.example/save');

    const soon = { validUntil: new Date(Date.now() + 60 * 1000).toISOString() };
    const renewed = await renewStepUrls(input, { podName, urls: soon }, deps, 60);
    // moto's keys are long-term: the URLs' own two hours.
    expect(Date.parse(renewed!.validUntil)).toBeGreaterThan(Date.now() + 7100 * 1000);
    const after = await urls();
    expect(after['kept']).toBe('as it was');
    expect(after['save-0']).toMatch(/X-Amz-SignedHeaders=host%3Bif-none-match/);
    const put = (headers: Record<string, string>) => fetch(after['save-0']!, { method: 'PUT', body: 'entry', headers });
    expect((await put({ 'If-None-Match': '*' })).status).toBe(200);
    expect((await put({ 'If-None-Match': '*' })).status).toBe(412);
    expect(lines).toEqual([expect.stringMatching(/^Signed the 2 cache and artifact URLs of step "build" again: they work until /)]);
    expect(lines.join('\n')).not.toMatch(/https?:/);
    client.destroy();
  });
});
