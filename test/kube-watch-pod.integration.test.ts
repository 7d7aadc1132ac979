/** The bounded pod watch PollStep holds while a pod is pending, against the embedded cluster. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openWatch } from './fixtures/watch-events.js';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { podProgress, stepPodManifest, watchPodsUntil, watchPodUntil } from '../lib/kube/index.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { DEFAULT_STEP_TIMEOUT_SECONDS, type Step } from '../lib/pipeline/types.js';
import { waitFor } from './fixtures/wait-for.js';
import { parseImageReference } from '../lib/pipeline/index.js';

let cluster: EmbeddedCluster;
let kubeConfig: KubeConfig;
let api: CoreV1Api;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'watch-'));
  // A slow pull, so there is a window in which nothing changes.
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: { ...FAST_TIMINGS, pullMs: 600 } });
  const file = path.join(scratch, 'kubeconfig');
  await writeFile(file, cluster.kubeconfigYaml());
  kubeConfig = kubeConfigFromFile(file);
  api = kubeConfig.makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
});

const step = (name: string, image: string): Step => ({
  name,
  image,
  imageRef: parseImageReference(image),
  commands: ['sleep 2'],
  env: {},
  pull: 'if-not-present',
  timeoutSeconds: DEFAULT_STEP_TIMEOUT_SECONDS,
  secrets: [],
});

async function launch(name: string, image: string) {
  const manifest = stepPodManifest({ buildId: 'watch-test', step: step(name, image), namespace: 'default' });
  return api.createNamespacedPod({ namespace: 'default', body: manifest });
}

/** One version of a pod as a watch delivered it. */
interface SeenVersion {
  name: string;
  resourceVersion: string;
  waiting: string | undefined;
}

/**
 * A witness: a watch of its own on every pod of the namespace, opened (and established) before the
 * test acts, recording each version of each pod in the order the API server produced them.
 */
async function witnessPods(): Promise<{ seen: SeenVersion[]; stop(): void }> {
  const seen: SeenVersion[] = [];
  const response = await openWatch<V1Pod>(`${cluster.url}/api/v1/namespaces/default/pods?watch=true`, ({ object }) => {
    seen.push({
      name: object.metadata?.name ?? '',
      resourceVersion: object.metadata?.resourceVersion ?? '',
      waiting: object.status?.containerStatuses?.[0]?.state?.waiting?.reason,
    });
  });
  return { seen, stop: () => response.destroy() };
}

describe('watchPodUntil', () => {
  it('answers the moment the kubelet reports a pull failure, with the pod as it then is', async () => {
    const witness = await witnessPods();
    const pod = await launch('missing', 'alpine:3.99-nope');
    const pullFailed = (p: V1Pod | null) => {
      const container = podProgress(p).container;
      return container?.state === 'waiting' && /ErrImagePull|BackOff/.test(container.reason);
    };
    const watched = await watchPodUntil(kubeConfig, 'default', pod.metadata!.name!, pullFailed, 10_000);
    expect(watched?.settled).toBe(true);
    expect(podProgress(watched!.pod).container).toEqual({ state: 'waiting', reason: 'ErrImagePull' });
    expect(watched!.pod!.status?.containerStatuses?.[0]?.state?.waiting?.message).toContain('not in the local image catalog');
    // "The moment": the pod it answered with is the very first version in which the kubelet
    // reported the failure (what the witness saw first), not a later one, nor the timeout.
    try {
      const first = await waitFor(
        () => witness.seen.find((v) => v.name === pod.metadata!.name && /ErrImagePull|BackOff/.test(v.waiting ?? '')),
        { timeoutMs: 5_000, what: 'the witness to see the pull failure' },
      );
      expect(first.waiting).toBe('ErrImagePull');
      expect(watched!.pod!.metadata?.resourceVersion).toBe(first.resourceVersion);
    } finally {
      witness.stop();
    }
  });

  it('gives the pod as it stands when nothing changes in time', async () => {
    const pod = await launch('unchanged', 'alpine:3.20');
    const watched = await watchPodUntil(kubeConfig, 'default', pod.metadata!.name!, () => false, 300);
    expect(watched?.settled).toBe(false);
    expect(watched?.pod?.metadata?.name).toBe(pod.metadata!.name);
  });

  it('reports a deleted pod as null', async () => {
    const pod = await launch('deleted', 'alpine:3.20');
    const name = pod.metadata!.name!;
    const watching = watchPodUntil(kubeConfig, 'default', name, (p) => p === null, 10_000);
    await api.deleteNamespacedPod({ name, namespace: 'default', gracePeriodSeconds: 0 });
    expect(await watching).toEqual({ pod: null, settled: true, lastState: expect.objectContaining({ metadata: expect.objectContaining({ name }) }) });
  });

  it('resumed from an earlier look, sees what happened since, a deletion with the pod\'s last state included', async () => {
    const pod = await launch('evicted-between-looks', 'alpine:3.20');
    const name = pod.metadata!.name!;
    const looked = await api.readNamespacedPod({ name, namespace: 'default' });
    // Gone before the next look begins: a fresh watch would find nothing to say.
    await api.createNamespacedPodEviction({ name, namespace: 'default', body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } } });
    await waitFor(async () => ((await api.listNamespacedPod({ namespace: 'default', fieldSelector: `metadata.name=${name}` })).items.length === 0 ? true : undefined), { timeoutMs: 20_000, what: 'the pod gone' });
    expect(await watchPodUntil(kubeConfig, 'default', name, () => false, 300)).toBeUndefined();
    const resumed = await watchPodUntil(kubeConfig, 'default', name, (p) => p === null, 10_000, undefined, looked.metadata!.resourceVersion);
    expect(resumed?.pod).toBeNull();
    expect(resumed?.lastState?.status?.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }));
  });

  it('delivers nothing for a pod that does not exist, so the caller reads it plainly', async () => {
    expect(await watchPodUntil(kubeConfig, 'default', 'no-such-pod', () => true, 300)).toBeUndefined();
  });

  it('ends when its signal is aborted (the execution has ended), with what it saw, long before its time', async () => {
    const pod = await launch('aborted', 'alpine:3.20');
    const name = pod.metadata!.name!;
    const ended = new AbortController();
    // Aborted once the watch has delivered the pod: the one watch and the build's both answer with it.
    const one = watchPodUntil(kubeConfig, 'default', name, () => (setImmediate(() => ended.abort()), false), 240_000, ended.signal);
    expect(await one).toMatchObject({ settled: false, pod: { metadata: { name } } });
    const builds = new AbortController();
    const all = watchPodsUntil(kubeConfig, 'default', 'step-runner.dev/build=watch-test', (pods) => (pods.has(name) && setImmediate(() => builds.abort()), false), 240_000, builds.signal);
    expect([...(await all)!.pods.keys()]).toContain(name);
    // A watch asked for after the end opens nothing.
    expect(await watchPodsUntil(kubeConfig, 'default', 'step-runner.dev/build=watch-test', () => false, 240_000, builds.signal)).toBeUndefined();
  });
});
