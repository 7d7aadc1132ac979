/**
 * What the embedded cluster is told at its start, each subject below on clusters of its own (node
 * labels given or not, a pinned clock), started in its hooks as before: they used to be a file
 * each, which loaded the same modules again; a cluster's options are the subject, so none is
 * shared.
 */
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { FAST_TIMINGS, kubernetesArch, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { waitFor } from './fixtures/wait-for.js';
import type { CoreEvent, KubeObject, PersistentVolumeClaim, Pod } from '../lib/emulators/kubernetes/objects.js';

/**
 * The embedded node as pods select it: labelled as an EKS node is (linux, this machine's
 * architecture as Kubernetes spells it, a zone, a region, an instance type), so a pipeline's
 * `node-selector` schedules or not as it would there; and labelled as the cluster was told.
 */
describe("the node's labels", () => {
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
});

/** Every time the embedded cluster writes or reports comes from the clock it is given. */
describe("the cluster's clock", () => {
  const PINNED = '2021-02-03T04:05:06Z';
  let cluster: EmbeddedCluster;

  beforeAll(async () => {
    cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, now: () => new Date(PINNED) });
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  /** The pod once it has succeeded; a test failure naming what it last was after the deadline. */
  async function succeeded(name: string): Promise<Pod> {
    return waitFor(
      async () => {
        const pod = await get<Pod>(`/api/v1/namespaces/default/pods/${name}`);
        if (pod.status?.phase === 'Succeeded') return pod;
        throw new Error(`pod ${name} is ${pod.status?.phase ?? 'without a phase'}: ${JSON.stringify(pod.status?.containerStatuses?.[0]?.state ?? null)}`);
      },
      { timeoutMs: 10_000, what: `pod ${name} to succeed` },
    );
  }

  async function get<T>(path: string, accept = 'application/json'): Promise<T> {
    const res = await fetch(`${cluster.url}${path}`, { headers: { Accept: accept } });
    return (accept === 'text/plain' ? await res.text() : await res.json()) as T;
  }

  test('timestamps, pull durations, log times and AGE all read the injected clock', async () => {
    const body = { metadata: { name: 'pinned' }, spec: { containers: [{ name: 'step', image: 'alpine:3.20', imagePullPolicy: 'Always', command: ['/bin/sh', '-c', 'echo hi'] }] } };
    await fetch(`${cluster.url}/api/v1/namespaces/default/pods`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const pod = await succeeded('pinned');

    const terminated = pod.status?.containerStatuses?.[0]?.state.terminated;
    expect([pod.metadata.creationTimestamp, pod.status?.startTime, terminated?.startedAt, terminated?.finishedAt]).toEqual([PINNED, PINNED, PINNED, PINNED]);
    expect(new Set(pod.status?.conditions?.map((c) => c.lastTransitionTime))).toEqual(new Set([PINNED]));

    const events = (await get<{ items: CoreEvent[] }>('/api/v1/namespaces/default/events')).items;
    expect(events.length).toBeGreaterThan(0);
    // The kubelet's events carry first and last timestamps; the scheduler's (events.k8s.io) an eventTime, to the microsecond.
    expect(new Set(events.flatMap((e) => [e.firstTimestamp, e.lastTimestamp]).filter((t) => t !== null))).toEqual(new Set([PINNED]));
    expect(events.filter((e) => e.reportingComponent === 'default-scheduler').map((e) => e.eventTime)).toEqual(['2021-02-03T04:05:06.000000Z']);
    expect(events.find((e) => e.reason === 'Pulled')?.message).toMatch(/ in 0ms \(0ms including waiting\)\./);

    expect(await get<string>('/api/v1/namespaces/default/pods/pinned/log?timestamps=true', 'text/plain')).toBe('2021-02-03T04:05:06.000000000Z hi\n');
    const table = await get<{ rows: { cells: unknown[] }[] }>('/api/v1/namespaces/default/pods/pinned', 'application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(table.rows[0]?.cells[4]).toBe('0s');
    const namespace = await get<KubeObject>('/api/v1/namespaces/default');
    expect(namespace.metadata.creationTimestamp).toBe(PINNED);
  });

  test('claims, their events and their deletion read the injected clock too', async () => {
    const post = (path: string, body: object) => fetch(`${cluster.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    await post('/api/v1/namespaces/default/persistentvolumeclaims', { metadata: { name: 'ws' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    await post('/api/v1/namespaces/default/pods', {
      metadata: { name: 'holds-ws' },
      spec: { volumes: [{ name: 'ws', persistentVolumeClaim: { claimName: 'ws' } }], containers: [{ name: 'step', image: 'alpine:3.20', command: ['true'] }] },
    });
    await succeeded('holds-ws');

    // Held by the pod, the deleted claim stays, with its deletion time.
    await fetch(`${cluster.url}/api/v1/namespaces/default/persistentvolumeclaims/ws`, { method: 'DELETE' });
    const claim = await get<PersistentVolumeClaim>('/api/v1/namespaces/default/persistentvolumeclaims/ws');
    expect([claim.status?.phase, claim.metadata.creationTimestamp, claim.metadata.deletionTimestamp]).toEqual(['Bound', PINNED, PINNED]);
    const events = (await get<{ items: CoreEvent[] }>('/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DPersistentVolumeClaim')).items;
    expect(events.map((e) => e.reason)).toEqual(['WaitForFirstConsumer', 'ExternalProvisioning', 'Provisioning', 'ProvisioningSucceeded']);
    expect(new Set(events.flatMap((e) => [e.firstTimestamp, e.lastTimestamp]))).toEqual(new Set([PINNED]));
  });
});
