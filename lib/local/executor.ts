import './polyfills.js';
import { StateMachine } from 'aws-local-stepfunctions';
import type { BuildInput } from '../contract/index.js';
import { loadDefinition, resolveResources, taskStates } from '../workflow/definition.js';
import { cleanupEndedExecutionHandler } from '../workflow/handlers.js';
import { listedSteps, type PreparedBuild, type StepInput, type StepResult } from '../workflow/state-data.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import type { StatusReporter } from '../workflow/tasks/report-status.js';
import { localLambdaContext } from './lambda-context.js';
import { localLambdaFunctions } from './lambda-functions.js';
import { printedStatusReporter } from './printed-status.js';

/**
 * An event of the execution history, as aws-local-stepfunctions reports it, plus TaskSucceeded
 * (what a task returned, before ResultSelector and ResultPath) as Step Functions records it.
 */
export type ExecutionEvent = {
  type: string;
  timestamp: number;
  state?: { name: string; type: string; input?: unknown; output?: unknown };
  index?: number;
  Error?: string;
  Cause?: unknown;
  output?: unknown;
};

export type ExecutionStatus = 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

/**
 * A step as `run --json` and `GET /executions/NAME` show it: `running` while its iteration is under
 * way, `aborted` when the execution was stopped (aborted, timed out) in the middle of it, `skipped`
 * when its `when` did not hold for the build (it had no iteration).
 */
export type StepOutcome = 'succeeded' | 'failed' | 'running' | 'aborted' | 'not-run' | 'skipped';

/** The `run --json` object (docs/contracts.md). */
export interface ExecutionSummary {
  status: ExecutionStatus;
  error: string | null;
  cause: string | null;
  /** Every step in the pipeline file's order (the checkout first); a skipped one has its `reason`. */
  steps: { name: string; status: StepOutcome; exitCode: number | null; error: string | null; reason?: string }[];
  events: { type: string; state: string | null; timestamp: string }[];
}

export interface LocalExecutionOptions {
  /** The cluster, the log store and the settings the handlers run with (localTaskRuntime). */
  runtime: TaskRuntime;
  /** Where commit statuses go (default: printed on stdout; nothing is posted locally). */
  statuses?: StatusReporter;
  /** The execution's name (default: the build id); `$$.Execution.Id` is its local ARN. */
  executionName?: string;
  /** Called with each history event as it happens (the console output). */
  onEvent?: (event: ExecutionEvent) => void;
  /** Tests only: wait this many ms in WaitForStep instead of the scheduled seconds. */
  waitMs?: number;
  /** Tests only: pause this many ms between retries instead of the definition's intervals. */
  retryMs?: number;
  /**
   * Tests only: the Error (e.g. `Lambda.Unknown`) an invocation of this Task state ends with after
   * its handler ran, as Step Functions reports an invocation that ran out of time or memory: the
   * work done, the answer lost. Undefined: the invocation answers.
   */
  invocationFailure?: (state: string) => string | undefined;
}

/**
 * A task's error as Lambda hands it to Step Functions: the Error is the error's name, and the Cause
 * the runtime's JSON payload, so what the definition does with it locally is what it does on AWS.
 */
class LambdaFunctionError extends Error {
  constructor(thrown: unknown) {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    super(JSON.stringify({ errorType: error.name, errorMessage: error.message, trace: (error.stack ?? '').split('\n') }));
    this.name = error.name;
  }
}

/** An invocation that Lambda could not complete, under the name Step Functions gives it. */
class LambdaInvocationFailure extends Error {
  constructor(readonly errorName: string) {
    super(`${errorName}: the invocation did not complete (injected)`);
    this.name = errorName;
  }
}

export interface LocalExecution {
  result: Promise<ExecutionSummary>;
  /** Aborts the execution, then deletes the build's pods as the EventBridge cleanup rule does on AWS. */
  abort(): void;
  /**
   * The Map iterations this executor kept from starting, which Step Functions itself never starts
   * (see startLocalExecution). Kept apart from the history, which shows what the service would show.
   */
  readonly refused: readonly RefusedIteration[];
}

/** A Map iteration refused at its first task: the step index and the state that was refused. */
export interface RefusedIteration {
  index: number;
  state: string;
}

/** Where a local execution would live on AWS; ReportStatus links to it. */
export function localExecutionArn(name: string): string {
  return `arn:aws:states:local:000000000000:execution:step-runner-local:${name}`;
}

/** A Lambda ARN in the account and region no real function has: the local executor binds by state name. */
export const localLambdaArn = (functionId: string) => `arn:aws:lambda:us-east-1:000000000000:function:${functionId}`;

const taskKey = (state: string, index: number | undefined) => `${state}#${index ?? ''}`;

class StepNotLaunched extends Error {
  override readonly name = 'StepNotLaunched';
}

/**
 * Runs one build through the real definition, each Task state bound to the same handler the
 * Lambda function runs, with a stand-in Lambda context and no AWS calls.
 */
export function startLocalExecution(input: BuildInput, options: LocalExecutionOptions): LocalExecution {
  const definition = loadDefinition();
  const statuses = options.statuses ?? printedStatusReporter((line) => process.stdout.write(`${line}\n`));
  const functions = localLambdaFunctions(options.runtime, statuses);
  const machine = new StateMachine(resolveResources(definition, localLambdaArn) as never, {
    validationOptions: { checkPaths: true, checkArn: true },
  });

  // Step Functions launches no further Map iteration once one has failed. aws-local-stepfunctions
  // (3.0.0) goes on starting queued iterations after a failure (and runs those it no longer aborts),
  // which would create later steps' pods. With one step at a time, step i may start only once step
  // i-1 has finished successfully, so its first task is refused otherwise; the refusal is recorded
  // in `refused`, and the iteration's events are left out of the history the service would show.
  const succeeded = new Set<number>();
  const refused: RefusedIteration[] = [];
  const mayRun = (index: number | undefined) => index === undefined || index === 0 || succeeded.has(index - 1);
  const handlers: Record<string, (event: unknown) => Promise<unknown>> = {};
  // What each task returned, before ResultSelector and ResultPath: the history's TaskSucceeded.
  const taskOutputs = new Map<string, unknown>();
  const tasks = taskStates(definition);
  const retriedStates: Record<string, number> = {};
  for (const { state, functionId } of tasks) {
    const fn = functions[functionId];
    if (!fn) throw new Error(`Task state ${state} calls ${functionId}, which serverless.yml does not define`);
    handlers[state] = async (event) => {
      const index = (event as Partial<StepInput>).index;
      if (!mayRun(index)) {
        refused.push({ index: index!, state });
        throw new StepNotLaunched(`step ${index} was not launched: an earlier step failed`);
      }
      let output: unknown;
      try {
        output = await fn.handler(event as never, localLambdaContext(fn.name, fn.timeoutSeconds * 1000));
      } catch (error) {
        throw new LambdaFunctionError(error);
      }
      taskOutputs.set(taskKey(state, index), output);
      const failure = options.invocationFailure?.(state);
      if (failure) throw new LambdaInvocationFailure(failure);
      if (index !== undefined && (output as Partial<StepResult> | undefined)?.status === 'succeeded') succeeded.add(index);
      return output;
    };
    if (options.retryMs !== undefined) retriedStates[state] = options.retryMs;
  }

  const name = options.executionName ?? input.build.id;
  const execution = machine.run(input as never, {
    // aws-local-stepfunctions fills $$.Execution only with what it is given.
    context: { Execution: { Id: localExecutionArn(name), Name: name, Input: input as never, StartTime: new Date().toISOString() } },
    overrides: {
      taskResourceLocalHandlers: handlers as never,
      ...(options.waitMs !== undefined ? { waitTimeOverrides: { WaitForStep: options.waitMs } } : {}),
      ...(options.retryMs !== undefined ? { retryIntervalOverrides: retriedStates } : {}),
    },
    noThrowOnAbort: true,
  });

  const history: ExecutionEvent[] = [];
  const record = (event: ExecutionEvent) => {
    history.push(event);
    options.onEvent?.(event);
  };
  const pump = (async () => {
    for await (const event of execution.eventLogs as AsyncGenerator<ExecutionEvent>) {
      if (!mayRun(event.index)) continue;
      const key = taskKey(event.state?.name ?? '', event.index);
      if (event.type === 'StateExited' && event.state?.type === 'Task' && taskOutputs.has(key)) {
        record({ type: 'TaskSucceeded', timestamp: event.timestamp, state: { name: event.state.name, type: 'Task', output: taskOutputs.get(key) }, index: event.index });
        taskOutputs.delete(key);
      }
      record(event);
    }
  })();

  let aborted = false;
  const result = (async () => {
    await execution.result.catch(() => undefined);
    await pump;
    if (aborted) await cleanupAfterAbort(input, name, options.runtime, statuses);
    return summarize(history, aborted);
  })();

  return {
    result,
    refused,
    abort() {
      if (aborted) return;
      aborted = true;
      execution.abort();
    },
  };
}

/**
 * What EventBridge does on AWS when an execution is aborted: the same cleanup-ended-execution
 * handler, with the event it would get, deletes the build's objects and posts (here: prints) the
 * commit's `error` status, since no state of the aborted execution could.
 */
async function cleanupAfterAbort(input: BuildInput, name: string, runtime: TaskRuntime, statuses: StatusReporter): Promise<void> {
  const event = {
    'detail-type': 'Step Functions Execution Status Change',
    detail: { executionArn: localExecutionArn(name), name, status: 'ABORTED', input: JSON.stringify(input) },
  };
  await cleanupEndedExecutionHandler(runtime, () => statuses)(event, localLambdaContext('cleanupEndedExecution'));
}

function preparedBuild(history: ExecutionEvent[]): PreparedBuild | undefined {
  const exited = history.find((e) => e.type === 'StateExited' && e.state?.name === 'PrepareBuild');
  return exited?.state?.output as PreparedBuild | undefined;
}

/** `running`: the execution has not ended (a step under way is `running`, not `aborted`). */
export function summarize(history: ExecutionEvent[], aborted: boolean, { running = false } = {}): ExecutionSummary {
  const last = history.at(-1);
  const status: ExecutionStatus = aborted
    ? 'ABORTED'
    : last?.type === 'ExecutionSucceeded'
      ? 'SUCCEEDED'
      : last?.type === 'ExecutionTimeout'
        ? 'TIMED_OUT'
        : 'FAILED';
  const failedEvent = history.find((e) => e.type === 'ExecutionFailed');
  return {
    status,
    error: status === 'FAILED' ? (failedEvent?.Error ?? null) : status === 'TIMED_OUT' ? 'States.Timeout' : null,
    cause: status === 'FAILED' && failedEvent?.Cause != null ? String(failedEvent.Cause) : null,
    steps: stepOutcomes(history, running),
    events: history.map((e) => ({
      type: e.type,
      state: e.state?.name ?? null,
      timestamp: new Date(e.timestamp).toISOString(),
    })),
  };
}

function stepOutcomes(history: ExecutionEvent[], running: boolean): ExecutionSummary['steps'] {
  const prepared = preparedBuild(history);
  if (!prepared?.steps) return [];
  return listedSteps(prepared).map((step) => {
    if (step.iteration === undefined) return { name: step.name, status: 'skipped', exitCode: null, error: null, reason: step.skipped.reason };
    const index = step.iteration;
    const outcome = finishedStep(history, index);
    if (outcome) return { name: step.name, status: outcome.status, exitCode: outcome.exitCode, error: outcome.error };
    // A task of the iteration failed outright (e.g. the cluster stayed unreachable).
    const failed = history.find((e) => e.type === 'MapIterationFailed' && e.index === index);
    if (failed) return { name: step.name, status: 'failed', exitCode: null, error: failed.Error ?? null };
    const started = history.some((e) => e.type === 'MapIterationStarted' && e.index === index);
    return { name: step.name, status: started ? (running ? 'running' : 'aborted') : 'not-run', exitCode: null, error: null };
  });
}

export const isFinishState = (state: string | undefined) => state === 'FinishStep' || state === 'FinishFailedStep';

/**
 * What FinishStep (or FinishFailedStep) returned for a step, log tail included: the history's
 * TaskSucceeded, since the state's own output keeps only what the Map collects.
 */
export function finishedStep(events: readonly ExecutionEvent[], index?: number): StepResult | undefined {
  const finished = events.find((e) => e.type === 'TaskSucceeded' && isFinishState(e.state?.name) && (index === undefined || e.index === index));
  return finished?.state?.output as StepResult | undefined;
}
