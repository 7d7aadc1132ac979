import './polyfills.js';
import { StateMachine } from 'aws-local-stepfunctions';
import type { BuildInput } from '../contract/index.js';
import { iterationMaps, loadDefinition, resolveResources, taskStates } from '../workflow/definition.js';
import { cleanupEndedExecutionHandler } from '../workflow/handlers.js';
import { listedSteps, type PreparedBuild, type ServiceResult, type StepInput, type StepResult } from '../workflow/state-data.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import type { StatusReporter } from '../workflow/tasks/report-status.js';
import { inInvocationContext } from './invocation-context.js';
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
  /** MapIteration* events: the Map the iteration belongs to. */
  parentState?: { name: string; type: string };
  Error?: string;
  Cause?: unknown;
  output?: unknown;
};

export type ExecutionStatus = 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

/**
 * A step as `run --json` and `GET /executions/NAME` show it: `running` once its pod is launched,
 * `waiting` while it waits for the steps it needs, `aborted` when it was stopped (the execution
 * aborted or timed out, or another step failed) after its pod was launched, `not-run` when it
 * never was, `skipped` when its `when` did not hold for the build (it had no iteration).
 */
export type StepOutcome = 'succeeded' | 'failed' | 'running' | 'waiting' | 'aborted' | 'not-run' | 'skipped';

/** The `run --json` object (docs/contracts.md). */
export interface ExecutionSummary {
  status: ExecutionStatus;
  error: string | null;
  cause: string | null;
  /** Every step in the pipeline file's order (the checkout first); a skipped one has its `reason`. */
  steps: { name: string; status: StepOutcome; exitCode: number | null; error: string | null; reason?: string; services?: Omit<ServiceResult, 'logTail'>[] }[];
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
  /** Tests only: wait this many ms in the step loops' Wait states instead of the scheduled seconds. */
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

  // Step Functions starts no further Map iteration once one has failed. aws-local-stepfunctions
  // (3.0.0) goes on starting queued iterations after a failure (and runs those it no longer
  // aborts), which would create later steps' pods. So an iteration's first task is refused once an
  // iteration of the Map has failed; while one may be failing (its task threw, and a retry may
  // still follow), it waits to know. The refusal is recorded in `refused`, and the refused
  // iteration's events are left out of the history the service would show.
  const mapOf = iterationMaps(definition);
  const gates = new Map([...new Set(mapOf.values())].map((map) => [map, iterationGate()]));
  const gateOf = (map: string | undefined) => gates.get(map ?? '') ?? gates.get(STEPS_MAP)!;
  const refused: RefusedIteration[] = [];
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
      const gate = gateOf(mapOf.get(state));
      if (index !== undefined && !(await gate.mayRun(index))) {
        refused.push({ index, state });
        throw new StepNotLaunched(`step ${index} was not launched: another step failed`);
      }
      let output: unknown;
      try {
        const context = localLambdaContext(fn.name, fn.timeoutSeconds * 1000);
        output = await inInvocationContext(context.awsRequestId, () => fn.handler(event as never, context));
        taskOutputs.set(taskKey(state, index), output);
        const failure = options.invocationFailure?.(state);
        if (failure) throw new LambdaInvocationFailure(failure);
      } catch (error) {
        if (index !== undefined) gate.threw(index);
        throw error instanceof LambdaInvocationFailure ? error : new LambdaFunctionError(error);
      }
      // The iteration goes on to StepFailed: the Map fails.
      if (index !== undefined && state === FAILING_FINISH) gate.failed();
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
      ...(options.waitMs !== undefined ? { waitTimeOverrides: { WaitForStep: options.waitMs, WaitAfterFailure: options.waitMs, WaitBeforeNeeds: options.waitMs } } : {}),
      ...(options.retryMs !== undefined ? { retryIntervalOverrides: retriedStates } : {}),
    },
    noThrowOnAbort: true,
  });

  const history: ExecutionEvent[] = [];
  const record = (event: ExecutionEvent) => {
    history.push(event);
    options.onEvent?.(event);
  };
  // An iteration's events before its first task are held until the gate has let it run (or not).
  const held = new Map<string, ExecutionEvent[]>();
  const heldKey = (map: string, index: number) => `${map}#${index}`;
  // RunAfterFailure's iterations are numbered after RunSteps' in the history, as listedSteps() lists them.
  let afterFailureFrom = 0;
  const numbered = (event: ExecutionEvent, map: string | undefined): ExecutionEvent =>
    map === AFTER_FAILURE_MAP && event.index !== undefined ? { ...event, index: afterFailureFrom + event.index } : event;
  const keep = (event: ExecutionEvent, map: string | undefined) => {
    const shown = numbered(event, map);
    const key = taskKey(event.state?.name ?? '', event.index);
    if (event.type === 'StateExited' && event.state?.type === 'Task' && taskOutputs.has(key)) {
      record({ type: 'TaskSucceeded', timestamp: event.timestamp, state: { name: event.state.name, type: 'Task', output: taskOutputs.get(key) }, index: shown.index });
      taskOutputs.delete(key);
    }
    record(shown);
  };
  for (const [map, gate] of gates) {
    gate.onDecision((index, run) => {
      const events = held.get(heldKey(map, index)) ?? [];
      held.delete(heldKey(map, index));
      if (run) events.forEach((event) => keep(event, map));
    });
  }
  const pump = (async () => {
    for await (const event of execution.eventLogs as AsyncGenerator<ExecutionEvent>) {
      const index = event.index;
      if (event.type === 'StateExited' && event.state?.name === 'PrepareBuild') afterFailureFrom = (event.state.output as Partial<PreparedBuild>)?.steps?.length ?? 0;
      const map = event.parentState?.name ?? mapOf.get(event.state?.name ?? '');
      if (index === undefined || map === undefined) {
        keep(event, map);
        continue;
      }
      const gate = gateOf(map);
      if (event.type === 'MapIterationFailed') gate.iterationFailed(index);
      const decision = gate.decision(index);
      if (decision === 'refused') continue;
      if (decision === undefined) held.set(heldKey(map, index), [...(held.get(heldKey(map, index)) ?? []), event]);
      else keep(event, map);
    }
    // Iterations stopped before their first task, which the service would not have started.
    for (const gate of gates.values()) gate.close();
    held.clear();
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

type GateDecision = 'run' | 'refused';

/**
 * Which Map iterations may start (see startLocalExecution): all, until one has failed. An
 * iteration whose task threw is suspect until it runs another task (a retry) or the Map reports
 * it failed; an iteration that would start meanwhile waits for that.
 */
function iterationGate() {
  const decisions = new Map<number, GateDecision>();
  const suspects = new Set<number>();
  let mapFailed = false;
  let closed = false;
  let wake: () => void = () => {};
  let changed = new Promise<void>((resolve) => (wake = resolve));
  const notify = () => {
    wake();
    changed = new Promise<void>((resolve) => (wake = resolve));
  };
  let onDecision: (index: number, run: boolean) => void = () => {};
  const decide = (index: number, decision: GateDecision) => {
    decisions.set(index, decision);
    onDecision(index, decision === 'run');
    return decision === 'run';
  };
  return {
    async mayRun(index: number): Promise<boolean> {
      suspects.delete(index);
      const known = decisions.get(index);
      if (known !== undefined) return known === 'run';
      while (!mapFailed && !closed && suspects.size > 0) await changed;
      return decide(index, mapFailed || closed ? 'refused' : 'run');
    },
    decision: (index: number) => decisions.get(index),
    threw(index: number) {
      suspects.add(index);
      notify();
    },
    iterationFailed(index: number) {
      if (decisions.get(index) !== 'run') return;
      mapFailed = true;
      notify();
    },
    failed() {
      mapFailed = true;
      notify();
    },
    close() {
      closed = true;
      notify();
    },
    onDecision(listener: (index: number, run: boolean) => void) {
      onDecision = listener;
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
    steps: stepOutcomes(history, running, status),
    events: history.map((e) => ({
      type: e.type,
      state: e.state?.name ?? null,
      timestamp: new Date(e.timestamp).toISOString(),
    })),
  };
}

/** Why a step that runs only after a failure did not run in a build that succeeded. */
export const NOT_AFTER_A_FAILURE = 'it runs only after a failure, and the build did not fail';

function stepOutcomes(history: ExecutionEvent[], running: boolean, build: ExecutionStatus): ExecutionSummary['steps'] {
  const prepared = preparedBuild(history);
  if (!prepared?.steps) return [];
  return listedSteps(prepared).map((step) => {
    if (step.iteration === undefined) return { name: step.name, status: 'skipped', exitCode: null, error: null, reason: step.skipped.reason };
    const index = step.iteration;
    if (step.afterFailure && !running && build === 'SUCCEEDED') return { name: step.name, status: 'skipped', exitCode: null, error: null, reason: NOT_AFTER_A_FAILURE };
    const outcome = finishedStep(history, index);
    if (outcome) {
      // The services' log tails are for the page; the summary says where each whole log is.
      const services = outcome.services?.map(({ logTail: _tail, ...service }) => service);
      return { name: step.name, status: outcome.status, exitCode: outcome.exitCode, error: outcome.error, ...(services ? { services } : {}) };
    }
    // A task of the iteration failed outright (e.g. the cluster stayed unreachable).
    const failed = history.find((e) => e.type === 'MapIterationFailed' && e.index === index);
    if (failed) return { name: step.name, status: 'failed', exitCode: null, error: failed.Error ?? null };
    const launched = history.some((e) => e.index === index && isLaunchState(e.state?.name));
    const waiting = history.some((e) => e.type === 'MapIterationStarted' && e.index === index);
    const status = launched ? (running ? 'running' : 'aborted') : waiting && running ? 'waiting' : 'not-run';
    return { name: step.name, status, exitCode: null, error: null };
  });
}

/** The Maps whose iterations are steps: the build's, and the one that runs after a failure. */
const STEPS_MAP = 'RunSteps';
const AFTER_FAILURE_MAP = 'RunAfterFailure';
/** The task whose iteration goes on to StepFailed, failing RunSteps. */
const FAILING_FINISH = 'FinishFailedStep';

export const isFinishState = (state: string | undefined) => state === 'FinishStep' || state === FAILING_FINISH || state === 'FinishAfterFailure';
export const isLaunchState = (state: string | undefined) => state === 'LaunchStep' || state === 'LaunchAfterFailure';

/**
 * What FinishStep (or FinishFailedStep) returned for a step, log tail included: the history's
 * TaskSucceeded, since the state's own output keeps only what the Map collects.
 */
export function finishedStep(events: readonly ExecutionEvent[], index?: number): StepResult | undefined {
  const finished = events.find((e) => e.type === 'TaskSucceeded' && isFinishState(e.state?.name) && (index === undefined || e.index === index));
  return finished?.state?.output as StepResult | undefined;
}
