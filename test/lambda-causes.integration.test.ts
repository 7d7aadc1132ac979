/**
 * How an error a task throws reaches the console. On AWS, Lambda hands Step Functions the error as
 * the runtime's JSON payload ({"errorType","errorMessage","trace"}), and that JSON is the Cause of
 * the failed task and of whatever catches it. The local executor builds Causes the same way, so
 * these builds show what the deployed definition does with them: the execution, BuildFailed and
 * the commit status end with the message alone, while the task's own failure keeps the JSON, as
 * the console's history does.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { StatusRequest } from '../lib/contract/index.js';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster, type Fault } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { logger } from '../lib/workflow/lambda-task.js';

const NAMESPACE = 'default';
let cluster: EmbeddedCluster;
let root: string;
/** Switched on for the build that must find the cluster unreachable. */
let unavailable = false;

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  cluster = await startEmbeddedCluster({
    timings: FAST_TIMINGS,
    faults: (): Fault | undefined => (unavailable ? { kind: 'status', code: 503, retryAfterSeconds: 0 } : undefined),
  });
  root = await mkdtemp(path.join(tmpdir(), 'lambda-causes-'));
  await writeFile(path.join(root, 'kubeconfig'), cluster.kubeconfigYaml());
});
afterAll(async () => {
  await cluster.stop();
  await rm(root, { recursive: true, force: true });
});

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
