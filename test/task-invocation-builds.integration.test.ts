/**
 * How the local executor's task invocations end, through the real definition on one embedded
 * cluster (process runtime): the subjects below used to be a file each, each starting its own
 * cluster and folder the same way. Each build has an id of its own and nothing is left running
 * between them; the one fault (the API answering 503) is switched on for one build only.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { StatusRequest } from '../lib/contract/index.js';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster, type Fault } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import type { StepCluster } from '../lib/kube/index.js';
import type { IncomingMessage } from 'node:http';
import type { V1Pod } from '@kubernetes/client-node';
import { printedStatusReporter } from '../lib/emulators/lambda/printed-status.js';
import type { PollState } from '../lib/workflow/state-data.js';
import { openWatch } from './fixtures/watch-events.js';

/** Switched on for the build that must find the cluster unreachable. */
let unavailable = false;
let cluster: EmbeddedCluster;
let root: string;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({
    timings: FAST_TIMINGS,
    faults: (): Fault | undefined => (unavailable ? { kind: 'status', code: 503, retryAfterSeconds: 0 } : undefined),
  });
  root = await mkdtemp(path.join(tmpdir(), 'task-invocation-'));
  await writeFile(path.join(root, 'kubeconfig'), cluster.kubeconfigYaml());
});

afterAll(async () => {
  await cluster.stop();
  await rm(root, { recursive: true, force: true });
});

/**
 * How an error a task throws reaches the console. On AWS, Lambda hands Step Functions the error as
 * the runtime's JSON payload ({"errorType","errorMessage","trace"}), and that JSON is the Cause of
 * the failed task and of whatever catches it. The local executor builds Causes the same way, so
 * these builds show what the deployed definition does with them: the execution, BuildFailed and
 * the commit status end with the message alone, while the task's own failure keeps the JSON, as
 * the console's history does.
 */
describe('causes of failed tasks', () => {
  const NAMESPACE = 'default';
  async function build(id: string, pipeline: string, options: { unavailable?: boolean } = {}) {
    const events: ExecutionEvent[] = [];
    const statuses: StatusRequest[] = [];
    const runtime = localTaskRuntime({ kubeconfig: path.join(root, 'kubeconfig'), namespace: NAMESPACE, logsDir: path.join(root, 'logs') });
    unavailable = options.unavailable ?? false;
    try {
      const summary = await startLocalExecution(
        { build: { id, trigger: 'test', repository: 'octo/app', commit: 'a'.repeat(40) }, pipeline: { file: 'p.yml', text: pipeline }, withoutSource: 'no checkout here' },
        {
          runtime,
          statuses: { report: async (request) => (statuses.push(request), { posted: false, reason: 'recorded by the test' }) },
          overrides: { waitMs: 20, retryMs: 5 },
          onEvent: (event) => events.push(event),
        },
      ).result;
      return { summary, events, statuses };
    } finally {
      unavailable = false;
    }
  }

  /** The Lambda error payload a task failure carries, parsed. */
  function lambdaPayload(event: ExecutionEvent | undefined): { errorType: string; errorMessage: string; trace: string[] } {
    return JSON.parse(String(event?.Cause)) as { errorType: string; errorMessage: string; trace: string[] };
  }

  describe('an error a task throws', () => {
    it('is Lambda JSON on the task, and the message alone on the execution and the commit status', async () => {
      const { summary, events, statuses } = await build('cause-invalid', 'version: 1\nsteps:\n  - name: Bad_Name\n    image: alpine:3.20\n    commands: [echo hi]\n');
      const failed = events.find((e) => e.type === 'StateFailed' && e.state?.name === 'PrepareBuild');
      const payload = lambdaPayload(failed);
      expect(payload.errorType).toBe('InvalidPipeline');
      expect(payload.errorMessage).toContain('Bad_Name');
      expect(payload.trace[0]).toBe(`InvalidPipeline: ${payload.errorMessage.split('\n')[0]}`);

      expect(summary).toMatchObject({ status: 'FAILED', error: 'InvalidPipeline', cause: payload.errorMessage });
      const exited = events.filter((e) => e.type === 'StateExited').map((e) => e.state?.name);
      expect(exited).toEqual(expect.arrayContaining(['ReadFailure', 'ParseLambdaError', 'KeepErrorMessage', 'CleanupBuild', 'ReportFailed']));
      expect(statuses.at(-1)).toMatchObject({ outcome: 'failed', failure: { Error: 'InvalidPipeline', Cause: payload.errorMessage } });
    });

    it('thrown inside a step (the cluster unreachable after the retries) ends the build with the message alone', async () => {
      const { summary, events } = await build('cause-unavailable', 'version: 1\ncheckout: false\nsteps:\n  - name: one\n    image: alpine:3.20\n    commands: [echo hi]\n', { unavailable: true });
      expect(summary.error).toBe('KubernetesUnavailable');
      const failed = events.find((e) => e.type === 'StateFailed' && e.Error === 'KubernetesUnavailable');
      expect(lambdaPayload(failed).errorMessage).toBe(summary.cause);
      expect(summary.cause).toMatch(/^\S.*503/s);
    });
  });

  describe('a Cause that is text already', () => {
    it('passes a Fail state\'s Cause (a missing image) through unchanged', async () => {
      const { summary, events } = await build('cause-pull', 'version: 1\ncheckout: false\nsteps:\n  - name: one\n    image: alpine:3.99-nope\n    commands: [echo hi]\n    image-check: false\n');
      expect(summary.error).toBe('ImagePullFailed');
      const stepFailed = events.find((e) => e.type === 'StateFailed' && e.state?.name === 'StepFailed');
      expect(summary.cause).toBe(stepFailed?.Cause);
      expect(summary.cause).toContain('alpine:3.99-nope');
      const exited = events.filter((e) => e.type === 'StateExited').map((e) => e.state?.name);
      expect(exited).toContain('ReadFailure');
      expect(exited).not.toContain('ParseLambdaError');
    });
  });
});

/**
 * An invocation that outlives its function's timeout, locally as on Lambda: cut at the timeout,
 * whatever the handler answers later discarded, and Step Functions told `Sandbox.Timedout` with
 * the payload Lambda answers in its place. The timeout is made short for the test through the
 * executor's overrides. A handler that merely waits is ended by middy 5 ms before the deadline
 * (`TimeoutError`, its own answer); one that keeps the event loop busy through the deadline, as
 * here, gives Lambda no answer in time, which the test can make happen for certain.
 */
describe('invocation timeouts', () => {
  const NAMESPACE = 'default';
  const TIMEOUT_MS = 250;

  describe('an invocation past its timeout', () => {
    it('is cut as Lambda cuts it: Sandbox.Timedout, what the handler answers later discarded, and the build fails with it', async () => {
      const runtime = localTaskRuntime({ kubeconfig: path.join(root, 'kubeconfig'), namespace: NAMESPACE, logsDir: path.join(root, 'logs') });
      // Each request a task makes of the cluster is first busy here (synchronously, as a handler
      // stuck in its own work) past FinishStep's deadline, then made: too late, on
      // every attempt the definition's Retry makes (the other tasks have their deployed timeouts).
      const { cluster } = runtime.deps;
      let busy = 0;
      const pastTheDeadline = () => {
        busy++;
        const since = performance.now();
        while (performance.now() - since <= TIMEOUT_MS);
      };
      const events: ExecutionEvent[] = [];
      const summary = await startLocalExecution(
        {
          build: { id: 'timeout-1', trigger: 'test' },
          pipeline: { file: 'p.yml', text: 'version: 1\nsteps:\n  - name: one\n    image: alpine:3.20\n    commands: [echo one]\n' },
          withoutSource: 'this build tests its tasks, not a checkout',
        },
        {
          runtime: { ...runtime, deps: { ...runtime.deps, cluster: pastTheDeadlineFirst(cluster, pastTheDeadline) } },
          statuses: { report: async () => ({ posted: false, reason: 'not posted by this test' }) },
          overrides: { waitMs: 20, retryMs: 5, invocationTimeoutMs: { FinishStep: TIMEOUT_MS } },
          onEvent: (event) => events.push(event),
        },
      ).result;

      expect(busy).toBeGreaterThan(0);
      const failed = events.find((e) => e.type === 'StateFailed' && e.state?.name === 'FinishStep');
      expect(failed?.Error).toBe('Sandbox.Timedout');
      expect(JSON.parse(String(failed?.Cause))).toEqual({
        errorMessage: expect.stringMatching(/^RequestId: [0-9a-f-]{36} Error: Task timed out after 0\.25 seconds$/),
        errorType: 'Sandbox.Timedout',
      });
      expect(events.filter((e) => e.type === 'TaskSucceeded' && e.state?.name === 'FinishStep')).toEqual([]);
      // The definition retries a timed-out task (Sandbox.Timedout, 3 times): each attempt was cut too.
      expect(events.filter((e) => e.type === 'StateRetried' && e.state?.name === 'FinishStep')).toHaveLength(3);

      expect(summary).toMatchObject({ status: 'FAILED', error: 'Sandbox.Timedout' });
      expect(summary.steps).toEqual([expect.objectContaining({ name: 'one', status: 'failed', error: 'Sandbox.Timedout' })]);
      // The build's Catch ran as for any failure: the pods cleaned up, the failure reported.
      const exited = events.filter((e) => e.type === 'StateExited').map((e) => e.state?.name);
      expect(exited).toEqual(expect.arrayContaining(['CleanupBuild', 'ReportFailed']));
    });
  });

  /** The cluster, each request made only after `first` (which takes the task past its deadline). */
  function pastTheDeadlineFirst(cluster: StepCluster, first: () => void): StepCluster {
    return Object.fromEntries(
      Object.entries(cluster).map(([name, request]: [string, (...args: unknown[]) => unknown]) => [name, (...args: unknown[]) => (first(), request(...args))]),
    ) as unknown as StepCluster;
  }
});

/**
 * The end of a running step is noticed at once: PollStep holds a watch on the running pod, so the
 * next step's pod is created as soon as the container exits, not at the next scheduled poll
 * (which for a 5-second step comes 2 s late, and for a long one up to a minute). How soon, in
 * milliseconds, is the bench's figure (bench/step-end-latency.ts); here, the order of things.
 *
 * The real definition, the real schedule (no wait override) and the embedded cluster. The test's
 * own watch on the namespace's pods (not the code under test) sees the first step's container
 * terminate and the second step's pod appear.
 */
describe('the end of a running step', () => {
  let watch: IncomingMessage;
  /** When the test's watch first saw each thing happen, by pod name. */
  const terminatedAt = new Map<string, number>();
  const addedAt = new Map<string, number>();

  beforeAll(async () => {
    watch = await openWatch<V1Pod>(`${cluster.url}/api/v1/namespaces/default/pods?watch=true`, ({ type, object: pod }) => {
      const name = pod.metadata!.name!;
      if (type === 'ADDED' && !addedAt.has(name)) addedAt.set(name, Date.now());
      const terminated = pod.status?.containerStatuses?.some((c) => c.state?.terminated);
      if (terminated && !terminatedAt.has(name)) terminatedAt.set(name, Date.now());
    });
  });
  afterAll(async () => {
    watch.destroy();
  });

  describe('a step that ends while it runs', () => {
    it('is followed by the next step\'s pod as soon as its container exits, with no poll on the schedule', async () => {
      const events: ExecutionEvent[] = [];
      const summary = await startLocalExecution(
        {
          build: { id: 'step-end', trigger: 'test' },
          pipeline: { file: 'p.yml', text: 'version: 1\ncheckout: false\nsteps:\n  - name: five\n    image: alpine:3.20\n    commands: [sleep 5]\n  - name: next\n    image: alpine:3.20\n    commands: [echo next]\n' },
          withoutSource: 'the steps only sleep',
        },
        {
          runtime: localTaskRuntime({ kubeconfig: path.join(root, 'kubeconfig'), namespace: 'default', logsDir: path.join(root, 'logs') }),
          statuses: printedStatusReporter(() => {}),
          onEvent: (event) => events.push(event),
        },
      ).result;
      expect(summary.status).toBe('SUCCEEDED');

      const podOf = (index: number) => (events.find((e) => e.type === 'StateExited' && e.state?.name === 'LaunchStep' && e.index === index)?.state?.output as { poll: PollState }).poll.podName;
      const exited = terminatedAt.get(podOf(0))!;
      const next = addedAt.get(podOf(1))!;
      expect(exited).toBeDefined();
      expect(next).toBeGreaterThan(exited);

      // One poll held the watch through the whole run and the next saw the end: no poll was spent on
      // the schedule, and the only Wait was the one after the launch.
      const polls = events.filter((e) => e.type === 'StateExited' && e.state?.name === 'PollStep' && e.index === 0).map((e) => (e.state?.output as { poll: PollState }).poll);
      expect(polls.filter((p) => p.phase === 'running')).toHaveLength(1);
      expect(polls.at(-1)).toMatchObject({ phase: 'succeeded' });
      expect(events.filter((e) => e.type === 'StateEntered' && e.state?.name === 'WaitForStep' && e.index === 0)).toHaveLength(1);
    }, 30_000);
  });
});
