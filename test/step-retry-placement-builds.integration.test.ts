/**
 * Builds without a source through the real definition on one embedded cluster (process runtime):
 * the subjects below used to be a file each, each starting its own cluster. Each build has an id
 * of its own and each subject looks only at its own builds' pods and objects (by build, step or
 * test label), so none needs a cluster fresh; a subject written for other settings builds with
 * them (`withSettings`).
 */
import { keptHandlerLines } from './fixtures/handler-logs-shown.js';
import { localBuildsForFile, type LocalBuild } from './fixtures/local-builds.js';
import { waitFor } from './fixtures/wait-for.js';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { buildSelector } from '../lib/kube/index.js';
import { ConsoleOutput } from '../lib/local/console-output.js';
import type { ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { PatchStrategy, setHeaderOptions, Watch, type CoreV1Event, type V1PersistentVolumeClaim, type V1Pod } from '@kubernetes/client-node';
import { stepPodName, workspaceClaimName } from '../lib/kube/pod-name.js';
import { stepPodManifest } from '../lib/kube/pod-manifest.js';
import { Labels } from '../lib/kube/types.js';
import { NODE_NAME } from '../lib/emulators/kubernetes/kubelet.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import type { Step } from '../lib/pipeline/types.js';
import { parseImageReference } from '../lib/pipeline/index.js';

const shared = localBuildsForFile({ prefix: 'retry-placement' });
const handlerLines = keptHandlerLines();

/**
 * Steps side by side run their Lambda invocations at the same time in one local process, where
 * Lambda gives each its own execution environment, or (AWS_LAMBDA_MAX_CONCURRENCY) its own
 * invocation context: each handler's log line must still name its own function, request and step.
 */
describe('log lines of invocations side by side', () => {
  const builds = shared;

  interface LogLine {
    message: string;
    function_name?: string;
    function_request_id?: string;
    step?: string;
  }

  it('keeps each invocation\'s log keys apart while steps run side by side', async () => {
    const from = handlerLines.length;
    const steps = ['a', 'b', 'c', 'd'].map((name) => `  - name: ${name}\n    image: alpine:3.20\n    needs: []\n    commands: [sleep 1]\n`).join('');
    const { summary } = await builds.build('side-by-side', `version: 1\ncheckout: false\nsteps:\n${steps}`);
    expect(summary.status).toBe('SUCCEEDED');
    const lines = handlerLines.slice(from).map((line) => JSON.parse(line) as LogLine);
    // PollStep's "Step "x" is running" and FinishStep's "Step "x" succeeded; pod ... deleted".
    const stepLines = lines.flatMap((line) => {
      const named = /^Step "(\w+)" (is|succeeded)/.exec(line.message);
      return named ? [{ ...line, named: named[1]!, by: named[2] === 'is' ? 'pollStep' : 'finishStep' }] : [];
    });
    expect(new Set(stepLines.map((line) => line.named))).toEqual(new Set(['a', 'b', 'c', 'd']));
    for (const line of stepLines) expect({ step: line.step, function: line.function_name }).toEqual({ step: line.named, function: line.by });
    // One request id per invocation: a step's lines never carry another step's.
    const stepOfRequest = new Map<string, string>();
    for (const line of stepLines) {
      const seen = stepOfRequest.get(line.function_request_id!);
      expect(seen ?? line.named).toBe(line.named);
      stepOfRequest.set(line.function_request_id!, line.named);
    }
  });
});

/**
 * A step's retry, through the real definition on the embedded cluster: a failed attempt whose
 * Error the step's `retry.on` lists is tried again in a fresh pod on the same workspace, and the
 * build goes on as if it had passed the first time; one it does not list fails the build.
 */
describe('step retries', () => {
  const builds = shared;

  // Fails the first time (no mark yet in the shared workspace), passes the second.
  const flaky = (retry: string) => `version: 1
checkout: false
steps:
  - name: flaky
    image: busybox:1.37
    ${retry}
    commands:
      - if [ -f attempted ]; then echo second; else touch attempted; echo first; exit 3; fi
  - name: after
    image: busybox:1.37
    commands: [test -f attempted]
`;

  describe('a step retry', () => {
    it('tries a failed attempt again when retry.on lists its Error, in a pod of its own, and the build succeeds', async () => {
      const { summary, events } = await builds.build('retry-1', flaky('retry: {max: 1, on: [StepFailed]}'));
      expect({ status: summary.status, cause: summary.cause }).toEqual({ status: 'SUCCEEDED', cause: null });
      const launched = events.filter((e) => e.type === 'StateExited' && e.state?.name === 'LaunchStep').map((e) => (e.state?.output as { poll?: { podName?: string } }).poll?.podName);
      const flakyPods = launched.filter((name) => name?.includes('flaky'));
      expect(flakyPods).toHaveLength(2);
      expect(new Set(flakyPods).size).toBe(2);
      expect(summary.steps.map((step) => [step.name, step.status, step.attempts])).toEqual([
        ['flaky', 'succeeded', 2],
        ['after', 'succeeded', undefined],
      ]);
      expect(events.some((e) => e.state?.name === 'PrepareRetry')).toBe(true);
    });

    it('fails the build at the first attempt when its Error is not one retry.on lists', async () => {
      const { summary, events } = await builds.build('retry-2', flaky('retry: {max: 2, on: [StepTimedOut]}'));
      expect({ status: summary.status, error: summary.error }).toEqual({ status: 'FAILED', error: 'StepFailed' });
      expect(events.some((e) => e.state?.name === 'PrepareRetry')).toBe(false);
    });

    it('gives up after max retries, saying which attempt it was', async () => {
      const pipeline = `version: 1
checkout: false
steps:
  - name: broken
    image: busybox:1.37
    retry: {max: 1, on: [StepFailed]}
    commands: [exit 4]
`;
      const { summary } = await builds.build('retry-3', pipeline);
      expect({ status: summary.status, error: summary.error }).toEqual({ status: 'FAILED', error: 'StepFailed' });
      expect(summary.cause).not.toMatch(/tried again/);
      expect(summary.cause).toMatch(/This was attempt 2 of 2, the last its retry allows\.$/);
      expect(summary.steps[0]).toMatchObject({ name: 'broken', status: 'failed', attempts: 2 });
    });
  });

  describe('a step whose pod is evicted', () => {
    // One that ends at SIGTERM, its pod gone before the next poll looks (the watch resumes from the
    // last poll's resourceVersion and reads the deletion's last state); one that outlives it, its pod
    // still there, terminating, when the watch sees the condition.
    it.each([
      ['ends at once', 'sleep 60'],
      ['outlives SIGTERM', "trap '' TERM; while :; do sleep 1; done"],
    ])('is StepInterrupted with the cluster\'s words, tried again by default, and the build succeeds (a step that %s)', async (what, wait) => {
      const pipeline = `version: 1
checkout: false
steps:
  - name: slow
    image: busybox:1.37
    commands:
      - if [ -f started ]; then echo second attempt; else touch started; echo waiting; ${wait}; fi
`;
      const name = `evicted-${what.replace(/\W+/g, '-')}`;
      const build = builds.build(name, pipeline);
      // Evicted as kubectl drain evicts: through the Eviction API, once this build's step has marked
      // its workspace and waits (its log says so). A container that runs has not necessarily got that
      // far: evicted before, its second attempt would wait instead of finishing.
      const pod = await waitFor(
        async () => {
          const pods = await builds.api.listNamespacedPod({ namespace: 'default', labelSelector: 'step-runner.dev/step=slow' });
          for (const p of pods.items) {
            if (!p.metadata?.name?.startsWith(name.toLowerCase()) || !p.status?.containerStatuses?.[0]?.state?.running) continue;
            const log = await builds.api.readNamespacedPodLog({ name: p.metadata.name, namespace: 'default', container: 'step' }).catch(() => '');
            if (log.includes('waiting')) return p.metadata.name;
          }
          return undefined;
        },
        { timeoutMs: 30_000, what: 'the step waiting' },
      );
      await builds.api.createNamespacedPodEviction({ name: pod, namespace: 'default', body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } } });
      const { summary, events } = await build;
      expect({ status: summary.status, cause: summary.cause }).toEqual({ status: 'SUCCEEDED', cause: null });
      expect(summary.steps[0]).toMatchObject({ name: 'slow', status: 'succeeded', attempts: 2 });
      const firstAttempt = events.find((e) => e.type === 'TaskSucceeded' && e.state?.name === 'FinishFailedStep')?.state?.output as { error?: string; cause?: string } | undefined;
      expect(firstAttempt?.error).toBe('StepInterrupted');
      expect(firstAttempt?.cause).toMatch(/EvictionByEvictionAPI/);
      expect(firstAttempt?.cause).toMatch(/This was attempt 1 of 3: the step is tried again/);
    }, 90_000);
  });
});

/**
 * "Re-run failed steps" (Step Functions' Redrive), through the real definition on the embedded
 * cluster: a failed build keeps its workspace claim; redriven, it runs only the steps that did not
 * succeed, in that workspace, under new pod names, and ends as any build does.
 */
describe('re-running failed steps', () => {
  const builds = shared;

  const launchedPods = (events: readonly { type: string; state?: { name: string; output?: unknown } }[]) =>
    events
      .filter((e) => e.type === 'StateExited' && e.state?.name === 'LaunchStep')
      .map((e) => (e.state?.output as { poll?: { podName?: string } }).poll?.podName ?? '');

  /** The build's claims that are not going away. */
  async function claimsOf(buildId: string) {
    const { items } = await builds.api.listNamespacedPersistentVolumeClaim({ namespace: 'default', labelSelector: buildSelector(buildId) });
    return items.filter((claim) => !claim.metadata?.deletionTimestamp);
  }

  // `flaky` fails until the test writes its fix (on this machine: the process runtime runs steps here);
  // `made` is written once, by `prepare`, in the workspace.
  const pipelineFixedBy = (fix: string) => `version: 1
checkout: false
steps:
  - name: prepare
    image: busybox:1.37
    commands: [echo made > made, echo prepared]
  - name: flaky
    image: busybox:1.37
    commands:
      - test -f made
      - test -f ${fix} || { echo "not fixed yet"; exit 3; }
  - name: after
    image: busybox:1.37
    commands: [cat made]
`;

  describe("re-running a failed build's failed steps", () => {
    const fix = () => path.join(builds.root, 'fixed');
    const printed = (events: readonly ExecutionEvent[]) => {
      const output = new ConsoleOutput('redrive-1');
      return events.flatMap((event) => output.lines(event));
    };
    let first: LocalBuild | undefined;

    it('fails where a redrive goes on, keeping its workspace claim and which steps succeeded', async () => {
      first = await builds.build('redrive-1', pipelineFixedBy(fix()));
      expect({ status: first.summary.status, error: first.summary.error }).toEqual({ status: 'FAILED', error: 'StepFailed' });
      expect(first.summary.cause).toMatch(/not fixed yet/);
      expect(first.summary.steps.map((s) => [s.name, s.status])).toEqual([
        ['prepare', 'succeeded'],
        ['flaky', 'failed'],
        ['after', 'not-run'],
      ]);
      // The execution fails where a redrive goes on, in a Task a redrive schedules again, with the
      // build's Error and Cause (Lambda's error JSON, read back), and its claim is kept, saying which step succeeded.
      expect(first.events.slice(-2)).toMatchObject([
        { type: 'StateFailed', state: { name: 'AwaitRerun', type: 'Task' }, Error: 'StepFailed' },
        { type: 'ExecutionFailed', Error: 'StepFailed', Cause: expect.stringMatching(/^\{"errorType":"StepFailed","errorMessage":"Step \\"flaky\\"/) },
      ]);
      expect(first.summary.cause).toMatch(/^Step "flaky" \(image "busybox:1.37"\) failed with exit code 3/);
      expect(printed(first.events)).toContain('  ✓ CleanupBuild: deleted 0 pod(s); kept the workspace for a re-run of flaky, after ("Re-run failed steps")');
      expect(printed(first.events)).toEqual(
        expect.arrayContaining([
          '  ✗ AwaitRerun: StepFailed, the build\'s failure; "Re-run failed steps" goes on from here',
          '  Cause: Step "flaky" (image "busybox:1.37") failed with exit code 3 (Error).',
        ]),
      );
      const [claim] = await claimsOf('redrive-1');
      expect(claim?.metadata?.annotations).toMatchObject({ 'succeeded.step-runner.dev/prepare': expect.any(String) });
      expect(Number(claim?.metadata?.annotations?.['step-runner.dev/active-deadline-seconds'])).toBeGreaterThanOrEqual(86_400);
    });

    it('redriven, runs only the failed and not-run steps, in the kept workspace, and the build succeeds', async () => {
      if (!first) throw new Error('the first run failed: see the test before');
      // The flake is over; the claim still holds `made` from the first run, which `flaky` and `after` read.
      await writeFile(fix(), '');
      const second = await builds.build('redrive-1', pipelineFixedBy(fix()), { redrive: { events: first.events, count: 1 } });
      expect({ status: second.summary.status, error: second.summary.error }).toEqual({ status: 'SUCCEEDED', error: null });
      expect(second.events[0]?.type).toBe('ExecutionRedriven');
      expect(printed([...first.events, ...second.events])).toEqual(
        expect.arrayContaining(['Execution redrive-1 redriven: its steps that did not succeed run again, in its workspace', expect.stringMatching(/^Execution SUCCEEDED in /)]),
      );
      const rerun = launchedPods(second.events);
      expect(rerun.map((name) => name.replace(/-[0-9a-f]{8}$/, ''))).toEqual(['redrive-1-flaky-r1', 'redrive-1-after-r1']);
      expect(rerun.some((name) => launchedPods(first!.events).includes(name))).toBe(false);
      expect(second.summary.steps.map((s) => [s.name, s.status])).toEqual([
        ['prepare', 'succeeded'],
        ['flaky', 'succeeded'],
        ['after', 'succeeded'],
      ]);
      expect(await claimsOf('redrive-1')).toEqual([]);
    });
  });
});

/**
 * Where a build's pods go on the embedded cluster: every pod that mounts the build's workspace
 * carries its claim as a label and a required pod affinity to the pods with that label, so the
 * first pods of a build, started side by side before any of them has put the volume on a node,
 * still land together; and the scheduler honours that affinity as kube-scheduler does, keeping a
 * pod whose affinity no node satisfies Pending with FailedScheduling until the cluster changes.
 */
describe('workspace placement', () => {
  const NS = 'default';
  const HOSTNAME = 'kubernetes.io/hostname';
  const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
  const AFFINITY_REFUSAL = "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
  const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

  const builds = shared.withSettings({ imageCheck: false });
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
});
