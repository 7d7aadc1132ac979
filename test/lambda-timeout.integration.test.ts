/**
 * An invocation that outlives its function's timeout, locally as on Lambda: cut at the timeout,
 * whatever the handler answers later discarded, and Step Functions told `Sandbox.Timedout` with
 * the payload Lambda answers in its place. The timeout is made short for the test through the
 * executor's overrides. A handler that merely waits is ended by middy 5 ms before the deadline
 * (`TimeoutError`, its own answer); one that keeps the event loop busy through the deadline, as
 * here, gives Lambda no answer in time, which the test can make happen for certain.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { logger } from '../lib/workflow/lambda-task.js';
import type { StepCluster } from '../lib/kube/index.js';

const NAMESPACE = 'default';
let cluster: EmbeddedCluster;
let root: string;

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
  root = await mkdtemp(path.join(tmpdir(), 'lambda-timeout-'));
  await writeFile(path.join(root, 'kubeconfig'), cluster.kubeconfigYaml());
});
afterAll(async () => {
  await cluster.stop();
  await rm(root, { recursive: true, force: true });
});

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

