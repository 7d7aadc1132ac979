/**
 * The local executor: the real definition in aws-local-stepfunctions, composed of the Task states'
 * Lambda binding (execution/lambda-binding.ts), the Map iteration gate (execution/iteration-gate.ts),
 * the history as the service shows it (execution/execution-history.ts), the EventBridge rule for an
 * execution aborted or timed out (execution/ended-execution-rule.ts) and the `run --json` summary
 * (execution/execution-summary.ts). Tests and benches change it only through `overrides`.
 */
import { randomUUID } from 'node:crypto';
import './polyfills.js';
import './jsonpath-projections.js';
import { StateMachine } from 'aws-local-stepfunctions';
import type { ExecutionInput } from '../../contract/index.js';
import { loadDefinition, resolveResources, taskStates, type AslDefinition } from '../../workflow/definition.js';
import type { StepInput } from '../../workflow/state-data.js';
import type { TaskRuntime } from '../../workflow/task-deps.js';
import type { BuildCostReader, StatusReporter } from '../../workflow/tasks/report-status.js';
import { localExecutionArn, localLambdaArn } from './arns.js';
import { cleanupAfterEnd, endedOutside } from './ended-execution-rule.js';
import { refuseWithoutStepsToRerun, startTimeOf } from './redrive.js';
import { redriveDefinition, redrivenEvents } from './redrive-definition.js';
import { planRedrive } from './redrive-plan.js';
import { ExecutionHistory, type ExecutionEvent } from './execution-history.js';
import { InFlightInvocations } from './in-flight.js';
import { localExecutionCost, summarize, type ExecutionSummary } from './execution-summary.js';
import { IterationGates, type RefusedIteration } from './iteration-gate.js';
import { bindTaskStates } from './lambda-binding.js';
import { applyOverrides, type ExecutionOverrides } from './overrides.js';
import { withServiceTaskTimeouts } from './task-timeouts.js';
import { callbackTaskCall, withLocalCallbacks } from './callback-tasks.js';
import { TaskTokens } from './task-tokens.js';
import { lambdaFunctionNames, localLambdaFunctions } from '../lambda/lambda-functions.js';
import { deployedFunction } from '../lambda/deployed-functions.js';
import { timedInvocation } from './lambda-invocations.js';
import { EXECUTION_ENDS } from './execution-instants.js';
import { printedStatusReporter } from '../lambda/printed-status.js';

export { localExecutionArn, localLambdaArn } from './arns.js';
export type { ExecutionEvent } from './execution-history.js';
export {
  finishedStep,
  NOT_AFTER_A_FAILURE,
  summarize,
  type ExecutionStatus,
  type ExecutionSummary,
  type StepOutcome,
} from './execution-summary.js';
export type { RefusedIteration } from './iteration-gate.js';
export { ExecutionNotRedrivable, RedriveNotEmulated } from './redrive.js';
export type { ExecutionOverrides } from './overrides.js';
export { AWAIT_APPROVAL, AWAIT_APPROVED_NEEDS, isFinishState, isLaunchState } from './states.js';
export { TaskTokens, TaskTokenError } from './task-tokens.js';

export interface LocalExecutionOptions {
  /** The cluster, the log store and the settings the handlers run with (localTaskRuntime). */
  runtime: TaskRuntime;
  /** Where commit statuses go (default: printed on stdout; nothing is posted locally). */
  statuses?: StatusReporter;
  /** The execution's name (default: the build id); `$$.Execution.Id` is its local ARN. */
  executionName?: string;
  /** Called with each history event as it happens (the console output). */
  onEvent?: (event: ExecutionEvent) => void;
  /**
   * Awaited before each Task state's invocation, with the state's name and its input: a pause of
   * the local run's own, as a debugger's breakpoint, outside the invocation (whose function's
   * timeout does not count it) and outside anything Step Functions does. `run --shell-on-failure`
   * opens its shell here, before FinishFailedStep deletes the failed step's pod.
   */
  pauseBefore?: (state: string, input: unknown) => Promise<void>;
  /**
   * The callback pattern's task tokens (task-tokens.ts), shared by the executions of a process as
   * SendTaskSuccess is by an account's: whoever decides an approval answers its token here.
   * Default: the execution's own, which nothing else can answer.
   */
  taskTokens?: TaskTokens;
  /** Tests and benches only (execution/overrides.ts): `run` and `serve` never pass it. */
  overrides?: ExecutionOverrides;
  /**
   * A redrive of the ended execution whose history this is, as RedriveExecution: it goes on from
   * the state it failed in, only the iterations of a Map that did not succeed running again
   * (execution/redrive-plan.ts), as the execution `count` times redriven.
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
   * Aborts the execution, then deletes the build's pods and sends its trace as the EventBridge
   * cleanup rule does on AWS (as after a timeout). `reason`: StopExecution's `error` and `cause`,
   * which the ended execution then shows.
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
/**
 * The definition as the local executor runs it: its Lambda ARNs resolved, the service tasks'
 * timeouts filled in, its callback Tasks as the executor runs them (callback-tasks.ts). Not validated here: asl-validator compiles its JSON schemas on every call
 * (0.2 to 0.5 CPU-s), and the definition is one file, so test/state-machine-definition.test.ts
 * validates exactly this (paths and ARNs, as Step Functions does at CreateStateMachine).
 */
export function localMachineDefinition(definition: AslDefinition): AslDefinition {
  return resolveResources(withServiceTaskTimeouts(withLocalCallbacks(definition)), localLambdaArn);
}

export function startLocalExecution(input: ExecutionInput, options: LocalExecutionOptions): LocalExecution {
  const statuses = options.statuses ?? printedStatusReporter((line) => process.stdout.write(`${line}\n`));
  const overrides = applyOverrides(options.overrides, loadDefinition());
  const { definition } = overrides;
  const history = new ExecutionHistory(options.onEvent, options.redrive?.events);
  const redrive = options.redrive && planRedrive(definition, options.redrive.events, { iterationIndex: (map, shown) => history.iterationIndex(map, shown) });
  const gates = new IterationGates(definition, (event, map) => history.record(event, map));
  const inFlight = new InFlightInvocations();
  // Step Functions names an execution started without a name with a UUID (StartExecution's `name`).
  const name = options.executionName ?? input.build.id ?? randomUUID();
  const tokens = options.taskTokens ?? new TaskTokens();
  // SendTaskSuccess as a function with the permission calls it on AWS (lib/lambda/task-callbacks.ts).
  const answers = { sendTaskSuccess: async (token: string, output: string) => tokens.sendTaskSuccess(token, output) };
  const runtime = { ...options.runtime, deps: { callbacks: answers, ...options.runtime.deps } };
  const invocations = bindTaskStates(definition, localLambdaFunctions(inFlight.runtime(runtime), statuses), overrides.invocations);
  const callbacks = new Set(taskStates(definition).flatMap((task) => (task.waitsForToken ? [task.state] : [])));
  let ended = false;
  const functionOf = new Map(taskStates(definition).map((task) => [task.state, deployedFunction(lambdaFunctionNames[task.functionId]!)]));
  const handlers = Object.fromEntries(
    Object.entries(invocations).map(([state, invoke]) => {
      // Each invocation of the function, timed into the history as Lambda bills it (lambda-invocations.ts).
      const fn = functionOf.get(state)!;
      // An invocation still under way when the execution ends is in no history: the service writes none after its end.
      const timed = (index: number | undefined) => timedInvocation(invoke, { name: fn.name, memoryMb: fn.memorySize }, { state, index }, (event) => {
        if (!ended) gates.admit(event);
      });
      const guarded = (call: (event: unknown, index: number | undefined) => Promise<unknown>) =>
        gates.guard(state, async (event) => {
          await options.pauseBefore?.(state, event);
          const index = (event as Partial<StepInput>).index;
          const output = await inFlight.track(call(event, index));
          history.taskReturned(state, index, output);
          return output;
        });
      if (!callbacks.has(state)) return [state, guarded((event, index) => timed(index)(event))];
      // A callback Task (callback-tasks.ts): guarded by the state's own input, which names its iteration.
      return [
        state,
        async (parameters: unknown) => {
          const { stateInput, run } = callbackTaskCall(parameters);
          return guarded((_event, index) => run(timed(index), tokens, localExecutionArn(name)))(stateInput);
        },
      ];
    }),
  );

  // A redrive enters the very definition where it goes on (and a Map's iterations dispatched).
  const machine = new StateMachine(localMachineDefinition(redrive ? redriveDefinition(definition, redrive) : definition) as never, { validationOptions: { noValidate: true } });
  const startedAt = options.redrive ? startTimeOf(options.redrive.events) : new Date().toISOString();
  const redriven = options.redrive ? { RedriveCount: options.redrive.count, RedriveTime: new Date().toISOString() } : { RedriveCount: 0 };
  const execution = machine.run((redrive ? redrive.input : input) as never, {
    // aws-local-stepfunctions fills $$.Execution only with what it is given.
    context: { Execution: { Id: localExecutionArn(name), Name: name, Input: input as never, StartTime: startedAt, ...redriven } },
    overrides: { taskResourceLocalHandlers: handlers as never, ...overrides.machine },
    noThrowOnAbort: true,
  });

  const shownOf = redrive ? redrivenEvents(redrive) : (event: ExecutionEvent) => event;
  const pump = (async () => {
    for await (const event of execution.eventLogs as AsyncGenerator<ExecutionEvent>) {
      const shown = shownOf(event);
      if (shown && EXECUTION_ENDS.has(shown.type)) ended = true;
      if (shown) gates.admit(shown);
    }
    gates.close();
  })();

  let aborted = false;
  let abortReason: AbortReason | undefined;
  const result = (async () => {
    await execution.result.catch(() => undefined);
    // An aborted execution's waiting tasks are closed with it (their tokens answer TaskTimedOut).
    tokens.closeExecution(localExecutionArn(name));
    await pump;
    // Before the cleanup after an abort: a LaunchStep still under way would create its pod after it.
    await inFlight.end();
    // An execution past the definition's TimeoutSeconds ends as one that was stopped: no state of it runs again.
    const outside = endedOutside(aborted, history.events, startedAt);
    // The cost the cleanup reports, as ReportStatus's reader counts it on AWS: the history, and the pods it stopped.
    const cost: BuildCostReader = async (_arn, _records, unfinished) => localExecutionCost(history.events, unfinished);
    const cleaned = outside ? await cleanupAfterEnd(input, name, options.runtime, statuses, { ...outside, ...(abortReason ? { reason: abortReason } : {}) }, cost) : undefined;
    return summarize(history.events, aborted, { ...(abortReason ? { abortReason } : {}), ...(cleaned?.unfinished ? { unfinished: cleaned.unfinished } : {}) });
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
      tokens.closeExecution(localExecutionArn(name));
    },
  };
}

let definitionRead: AslDefinition | undefined;

/**
 * Throws as the local server refuses "Re-run failed steps" of this ended execution: as
 * RedriveExecution would (execution/redrive-plan.ts), or since it has no steps to re-run
 * (execution/redrive.ts). Before anything of the execution changes.
 */
export function refuseRedrive(events: readonly ExecutionEvent[]): void {
  const history = new ExecutionHistory(undefined, events);
  definitionRead ??= loadDefinition();
  const plan = planRedrive(definitionRead, events, { iterationIndex: (map, shown) => history.iterationIndex(map, shown) });
  refuseWithoutStepsToRerun(plan, events);
}
