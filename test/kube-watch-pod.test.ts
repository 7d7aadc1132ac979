/** The bounded pod watch PollStep holds while a pod is pending, against the embedded cluster. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { kubeConfigFromFile, podProgress, stepPodManifest, watchPodUntil } from '../lib/kube/index.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/local/cluster/index.js';
import { DEFAULT_STEP_TIMEOUT_SECONDS, type Step } from '../lib/pipeline/types.js';

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

describe('watchPodUntil', () => {
  it('answers the moment the kubelet reports a pull failure, with the pod as it then is', async () => {
    const pod = await launch('missing', 'alpine:3.99-nope');
    const started = Date.now();
    const watched = await watchPodUntil(kubeConfig, 'default', pod.metadata!.name!, (p) => /ErrImagePull|BackOff/.test(podProgress(p)), 10_000);
    expect(watched?.settled).toBe(true);
    expect(podProgress(watched!.pod)).toMatch(/waiting:ErrImagePull/);
    expect(watched!.pod!.status?.containerStatuses?.[0]?.state?.waiting?.message).toContain('not found');
    expect(Date.now() - started).toBeLessThan(5_000);
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
    expect(await watching).toEqual({ pod: null, settled: true });
  });

  it('delivers nothing for a pod that does not exist, so the caller reads it plainly', async () => {
    expect(await watchPodUntil(kubeConfig, 'default', 'no-such-pod', () => true, 300)).toBeUndefined();
  });
});
