/**
 * The embedded node as pods select it: labelled as an EKS node is (linux, this machine's
 * architecture as Kubernetes spells it, a zone, a region, an instance type), so a pipeline's
 * `node-selector` schedules or not as it would there; and labelled as the cluster was told.
 */
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { FAST_TIMINGS, kubernetesArch, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { waitFor } from './fixtures/wait-for.js';

const NS = 'default';
const here = kubernetesArch(process.arch);
const elsewhere = here === 'arm64' ? 'amd64' : 'arm64';
const clusters: EmbeddedCluster[] = [];

async function start(options: Parameters<typeof startEmbeddedCluster>[0] = {}): Promise<CoreV1Api> {
  const cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, ...options });
  clusters.push(cluster);
  return cluster.kubeConfig().makeApiClient(CoreV1Api);
}

afterAll(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
});

const selecting = (name: string, nodeSelector: Record<string, string>): V1Pod => ({
  metadata: { name },
  spec: { restartPolicy: 'Never', nodeSelector, containers: [{ name: 'step', image: 'alpine:3.20', command: ['/bin/sh', '-c', 'true'] }] },
});

/** The pod once the scheduler has decided: bound to a node, or turned away (PodScheduled=False). */
async function decided(api: CoreV1Api, name: string): Promise<V1Pod> {
  return waitFor(
    async () => {
      const pod = await api.readNamespacedPod({ namespace: NS, name });
      const placed = Boolean(pod.spec?.nodeName) || Boolean(pod.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False'));
      return placed && pod;
    },
    { timeoutMs: 10_000, what: `the scheduler's decision on ${name}` },
  );
}

const selectorMismatch =
  "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";

describe('the default node', () => {
  let api: CoreV1Api;
  beforeAll(async () => {
    api = await start();
  });

  it('says linux and this machine\'s architecture, with a zone, a region and an instance type, in labels and nodeInfo', async () => {
    const node = await api.readNode({ name: 'embedded-node' });
    expect(node.metadata?.labels).toMatchObject({
      'kubernetes.io/hostname': 'embedded-node',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': here,
      'beta.kubernetes.io/os': 'linux',
      'beta.kubernetes.io/arch': here,
      'topology.kubernetes.io/zone': 'us-east-1a',
      'topology.kubernetes.io/region': 'us-east-1',
      'node.kubernetes.io/instance-type': here === 'arm64' ? 'c6g.xlarge' : 'c5.xlarge',
    });
    expect(node.status?.nodeInfo).toMatchObject({ operatingSystem: 'linux', architecture: here });
  });

  it('runs a pod that selects linux and this architecture, as the docs\' node-selector example', async () => {
    await api.createNamespacedPod({ namespace: NS, body: selecting('this-arch', { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': here }) });
    expect((await decided(api, 'this-arch')).spec?.nodeName).toBe('embedded-node');
  });

  it('leaves a pod that selects the other architecture Unschedulable, in the scheduler\'s words', async () => {
    await api.createNamespacedPod({ namespace: NS, body: selecting('other-arch', { 'kubernetes.io/arch': elsewhere }) });
    const pod = await decided(api, 'other-arch');
    expect(pod.spec?.nodeName).toBeUndefined();
    expect(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({ status: 'False', reason: 'Unschedulable', message: selectorMismatch });
    const events = await api.listNamespacedEvent({ namespace: NS, fieldSelector: 'involvedObject.name=other-arch,reason=FailedScheduling' });
    expect(events.items.map((e) => e.message)).toEqual([selectorMismatch]);
  });
});

describe('labels given at start', () => {
  let api: CoreV1Api;
  beforeAll(async () => {
    api = await start({ nodeLabels: { 'kubernetes.io/arch': elsewhere, 'eks.amazonaws.com/capacityType': 'SPOT', 'topology.kubernetes.io/zone': 'eu-west-1b' } });
  });

  it('are the node\'s, over the defaults; the machine\'s own architecture stays in nodeInfo', async () => {
    const node = await api.readNode({ name: 'embedded-node' });
    expect(node.metadata?.labels).toMatchObject({
      'kubernetes.io/arch': elsewhere,
      'eks.amazonaws.com/capacityType': 'SPOT',
      'topology.kubernetes.io/zone': 'eu-west-1b',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/hostname': 'embedded-node',
    });
    expect(node.status?.nodeInfo?.architecture).toBe(here);
  });

  it('are what the scheduler places by', async () => {
    await api.createNamespacedPod({ namespace: NS, body: selecting('spot', { 'eks.amazonaws.com/capacityType': 'SPOT', 'kubernetes.io/arch': elsewhere }) });
    await api.createNamespacedPod({ namespace: NS, body: selecting('native', { 'kubernetes.io/arch': here }) });
    expect((await decided(api, 'spot')).spec?.nodeName).toBe('embedded-node');
    const native = await decided(api, 'native');
    expect(native.spec?.nodeName).toBeUndefined();
    expect(native.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message).toBe(selectorMismatch);
  });
});
