/**
 * Pods that the control plane takes away, on the embedded cluster as on a real one: evicted
 * through the Eviction API (and by `kubectl drain`, which uses it), and left behind on a deleted
 * node (the pod GC). What a watcher sees is checked in order, since the runner tells an
 * interruption from a failure by it: the pod MODIFIED with the DisruptionTarget condition (and,
 * when evicted, a deletionTimestamp) before it is DELETED; and the pod's process is gone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { FAST_TIMINGS, NODE_NAME, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { dockerContainerRunning, describeOnRuntimes, hostProcessAlive, type KubeletRuntime } from './fixtures/kubelet-runtimes.js';
import { KUBECTL_ON_PATH, kubectlIn } from './fixtures/kubectl.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';
import { openWatch, type WatchEvent } from './fixtures/watch-events.js';

const NS = 'eviction-test';

interface Started {
  cluster: EmbeddedCluster;
  api: CoreV1Api;
  dir: string;
}

/** A cluster of the describe's own (cordoning and node deletion change it for whatever comes after). */
function clusterForDescribe(): () => Started {
  let started: Started | undefined;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'step-runner-eviction-'));
    const cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, namespaces: [NS], workspace: dir });
    writeFileSync(join(dir, 'kubeconfig'), cluster.kubeconfigYaml());
    started = { cluster, api: cluster.kubeConfig().makeApiClient(CoreV1Api), dir };
  });
  afterAll(async () => {
    await started?.cluster.stop();
    if (started) rmSync(started.dir, { recursive: true, force: true });
  });
  return () => {
    if (!started) throw new Error('the cluster starts in beforeAll');
    return started;
  };
}

/** A pod whose process logs its pid (`$$$$`: Kubernetes reads `$$` in a command as one `$`), then sleeps until it is stopped
 * (SIGTERM, then SIGKILL after its 1 s grace: KubeletRuntime.stoppedExitCode). */
function sleeper(name: string, image = 'alpine:3.20'): V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'step', image, command: ['/bin/sh', '-c', 'echo $$$$; exec sleep 300'] }],
    },
  };
}

/** What the pod runs on: a cluster and its client, and the image with a shell there. */
interface Node {
  cluster: EmbeddedCluster;
  api: CoreV1Api;
  image: string;
  kind: 'process' | 'docker';
}

/**
 * Starts the pod, waits for it to run, and watches it from then on. `stopped()` says whether its
 * process (a host process, or the Docker container) has ended.
 */
async function runningPod(node: Node, name: string) {
  const { api, cluster } = node;
  await api.createNamespacedPod({ namespace: NS, body: sleeper(name, node.image) });
  const running = await waitFor(
    async () => {
      const pod = await api.readNamespacedPod({ namespace: NS, name });
      return pod.status?.phase === 'Running' && pod;
    },
    { timeoutMs: 60_000, what: `${name} Running` },
  );
  const pid = await waitFor(async () => Number((await api.readNamespacedPodLog({ namespace: NS, name })).trim()) || undefined, {
    timeoutMs: 10_000,
    what: `${name}'s pid in its log`,
  });
  const uid = running.metadata?.uid ?? '';
  const stopped = async () => (node.kind === 'process' ? !hostProcessAlive(pid) : !(await dockerContainerRunning(uid, 'step')));
  expect(await stopped()).toBe(false);
  const events: WatchEvent<V1Pod>[] = [];
  const watch = await openWatch<V1Pod>(`${cluster.url}/api/v1/namespaces/${NS}/pods?watch=true&fieldSelector=metadata.name%3D${name}`, (e) => events.push(e));
  const deleted = () => waitFor(() => events.some((e) => e.type === 'DELETED') && events, { timeoutMs: 30_000, what: `${name} DELETED` });
  return { stopped, events, watch, deleted };
}

function disruptionTarget(pod: V1Pod) {
  return pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
}

const stamp = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

describeOnRuntimes(NS, (runtime: KubeletRuntime) => {
  const node = (): Node => ({ cluster: runtime.cluster, api: runtime.api, image: runtime.images.shell, kind: runtime.kind });

  test('a running pod evicted gets DisruptionTarget, is deleted gracefully, and its process stops', async () => {
    const { stopped, watch, deleted } = await runningPod(node(), 'evicted');
    const response = await fetch(`${node().cluster.url}/api/v1/namespaces/${NS}/pods/evicted/eviction`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evicted', namespace: NS } }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const events = await deleted();
    watch.destroy();

    const types = events.map((e) => e.type);
    expect(types.at(-1)).toBe('DELETED');
    expect(types.slice(0, -1).every((t) => t === 'MODIFIED' || t === 'ADDED')).toBe(true);
    // The condition comes first, then the graceful deletion, then the kubelet's final status.
    const marked = events.findIndex((e) => disruptionTarget(e.object) !== undefined);
    const terminating = events.findIndex((e) => e.object.metadata?.deletionTimestamp !== undefined);
    expect(marked).toBeGreaterThanOrEqual(0);
    expect(terminating).toBeGreaterThanOrEqual(marked);
    expect(events[marked]?.type).toBe('MODIFIED');
    expect(disruptionTarget(events[marked]!.object)).toEqual({
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'EvictionByEvictionAPI',
      message: 'Eviction API: evicting',
      lastProbeTime: null,
      lastTransitionTime: stamp,
    });
    expect(events[terminating]!.object.metadata?.deletionGracePeriodSeconds).toBe(1);
    const last = events.at(-2)!.object;
    expect(last.status?.phase).toBe('Failed');
    expect(disruptionTarget(last)?.reason).toBe('EvictionByEvictionAPI');
    expect(last.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: runtime.stoppedExitCode, reason: 'Error' });
    expect(await stopped()).toBe(true);
  });

  test("the Eviction's deleteOptions set the grace period; policy/v1beta1 is taken too", async () => {
    const { watch, deleted } = await runningPod(node(), 'evicted-beta');
    const response = await fetch(`${node().cluster.url}/api/v1/namespaces/${NS}/pods/evicted-beta/eviction`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'evicted-beta' }, deleteOptions: { gracePeriodSeconds: 2 } }),
    });
    expect(response.status).toBe(201);
    const events = await deleted();
    watch.destroy();
    expect(events.find((e) => e.object.metadata?.deletionTimestamp)?.object.metadata?.deletionGracePeriodSeconds).toBe(2);
  });

  test('pods/eviction is in discovery with its group and version, as kubectl drain looks for it', async () => {
    const resources = (await (await fetch(`${node().cluster.url}/api/v1`)).json()) as { resources: { name: string }[] };
    expect(resources.resources.find((r) => r.name === 'pods/eviction')).toEqual({
      name: 'pods/eviction',
      singularName: '',
      namespaced: true,
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
      verbs: ['create'],
    });
    expect(resources.resources.find((r) => r.name === 'nodes')).toMatchObject({ verbs: ['delete', 'get', 'list', 'patch', 'watch'] });
  });

  test.each([
    ['a missing pod', 'no-such-pod', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'no-such-pod' } }, 404, 'NotFound', 'pods "no-such-pod" not found'],
    ['another name in the body', 'no-such-pod', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } }, 400, 'BadRequest', 'name in URL does not match name in Eviction object'],
  ])('%s is refused', async (_title, name, body, code, reason, message) => {
    const response = await fetch(`${node().cluster.url}/api/v1/namespaces/${NS}/pods/${name}/eviction`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(code);
    expect(await response.json()).toMatchObject({ kind: 'Status', status: 'Failure', code, reason, message });
  });
  // The node goes last: the pods of the tests after this would have nowhere to run.

  test('its running pod gets DisruptionTarget (DeletionByPodGC) and phase Failed, then is deleted, its process killed', async () => {
    const { stopped, watch, deleted } = await runningPod(node(), 'orphan');
    await node().api.deleteNode({ name: NODE_NAME });
    const events = await deleted();
    watch.destroy();

    const [marked, gone] = events.slice(-2);
    expect(marked?.type).toBe('MODIFIED');
    expect(marked?.object.status?.phase).toBe('Failed');
    expect(disruptionTarget(marked!.object)).toEqual({
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'DeletionByPodGC',
      message: 'PodGC: node no longer exists',
      lastProbeTime: null,
      lastTransitionTime: stamp,
    });
    // Deleted with grace period 0, as the pod GC deletes: no Terminating stage.
    expect(marked?.object.metadata?.deletionTimestamp).toBeUndefined();
    expect(gone?.type).toBe('DELETED');
    await waitFor(stopped, { timeoutMs: 10_000, what: "the orphan's process to be stopped" });
  });

  test('a new pod stays Pending: no nodes available to schedule pods', async () => {
    const { api } = node();
    await api.createNamespacedPod({ namespace: NS, body: sleeper('after-node', node().image) });
    const pod = await waitFor(
      async () => {
        const read = await api.readNamespacedPod({ namespace: NS, name: 'after-node' });
        return read.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False') && read;
      },
      { timeoutMs: 5_000, what: 'after-node unschedulable' },
    );
    expect(pod.status?.phase).toBe('Pending');
    expect(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({ reason: 'Unschedulable', message: 'no nodes available to schedule pods' });
  });
});

describeRequiring('kubectl drain and delete node', KUBECTL_ON_PATH, () => {
  const started = clusterForDescribe();
  const kubectl = kubectlIn(() => started().dir);
  const node = (): Node => ({ cluster: started().cluster, api: started().api, image: 'alpine:3.20', kind: 'process' });

  test('kubectl drain cordons the node and evicts its running pod; new pods wait until uncordon', async () => {
    const { stopped, watch, deleted } = await runningPod(node(), 'drained');
    const drain = await kubectl('drain', NODE_NAME, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=15s');
    expect(drain).toMatchObject({ code: 0 });
    expect(drain.stdout).toContain(`node/${NODE_NAME} cordoned`);
    expect(drain.stdout).toContain(`evicting pod ${NS}/drained`);
    expect(drain.stdout).toContain('pod/drained evicted');
    expect(drain.stdout).toContain(`node/${NODE_NAME} drained`);
    const events = await deleted();
    watch.destroy();
    const marked = events.find((e) => disruptionTarget(e.object) && e.object.metadata?.deletionTimestamp);
    expect(marked?.type).toBe('MODIFIED');
    expect(disruptionTarget(marked!.object)).toMatchObject({ status: 'True', reason: 'EvictionByEvictionAPI' });
    expect(await stopped()).toBe(true);

    const { api } = started();
    expect((await api.readNode({ name: NODE_NAME })).spec?.unschedulable).toBe(true);
    expect((await kubectl('get', 'nodes', '--no-headers')).stdout).toMatch(new RegExp(`^${NODE_NAME}\\s+Ready,SchedulingDisabled\\s`));
    await api.createNamespacedPod({ namespace: NS, body: sleeper('while-cordoned') });
    const waiting = await waitFor(
      async () => (await api.readNamespacedPod({ namespace: NS, name: 'while-cordoned' })).status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False'),
      { timeoutMs: 5_000, what: 'while-cordoned unschedulable' },
    );
    expect(waiting).toMatchObject({
      reason: 'Unschedulable',
      message: '0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
    });
    expect(await kubectl('uncordon', NODE_NAME)).toMatchObject({ code: 0, stdout: `node/${NODE_NAME} uncordoned\n` });
    await waitFor(async () => (await api.readNamespacedPod({ namespace: NS, name: 'while-cordoned' })).status?.phase === 'Running', {
      timeoutMs: 10_000,
      what: 'while-cordoned Running after uncordon',
    });
  });

  test('kubectl delete node: its pods go (DeletionByPodGC)', async () => {
    const { watch, deleted } = await runningPod(node(), 'on-deleted-node');
    expect(await kubectl('delete', 'node', NODE_NAME)).toMatchObject({ code: 0, stdout: `node "${NODE_NAME}" deleted\n` });
    const events = await deleted();
    watch.destroy();
    expect(disruptionTarget(events.at(-2)!.object)).toMatchObject({ reason: 'DeletionByPodGC' });
    expect((await kubectl('get', 'nodes')).stderr).toContain('No resources found');
  });
});
