/**
 * The definition's failure paths, run in aws-local-stepfunctions with every Task bound to a stub
 * that records what it was handed: who cleans up and reports a failure the service names
 * (`States.*`), and what BuildFailed makes of a Catch output without a Cause. Then the execution's
 * end as the EventBridge rule would deliver it to the ended-execution cleanup.
 */
import '../lib/emulators/stepfunctions/polyfills.js';
import { StateMachine } from 'aws-local-stepfunctions';
import { localLambdaArn } from '../lib/emulators/stepfunctions/executor.js';
import { loadDefinition, resolveResources, type AslDefinition } from '../lib/workflow/definition.js';
import type { CaughtFailure, StatusRequest } from '../lib/contract/index.js';
import type { TaskDeps } from '../lib/workflow/task-deps.js';
import { cleanupEndedExecution, type ExecutionStatusChange } from '../lib/workflow/tasks/cleanup-ended-execution.js';
import { awaitRerun, type AwaitRerunInput } from '../lib/workflow/tasks/await-rerun.js';
import { plainCause } from '../lib/contract/lambda-error.js';
import { kubeStepCluster } from '../lib/kube/index.js';

type Handler = (input: Record<string, unknown>) => Promise<unknown>;

/** A Task failing with this name, as the local library fails one past its TimeoutSeconds. */
function serviceError(name: string, message = ''): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

const BUILD = { id: 'gh-acme-web-42', repository: 'acme/web', commit: '0123456789abcdef0123456789abcdef01234567' };
const STEP = { name: 'test', image: 'node:22-alpine', commands: ['npm test'] };

interface Run {
  status: 'SUCCEEDED' | 'FAILED';
  error?: string;
  cause?: string;
  /** Each Task state entered, in order, with what it was handed. */
  calls: { state: string; input: Record<string, unknown> }[];
}

/** Runs the definition (from `startAt`, by default its own start) with `stubs` for the Tasks, as the execution `redriveCount` times redriven. */
async function run(input: Record<string, unknown>, stubs: Record<string, Handler>, startAt?: string, redriveCount = 0): Promise<Run> {
  const definition = structuredClone(loadDefinition()) as AslDefinition;
  if (startAt) definition.StartAt = startAt;
  const calls: Run['calls'] = [];
  const recorded = (state: string, handler: Handler): Handler => async (event) => {
    calls.push({ state, input: event });
    return handler(event);
  };
  const fallback: Handler = async () => ({});
  const states = Object.keys(collectTaskStates(definition));
  const handlers = Object.fromEntries(states.map((state) => [state, recorded(state, stubs[state] ?? fallback)]));
  // A run from a later state leaves the first ones unreachable, which validation refuses; the
  // whole definition is validated as it is (state-machine-definition.test.ts).
  const validationOptions = startAt ? { noValidate: true } : { checkPaths: true, checkArn: true };
  const machine = new StateMachine(resolveResources(definition, localLambdaArn) as never, { validationOptions });
  const execution = machine.run(input as never, {
    context: { Execution: { Id: `arn:aws:states:us-east-1:000000000000:execution:build:${BUILD.id}`, Name: BUILD.id, Input: input as never, RedriveCount: redriveCount } },
    overrides: { taskResourceLocalHandlers: handlers as never, waitTimeOverrides: Object.fromEntries(waitStates(definition).map((s) => [s, 0])) },
  });
  let ended: { Error?: string; Cause?: string } | undefined;
  for await (const event of execution.eventLogs as AsyncGenerator<{ type: string; Error?: string; Cause?: string }>) {
    if (event.type === 'ExecutionFailed') ended = event;
  }
  await execution.result.catch(() => undefined);
  if (!ended) return { status: 'SUCCEEDED', calls };
  return { status: 'FAILED', ...(ended.Error ? { error: ended.Error } : {}), ...(ended.Cause ? { cause: ended.Cause } : {}), calls };
}

/** Every Task state, Map iterations' included, by name. */
function collectTaskStates(definition: { States: Record<string, unknown> }): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const [name, state] of Object.entries(definition.States)) {
    const s = state as { Type: string; ItemProcessor?: { States: Record<string, unknown> } };
    if (s.Type === 'Task') found[name] = s;
    if (s.ItemProcessor) Object.assign(found, collectTaskStates(s.ItemProcessor));
  }
  return found;
}

function waitStates(definition: { States: Record<string, unknown> }): string[] {
  return Object.entries(definition.States).flatMap(([name, state]) => {
    const s = state as { Type: string; ItemProcessor?: { States: Record<string, unknown> } };
    return [...(s.Type === 'Wait' ? [name] : []), ...(s.ItemProcessor ? waitStates(s.ItemProcessor) : [])];
  });
}

const prepared = { build: BUILD, namespace: 'step-runner', settings: {}, steps: [STEP], maxParallel: 1 };
const launched = { podName: 'sr-gh-acme-web-42-0-test', launchedAt: '2026-12-01T10:00:00Z', runningSince: null, phase: 'pending', reason: 'Pending', nextPollSeconds: 1, polls: 0 };

const reportsOf = (r: Run, outcome: string) => r.calls.filter((c) => c.state.startsWith('Report') && c.input.outcome === outcome);
const cleanupsOf = (r: Run) => r.calls.filter((c) => c.state === 'CleanupBuild' || c.state === 'CleanupSucceededBuild');

/** The EventBridge event for the run's end, and what the ended-execution cleanup does with it. */
async function endedExecutionCleanup(r: Run, input: Record<string, unknown>) {
  const event: ExecutionStatusChange = {
    'detail-type': 'Step Functions Execution Status Change',
    detail: { name: BUILD.id, status: r.status, error: r.error ?? null, cause: r.cause ?? null, input: JSON.stringify(input) },
  };
  const deleted: string[] = [];
  const statuses: StatusRequest[] = [];
  const noop = () => undefined;
  const deps = {
    log: { info: noop, warn: noop, error: noop, debug: noop },
    now: () => new Date(),
    cluster: kubeStepCluster(async () => ({
      // Only reached when the cleanup does clean up: every list it makes comes back empty.
      listNamespacedPod: async () => (deleted.push('pods'), { items: [] }),
      deleteCollectionNamespacedPod: async () => (deleted.push('pods'), {}),
      listNamespacedPersistentVolumeClaim: async () => (deleted.push('claims'), { items: [] }),
      deleteNamespacedPersistentVolumeClaim: async () => (deleted.push('claims'), {}),
      listNamespacedSecret: async () => (deleted.push('secrets'), { items: [] }),
      deleteNamespacedSecret: async () => (deleted.push('secrets'), {}),
    }) as never),
  } as unknown as TaskDeps;
  const reporter = { report: async (request: StatusRequest) => (statuses.push(request), { posted: true }) } as never;
  const result = await cleanupEndedExecution(event, 'step-runner', deps, reporter);
  return { result, deleted, statuses };
}

describe('a failure Step Functions names (States.*) that the definition caught', () => {
  const input = { build: BUILD, pipeline: { file: '.step-runner.yml', text: 'version: 1' } };

  it.each([
    ['States.Timeout', 'PollStep past its TimeoutSeconds'],
    ['States.TaskFailed', 'a task the service failed'],
  ])('%s (%s) is cleaned up and reported once, by the definition, and the ended-execution cleanup stands down', async (error) => {
    const r = await run(input, {
      PrepareBuild: async () => prepared,
      LaunchStep: async () => launched,
      PollStep: async () => {
        throw serviceError(error);
      },
    });
    expect(r).toMatchObject({ status: 'FAILED', error });
    expect(cleanupsOf(r).map((c) => c.state)).toEqual(['CleanupBuild']);
    expect(reportsOf(r, 'failed')).toHaveLength(1);
    expect((reportsOf(r, 'failed')[0]!.input.failure as CaughtFailure).Error).toBe(error);

    const ended = await endedExecutionCleanup(r, input);
    expect(ended.result).toEqual({ build: null, deletedPods: 0, deletedClaims: 0, deletedSecrets: 0 });
    expect(ended.deleted).toEqual([]);
    // The commit keeps ReportFailed's "failure" status; no "error" status is posted over it.
    expect(ended.statuses).toEqual([]);
  });

  it('an error no Catch takes (States.Runtime) is left to the ended-execution cleanup, which cleans up and reports it', async () => {
    const r = await run(input, {
      PrepareBuild: async () => prepared,
      LaunchStep: async () => launched,
      PollStep: async () => ({ ...launched, phase: 'failed', reason: 'Error', error: 'StepFailed', cause: 'exit 1' }),
      // A result without the cause StepFailed's CausePath reads: States.Runtime inside the Map.
      FinishFailedStep: async () => ({ error: 'StepFailed' }),
    });
    expect(r).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(cleanupsOf(r)).toEqual([]);
    expect(reportsOf(r, 'failed')).toEqual([]);

    const ended = await endedExecutionCleanup(r, input);
    expect(ended.result.build).toBe(BUILD.id);
    expect(ended.deleted.length).toBeGreaterThan(0);
    expect(ended.statuses).toEqual([expect.objectContaining({ outcome: 'stopped', failure: expect.objectContaining({ Error: 'States.Runtime' }) })]);
  });
});

describe('BuildFailed after a Catch output without a Cause', () => {
  // What a Catch's ResultPath holds for an error that came without a Cause; the local library
  // always fills one in, so the run starts where the Catches lead.
  const input = { ...prepared, failure: { Error: 'States.Timeout' } };

  it('ends with the caught Error and a Cause naming it, cleaned up and reported once', async () => {
    const r = await run(input, {}, 'ReadFailure');
    expect(r.status).toBe('FAILED');
    expect(r.error).toBe('States.Timeout');
    expect(r.cause).toContain('States.Timeout');
    expect(cleanupsOf(r).map((c) => c.state)).toEqual(['CleanupBuild']);
    const reports = reportsOf(r, 'failed');
    expect(reports).toHaveLength(1);
    expect(reports[0]!.input.failure).toEqual({ Error: 'States.Timeout', Cause: r.cause });
  });

  it('keeps a Cause that is there', async () => {
    const r = await run({ ...input, failure: { Error: 'StepFailed', Cause: 'Step "test" failed with exit code 1' } }, {}, 'ReadFailure');
    expect(r).toMatchObject({ status: 'FAILED', error: 'StepFailed', cause: 'Step "test" failed with exit code 1' });
  });
});

describe('a failed build with steps to re-run', () => {
  const failure = { Error: 'StepFailed', Cause: 'Step "test" failed with exit code 1' };
  const kept = { rerun: { steps: [STEP], keptSeconds: 86_400 } };
  const stubs: Record<string, Handler> = {
    CleanupBuild: async () => kept,
    AwaitRerun: async (event) => awaitRerun(event as unknown as AwaitRerunInput),
    LaunchStep: async () => launched,
    PollStep: async () => ({ ...launched, phase: 'succeeded', reason: 'Completed' }),
    FinishStep: async () => ({ step: STEP.name, status: 'succeeded', exitCode: 0, log: 'builds/x/test.log' }),
  };

  it('fails in AwaitRerun with the build\'s Error and Cause, cleaned up and reported once, and the ended-execution cleanup stands down', async () => {
    const input = { ...prepared, failure };
    const r = await run(input, stubs, 'ReadFailure');
    expect({ status: r.status, error: r.error, cause: plainCause(r.cause ?? '') }).toEqual({ status: 'FAILED', error: 'StepFailed', cause: failure.Cause });
    expect(r.calls.at(-1)).toEqual({ state: 'AwaitRerun', input: { build: BUILD, failedAt: 0, redrive: 0, failure } });
    expect(cleanupsOf(r).map((c) => c.state)).toEqual(['CleanupBuild']);
    expect(reportsOf(r, 'failed')).toHaveLength(1);
    expect((await endedExecutionCleanup(r, input)).statuses).toEqual([]);
  });

  it('goes on from AwaitRerun once redriven: the steps that did not succeed run, and the build succeeds', async () => {
    // AwaitRerun's input as the first run entered it: a redrive schedules it again with it.
    const entered = { ...prepared, failure, cleanup: kept, rerunGate: { failedAt: 0 } };
    const r = await run(entered, stubs, 'AwaitRerun', 1);
    expect(r.status).toBe('SUCCEEDED');
    expect(r.calls[0]).toEqual({ state: 'AwaitRerun', input: { build: BUILD, failedAt: 0, redrive: 1, failure } });
    expect(r.calls.map((c) => c.state)).toEqual(expect.arrayContaining(['ReportStarted', 'LaunchStep', 'FinishStep', 'CleanupSucceededBuild', 'ReportSucceeded']));
  });
});
