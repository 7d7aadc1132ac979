/**
 * The local executor: the real definition in aws-local-stepfunctions, composed of the Task states'
 * Lambda binding (execution/lambda-binding.ts), the Map iteration gate (execution/iteration-gate.ts),
 * the history as the service shows it (execution/execution-history.ts), the EventBridge rule for an
 * aborted execution (execution/ended-execution-rule.ts) and the `run --json` summary
 * (execution/execution-summary.ts). Tests and benches change it only through `overrides`.
 */
import './polyfills.js';
import { StateMachine } from 'aws-local-stepfunctions';
import type { ExecutionInput } from '../contract/index.js';
import { loadDefinition, resolveResources } from '../workflow/definition.js';
import type { StepInput } from '../workflow/state-data.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import type { StatusReporter } from '../workflow/tasks/report-status.js';
import { localExecutionArn, localLambdaArn } from './execution/arns.js';
import { cleanupAfterAbort } from './execution/ended-execution-rule.js';
import { redriveFrom, startTimeOf } from './execution/redrive.js';
import { ExecutionHistory, type ExecutionEvent } from './execution/execution-history.js';
import { InFlightInvocations } from './execution/in-flight.js';
import { summarize, type ExecutionSummary } from './execution/execution-summary.js';
import { IterationGates, type RefusedIteration } from './execution/iteration-gate.js';
import { bindTaskStates } from './execution/lambda-binding.js';
import { applyOverrides, type ExecutionOverrides } from './execution/overrides.js';
import { localLambdaFunctions } from './lambda-functions.js';
import { printedStatusReporter } from './printed-status.js';

export { localExecutionArn, localLambdaArn } from './execution/arns.js';
export type { ExecutionEvent } from './execution/execution-history.js';
export {
  finishedStep,
  NOT_AFTER_A_FAILURE,
  summarize,
  type ExecutionStatus,
  type ExecutionSummary,
  type StepOutcome,
} from './execution/execution-summary.js';
export type { RefusedIteration } from './execution/iteration-gate.js';
export { redriveFrom, ExecutionNotRedrivable } from './execution/redrive.js';
export type { ExecutionOverrides } from './execution/overrides.js';
export { isFinishState, isLaunchState } from './execution/states.js';

export interface LocalExecutionOptions {
  /** The cluster, the log store and the settings the handlers run with (localTaskRuntime). */
  runtime: TaskRuntime;
  /** Where commit statuses go (default: printed on stdout; nothing is posted locally). */
  statuses?: StatusReporter;
  /** The execution's name (default: the build id); `$$.Execution.Id` is its local ARN. */
  executionName?: string;
  /** Called with each history event as it happens (the console output). */
  onEvent?: (event: ExecutionEvent) => void;
  /** Tests and benches only (execution/overrides.ts): `run` and `serve` never pass it. */
  overrides?: ExecutionOverrides;
  /**
   * A redrive ("re-run failed steps") of the ended execution whose history this is: it goes on
   * from the state it failed in (execution/redrive.ts), as the execution `count` times redriven.
   */
  redrive?: { events: readonly ExecutionEvent[]; count: number };
}

/** StopExecution's optional `error` and `cause`. */
export interface AbortReason {
  error: string;
  cause: string;
}

export interface LocalExecution {
  result: Promise<ExecutionSummary>;
  /**
   * Aborts the execution, then deletes the build's pods as the EventBridge cleanup rule does on
   * AWS. `reason`: StopExecution's `error` and `cause`, which the ended execution then shows.
   */
  abort(reason?: AbortReason): void;
  /**
   * The Map iterations this executor kept from starting, which Step Functions itself never starts
   * (execution/iteration-gate.ts). Kept apart from the history, which shows what the service would show.
   */
  readonly refused: readonly RefusedIteration[];
  /**
   * How many Task invocations have not answered yet. None once `result` has settled: the
   * execution's end ends their watches and waits for them (execution/in-flight.ts). Optional for
   * the stand-in executions of tests.
   */
  readonly inFlight?: number;
}

/**
 * Runs one build through the real definition, each Task state bound to the same handler the
 * Lambda function runs, with a stand-in Lambda context and no AWS calls.
 */
export function startLocalExecution(input: ExecutionInput, options: LocalExecutionOptions): LocalExecution {
  const definition = loadDefinition();
  const statuses = options.statuses ?? printedStatusReporter((line) => process.stdout.write(`${line}\n`));
  const overrides = applyOverrides(options.overrides, definition);
  const redrive = options.redrive && redriveFrom(options.redrive.events);
  const history = new ExecutionHistory(options.onEvent, options.redrive?.events);
  const gates = new IterationGates(definition, (event, map) => history.record(event, map));
  const inFlight = new InFlightInvocations();
  const invocations = bindTaskStates(definition, localLambdaFunctions(inFlight.runtime(options.runtime), statuses), overrides.invocations);
  const handlers = Object.fromEntries(
    Object.entries(invocations).map(([state, invoke]) => [
      state,
      gates.guard(state, async (event) => {
        const output = await inFlight.track(invoke(event));
        history.taskReturned(state, (event as Partial<StepInput>).index, output);
        return output;
      }),
    ]),
  );

  const validated = new StateMachine(resolveResources(definition, localLambdaArn) as never, {
    validationOptions: { checkPaths: true, checkArn: true },
  });
  // The very definition, entered where the redrive goes on: only "PrepareBuild is not reachable"
  // would keep the validator from taking it.
  const machine = redrive
    ? new StateMachine(resolveResources({ ...definition, StartAt: redrive.state }, localLambdaArn) as never, { validationOptions: { noValidate: true } })
    : validated;
  const name = options.executionName ?? input.build.id;
  const startedAt = options.redrive ? startTimeOf(options.redrive.events) : new Date().toISOString();
  const redriven = options.redrive ? { RedriveCount: options.redrive.count, RedriveTime: new Date().toISOString() } : { RedriveCount: 0 };
  const execution = machine.run((redrive ? redrive.input : input) as never, {
    // aws-local-stepfunctions fills $$.Execution only with what it is given.
    context: { Execution: { Id: localExecutionArn(name), Name: name, Input: input as never, StartTime: startedAt, ...redriven } },
    overrides: { taskResourceLocalHandlers: handlers as never, ...overrides.machine },
    noThrowOnAbort: true,
  });

  const pump = (async () => {
    for await (const event of execution.eventLogs as AsyncGenerator<ExecutionEvent>) {
      // A redriven execution goes on under its first start: the service records ExecutionRedriven.
      gates.admit(redrive && event.type === 'ExecutionStarted' ? { type: 'ExecutionRedriven', timestamp: event.timestamp } : event);
    }
    gates.close();
  })();

  let aborted = false;
  let abortReason: AbortReason | undefined;
  const result = (async () => {
    await execution.result.catch(() => undefined);
    await pump;
    // Before the cleanup after an abort: a LaunchStep still under way would create its pod after it.
    await inFlight.end();
    if (aborted) await cleanupAfterAbort(input, name, options.runtime, statuses, abortReason);
    return summarize(history.events, aborted, { ...(abortReason ? { abortReason } : {}) });
  })();

  return {
    result,
    refused: gates.refused,
    get inFlight() {
      return inFlight.count;
    },
    abort(reason) {
      if (aborted) return;
      aborted = true;
      abortReason = reason;
      execution.abort();
    },
  };
}
