/**
 * The two cleanups that only exist on AWS, against the embedded cluster over HTTP: the scheduled
 * sweep for orphaned runner pods, and the EventBridge cleanup of an aborted or timed-out execution.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { kubeStepCluster, stepPodManifest, workspaceClaimManifest } from '../lib/kube/index.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import type { Step } from '../lib/pipeline/types.js';
import type { TaskDeps } from '../lib/workflow/task-deps.js';
import { directoryLogStore } from '../lib/local/stores/directory-log-store.js';
import { cleanupOrphans } from '../lib/workflow/tasks/cleanup-orphans.js';
import { cleanupEndedExecution } from '../lib/workflow/tasks/cleanup-ended-execution.js';
import { parseImageReference } from '../lib/pipeline/index.js';

const NAMESPACE = 'default';
const MARGIN = 600;
let cluster: EmbeddedCluster;
let api: CoreV1Api;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'deploy-cleanup-'));
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS });
  api = cluster.kubeConfig().makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
});

const quiet = { info: () => undefined, warn: () => undefined } as unknown as TaskDeps['log'];
const depsAt = (now: () => Date): TaskDeps => ({
  cluster: kubeStepCluster(async () => api),
  now,
  log: quiet,
  // Cleanup keeps no log: a store that would refuse is the honest stand-in.
  logs: directoryLogStore('/nonexistent/step-runner-logs'),
});

const step = (name: string, timeoutSeconds: number): Step => ({
  name,
  image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'),
  commands: ['sleep 30'],
  env: {},
  pull: 'if-not-present',
  timeoutSeconds,
  secrets: [],
});

async function runnerPod(buildId: string, stepName: string, timeoutSeconds = 3600): Promise<string> {
  const created = await api.createNamespacedPod({
    namespace: NAMESPACE,
    body: stepPodManifest({ buildId, step: step(stepName, timeoutSeconds), namespace: NAMESPACE }),
  });
  return created.metadata!.name!;
}

async function workspaceClaim(buildId: string, deadlineSeconds = 3600): Promise<string> {
  const created = await api.createNamespacedPersistentVolumeClaim({
    namespace: NAMESPACE,
    body: workspaceClaimManifest({ buildId, namespace: NAMESPACE, settings: { storageClass: 'gp2', size: '1Gi', accessMode: 'ReadWriteOnce' }, deadlineSeconds }),
  });
  return created.metadata!.name!;
}

/** Claims not on their way out (a deleted claim lingers while a pod still names it). */
async function liveClaims(): Promise<string[]> {
  const list = await api.listNamespacedPersistentVolumeClaim({ namespace: NAMESPACE });
  return list.items.filter((c) => !c.metadata?.deletionTimestamp).map((c) => c.metadata!.name!).sort();
}

async function foreignPod(name: string, labels: Record<string, string>): Promise<string> {
  const body: V1Pod = {
    metadata: { name, labels },
    spec: { restartPolicy: 'Never', activeDeadlineSeconds: 60, containers: [{ name: 'main', image: 'alpine:3.20', command: ['sleep', '30'] }] },
  };
  await api.createNamespacedPod({ namespace: NAMESPACE, body });
  return name;
}

/** Pods that exist and are not on their way out. */
async function livePods(): Promise<string[]> {
  const list = await api.listNamespacedPod({ namespace: NAMESPACE });
  return list.items.filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata!.name!).sort();
}

afterEach(async () => {
  await api.deleteCollectionNamespacedPod({ namespace: NAMESPACE }).catch(() => undefined);
  await api.deleteCollectionNamespacedPersistentVolumeClaim({ namespace: NAMESPACE }).catch(() => undefined);
});

describe('the scheduled orphan sweep', () => {
  it('deletes the runner pod past its deadline and touches neither live runner pods nor foreign ones', async () => {
    const expired = await runnerPod('sweep-build-a', 'short', 60);
    const live = await runnerPod('sweep-build-b', 'long', 3600);
    const plain = await foreignPod('someone-elses-job', { app: 'web' });
    const otherTool = await foreignPod('helm-hook', { 'app.kubernetes.io/managed-by': 'Helm' });

    // Every pod was created a moment ago; the sweep runs as if 60 s + the margin + 5 s had passed,
    // which is past the short step's deadline and far within the long one's.
    const later = new Date(Date.now() + (60 + MARGIN + 5) * 1000);
    const result = await cleanupOrphans(NAMESPACE, MARGIN, depsAt(() => later));

    expect(result.deletedPods).toEqual([expired]);
    expect(await livePods()).toEqual([live, otherTool, plain].sort());
  });

  it("deletes a workspace claim past its build's deadline, and no claim of a build that may still run", async () => {
    const expired = await workspaceClaim('sweep-build-d', 60);
    const live = await workspaceClaim('sweep-build-e', 3600);
    const later = new Date(Date.now() + (60 + MARGIN + 5) * 1000);
    const result = await cleanupOrphans(NAMESPACE, MARGIN, depsAt(() => later));
    expect(result.deletedClaims).toEqual([expired]);
    expect(await liveClaims()).toEqual([live]);
  });

  it('deletes nothing while every runner pod is within its deadline and margin', async () => {
    await runnerPod('sweep-build-c', 'short', 60);
    const soon = new Date(Date.now() + (60 + MARGIN - 30) * 1000);
    const result = await cleanupOrphans(NAMESPACE, MARGIN, depsAt(() => soon));
    expect(result.deletedPods).toEqual([]);
    expect(await livePods()).toHaveLength(1);
  });
});

describe('the cleanup of an aborted or timed-out execution', () => {
  const statusChange = (name: string, input: string | null, status = 'ABORTED') => ({
    'detail-type': 'Step Functions Execution Status Change',
    detail: { executionArn: `arn:aws:states:eu-west-1:123456789012:execution:m:${name}`, name, status, input },
  });

  it("deletes the pods and the workspace of the build named in the execution's input, and no other build's", async () => {
    await runnerPod('ended-build', 'one');
    await runnerPod('ended-build', 'two');
    await workspaceClaim('ended-build');
    const other = await runnerPod('still-running-build', 'one');
    const otherClaim = await workspaceClaim('still-running-build');
    const input = JSON.stringify({ build: { id: 'ended-build', trigger: 'github push' }, pipeline: { file: '.step-runner.yml', text: 'version: 1' } });

    const result = await cleanupEndedExecution(statusChange('gh-x-1', input, 'TIMED_OUT'), NAMESPACE, depsAt(() => new Date()));

    expect(result).toMatchObject({ build: 'ended-build', deletedPods: 2, deletedClaims: 1, deletedSecrets: 0 });
    // Read before they were deleted, for the build's cost: the steps still running when it ended.
    expect(result.unfinished?.map((pod) => pod.step)).toEqual(['one', 'two']);
    expect(await livePods()).toEqual([other]);
    expect(await liveClaims()).toEqual([otherClaim]);
  });

  it('finds the build from the execution name when EventBridge left the input out', async () => {
    const name = 'gh-repo-abc1234-delivery-0123456789';
    // The build id the webhook gave this execution's build: the name, lower-cased, ending in the
    // first 10 hex digits of sha256('["<name>"]') (lib/forge/execution-name.ts). Written out here:
    // derived by the function the cleanup itself calls, it would agree with any mistake in it.
    const buildId = 'gh-repo-abc1234-delivery-0123456789-e2c3f0841f';
    const pod = await runnerPod(buildId, 'one');
    const neighbour = await runnerPod('gh-repo-abc1234-delivery-0123456780-1b2c3d4e5f', 'one');
    const result = await cleanupEndedExecution(statusChange(name, null), NAMESPACE, depsAt(() => new Date()));
    expect(result).toMatchObject({ build: buildId, deletedPods: 1, deletedClaims: 0, deletedSecrets: 0 });
    expect(await livePods()).not.toContain(pod);
    expect(await livePods()).toEqual([neighbour]);
  });
});
