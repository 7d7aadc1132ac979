/**
 * Where a build's pods go on the embedded cluster: every pod that mounts the build's workspace
 * carries its claim as a label and a required pod affinity to the pods with that label, so the
 * first pods of a build, started side by side before any of them has put the volume on a node,
 * still land together; and the scheduler honours that affinity as kube-scheduler does, keeping a
 * pod whose affinity no node satisfies Pending with FailedScheduling until the cluster changes.
 */
import path from 'node:path';
import { PatchStrategy, setHeaderOptions, Watch, type CoreV1Event, type V1PersistentVolumeClaim, type V1Pod } from '@kubernetes/client-node';
import { stepPodName, workspaceClaimName } from '../lib/kube/pod-name.js';
import { stepPodManifest } from '../lib/kube/pod-manifest.js';
import { Labels } from '../lib/kube/types.js';
import { NODE_NAME } from '../lib/emulators/kubernetes/kubelet.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import type { Step } from '../lib/pipeline/types.js';
import { localBuildsForFile } from './fixtures/local-builds.js';
import { waitFor } from './fixtures/wait-for.js';
import { parseImageReference } from '../lib/pipeline/index.js';

const NS = 'default';
const HOSTNAME = 'kubernetes.io/hostname';
const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const AFFINITY_REFUSAL = "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const builds = localBuildsForFile({ prefix: 'workspace-placement', settings: { imageCheck: false } });
const kubeConfig = () => kubeConfigFromFile(path.join(builds.root, 'kubeconfig'));

/** Every version of the objects a watch on `resource` delivers, by name and in order, until the returned stop is called. */
async function record<T extends { metadata?: { name?: string } }>(resource: string, query: Record<string, string>) {
  const seen = new Map<string, T[]>();
  const order: T[] = [];
  const controller = await new Watch(kubeConfig()).watch(
    `/api/v1/namespaces/${NS}/${resource}`,
    query,
    (_type, object: T) => {
      const name = object.metadata?.name ?? '';
      seen.set(name, [...(seen.get(name) ?? []), object]);
      order.push(object);
    },
    () => undefined,
  );
  return { seen, order, stop: () => controller.abort() };
}

const podAffinityTerms = (pod: V1Pod) => pod.spec?.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution;

async function schedulingFailures(name: string): Promise<CoreV1Event[]> {
  const events = await builds.api.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=${name}` });
  return events.items.filter((e) => e.reason === 'FailedScheduling');
}

const podScheduled = async (name: string) => (await builds.api.readNamespacedPod({ namespace: NS, name })).status?.conditions?.find((c) => c.type === 'PodScheduled');

describe('a build on the embedded cluster', () => {
  it('puts two first steps that start side by side (needs: [], no checkout) on the workspace\'s node, each with the label and the affinity', async () => {
    const id = 'place-first';
    const claim = workspaceClaimName(id);
    const pods = await record<V1Pod>('pods', { labelSelector: `${Labels.build}=${id}` });
    const claims = await record<V1PersistentVolumeClaim>('persistentvolumeclaims', { fieldSelector: `metadata.name=${claim}` });
    try {
      const step = (name: string) => `  - name: ${name}\n    image: alpine:3.20\n    needs: []\n    commands: ["echo ${name} > ${name}.txt", "sleep 1"]\n`;
      const { summary } = await builds.build(id, `version: 1\ncheckout: false\nsteps:\n${step('a')}${step('b')}`);
      expect(summary).toMatchObject({ status: 'SUCCEEDED' });
    } finally {
      pods.stop();
      claims.stop();
    }
    const workspaceNode = claims.seen.get(claim)?.map((c) => c.metadata?.annotations?.[SELECTED_NODE]).find(Boolean);
    expect(workspaceNode).toBe(NODE_NAME);
    for (const name of [stepPodName(id, 'a'), stepPodName(id, 'b')]) {
      const versions = pods.seen.get(name) ?? [];
      const [created] = versions;
      expect(created?.metadata?.labels?.[Labels.workspace]).toBe(claim);
      expect(podAffinityTerms(created!)).toEqual([{ labelSelector: { matchLabels: { [Labels.workspace]: claim } }, topologyKey: HOSTNAME }]);
      // Both were made before the first pod had put the volume on a node: no selected-node pin yet.
      expect(created?.spec?.affinity?.nodeAffinity).toBeUndefined();
      expect(versions.map((p) => p.spec?.nodeName).find(Boolean)).toBe(workspaceNode);
    }
    // Side by side: each was running before the other had ended, in the order the watch saw them.
    const first = (name: string, phase: string) => pods.order.findIndex((p) => p.metadata?.name === stepPodName(id, name) && p.status?.phase === phase);
    expect(first('a', 'Running')).toBeGreaterThanOrEqual(0);
    expect(first('b', 'Running')).toBeGreaterThanOrEqual(0);
    expect(first('a', 'Running')).toBeLessThan(first('b', 'Succeeded'));
    expect(first('b', 'Running')).toBeLessThan(first('a', 'Succeeded'));
  }, 60_000);
});

describe('the embedded scheduler and required pod affinity', () => {
  const sleeper = (name: string, labels: Record<string, string>, spec: Partial<V1Pod['spec']> = {}): V1Pod => ({
    metadata: { name, labels },
    spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: 'alpine:3.20', command: ['sleep', '30'] }], ...spec },
  });
  const needsDb = { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: HOSTNAME }] } } };

  afterEach(async () => {
    await builds.api.deleteCollectionNamespacedPod({ namespace: NS, labelSelector: 'placement-test', gracePeriodSeconds: 0 });
  });

  it('keeps a pod whose affinity no live pod meets Pending with FailedScheduling, and places it once such a pod runs', async () => {
    await builds.api.createNamespacedPod({ namespace: NS, body: sleeper('web', { 'placement-test': 'yes', app: 'web' }, needsDb) });
    const refused = await waitFor(async () => (await podScheduled('web'))?.status === 'False' && podScheduled('web'), { timeoutMs: 10_000, what: 'web Unschedulable' });
    expect(refused).toMatchObject({ reason: 'Unschedulable', message: AFFINITY_REFUSAL });
    expect((await schedulingFailures('web')).map((e) => [e.type, e.message])).toContainEqual(['Warning', AFFINITY_REFUSAL]);
    // A db pod that cannot be placed (a node selector no node has) counts for nothing: web still waits.
    await builds.api.createNamespacedPod({ namespace: NS, body: sleeper('db-nowhere', { 'placement-test': 'yes', app: 'db' }, { nodeSelector: { pool: 'none' } }) });
    await waitFor(async () => (await podScheduled('db-nowhere'))?.status === 'False', { timeoutMs: 10_000, what: 'db-nowhere Unschedulable' });
    expect((await builds.api.readNamespacedPod({ namespace: NS, name: 'web' })).spec?.nodeName).toBeUndefined();

    await builds.api.createNamespacedPod({ namespace: NS, body: sleeper('db', { 'placement-test': 'yes', app: 'db' }) });
    const placed = await waitFor(async () => (await builds.api.readNamespacedPod({ namespace: NS, name: 'web' })).spec?.nodeName, { timeoutMs: 10_000, what: 'web placed beside db' });
    expect(placed).toBe(NODE_NAME);
  }, 30_000);

  it('refuses a step pod, even the first of its workspace, on a node without the topology label; and places it once the label is back', async () => {
    const claim = 'placement-ws';
    await builds.api.createNamespacedPersistentVolumeClaim({
      namespace: NS,
      body: { metadata: { name: claim }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'gp2', resources: { requests: { storage: '1Gi' } } } },
    });
    const step: Step = { name: 'test', image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'), commands: ['sleep 30'], env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [] };
    const manifest = stepPodManifest({ buildId: 'placement', step, namespace: NS, workspace: { claimName: claim }, extraLabels: { 'placement-test': 'yes' } });
    const name = manifest.metadata!.name!;
    await builds.api.patchNode({ name: NODE_NAME, body: { metadata: { labels: { [HOSTNAME]: null } } } }, MERGE_PATCH);
    try {
      await builds.api.createNamespacedPod({ namespace: NS, body: manifest });
      const refused = await waitFor(async () => (await podScheduled(name))?.status === 'False' && podScheduled(name), { timeoutMs: 10_000, what: `${name} Unschedulable` });
      expect(refused).toMatchObject({ reason: 'Unschedulable', message: AFFINITY_REFUSAL });
    } finally {
      await builds.api.patchNode({ name: NODE_NAME, body: { metadata: { labels: { [HOSTNAME]: NODE_NAME } } } }, MERGE_PATCH);
    }
    const placed = await waitFor(async () => (await builds.api.readNamespacedPod({ namespace: NS, name })).spec?.nodeName, { timeoutMs: 10_000, what: `${name} placed` });
    expect(placed).toBe(NODE_NAME);
    await builds.api.deleteNamespacedPod({ namespace: NS, name, gracePeriodSeconds: 0 });
    await waitFor(async () => !(await builds.api.listNamespacedPod({ namespace: NS, labelSelector: `${Labels.workspace}=${claim}` })).items.length, { timeoutMs: 10_000, what: `${name} gone` });
    await builds.api.deleteNamespacedPersistentVolumeClaim({ namespace: NS, name: claim });
  }, 30_000);
});
