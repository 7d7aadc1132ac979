import { plainCause } from '../../contract/lambda-error.js';
import { listedSteps, type KeptArtifact, type NeedsState, type PreparedBuild, type ServiceResult, type StepResult } from '../../workflow/state-data.js';
import type { ExecutionEvent } from './execution-history.js';
import { AWAIT_APPROVED_NEEDS, isFinishState, isLaunchState } from './states.js';
import { approvalOutcome } from './approval-summary.js';
import type { ApprovalRecord } from '../../workflow/approval-decision.js';
import type { TestSummary } from '../../contract/test-summary.js';
import type { BuildCost, PodUsage } from '../../workflow/cost-model.js';
import { deployedArchitecture } from '../lambda/deployed-functions.js';
import { executionCost } from './execution-cost.js';

let architecture: ReturnType<typeof deployedArchitecture> | undefined;
/** serverless.yml's, read once: what the deployed functions' GB-seconds are billed at. */
const lambdaArchitecture = () => (architecture ??= deployedArchitecture());

export type ExecutionStatus = 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

/**
 * A step as `run --json` and `GET /executions/NAME` show it: `running` once its pod is launched,
 * `waiting` while it waits for the steps it needs, `aborted` when it was stopped (the execution
 * aborted or timed out, or another step failed) after its pod was launched, `not-run` when it
 * never was (with a `reason` when its needs could never be met), `skipped` when its `when` did not hold for the build (it had no iteration).
 */
export type StepOutcome = 'succeeded' | 'failed' | 'running' | 'waiting' | 'aborted' | 'not-run' | 'skipped';

/** When a step ran, in what, and where its whole log is: nulls where it did not (stepTimes). */
export interface StepRun {
  startedAt: string | null;
  stoppedAt: string | null;
  durationMs: number | null;
  image: string | null;
  log: string | null;
}

export type StepSummary = {
  name: string;
  status: StepOutcome;
  exitCode: number | null;
  error: string | null;
  reason?: string;
  services?: Omit<ServiceResult, 'logTail'>[];
  /** What it kept of its `artifacts:` (FinishStep's StepResult.artifacts); absent: it has none, or it did not finish. */
  artifacts?: KeptArtifact[];
  /** How many pods it was given when it was tried again (its `retry`): 2 or more; absent: one attempt. */
  attempts?: number;
  /** The identity whose service account its pod ran as (`identity:`); absent: none. */
  identity?: string;
  /** An approval step's decision, once made (approval-summary.ts); absent: none yet, or not an approval step. */
  approval?: ApprovalRecord;
  /** A build step's push: the digest the registry gave and the tags pushed; absent: not a build step, or nothing pushed. */
  pushed?: { digest: string; tags: string[] };
  /** What its `reports:` said (FinishStep's StepResult.tests); absent: it has none, or it did not finish. */
  tests?: TestSummary;
} & StepRun;

/** The `run --json` object (docs/contracts.md). */
export interface ExecutionSummary {
  status: ExecutionStatus;
  error: string | null;
  cause: string | null;
  /** Every step in the pipeline file's order (the checkout first); a skipped one has its `reason`. */
  steps: StepSummary[];
  events: { type: string; state: string | null; timestamp: string }[];
  /** What the build cost so far, in dollars by part (execution-cost.ts, docs/cost.md); absent: nothing ran. */
  cost?: BuildCost;
}

function preparedBuild(history: readonly ExecutionEvent[]): PreparedBuild | undefined {
  const exited = history.find((e) => e.type === 'StateExited' && e.state?.name === 'PrepareBuild');
  return exited?.state?.output as PreparedBuild | undefined;
}

/** What the execution cost as deployed (its functions' architecture), with the pods of the steps it stopped (execution-cost.ts). */
export const localExecutionCost = (history: readonly ExecutionEvent[], unfinished: readonly PodUsage[] = []): BuildCost =>
  executionCost(history, lambdaArchitecture(), undefined, unfinished);

/**
 * `running`: the execution has not ended (a step under way is `running`, not `aborted`).
 * `abortReason`: the `error` and `cause` an ABORTED execution was stopped with (StopExecution's).
 * `unfinished`: the pods of the steps still running when it was stopped or timed out, for its cost.
 */
export function summarize(
  history: readonly ExecutionEvent[],
  aborted: boolean,
  { running = false, abortReason, unfinished = [] }: { running?: boolean; abortReason?: { error: string; cause: string }; unfinished?: readonly PodUsage[] } = {},
): ExecutionSummary {
  const last = history.at(-1);
  const status: ExecutionStatus = aborted
    ? 'ABORTED'
    : last?.type === 'ExecutionSucceeded'
      ? 'SUCCEEDED'
      : last?.type === 'ExecutionTimeout'
        ? 'TIMED_OUT'
        : 'FAILED';
  // The last: a redriven execution that failed again failed in its redrive.
  const failedEvent = history.findLast((e) => e.type === 'ExecutionFailed');
  return {
    status,
    error: status === 'FAILED' ? (failedEvent?.Error ?? null) : status === 'TIMED_OUT' ? 'States.Timeout' : status === 'ABORTED' ? (abortReason?.error ?? null) : null,
    // A build that fails in AwaitRerun (a Lambda task) ends with its Cause inside Lambda's error JSON.
    cause: status === 'FAILED' && failedEvent?.Cause != null ? plainCause(String(failedEvent.Cause)) : status === 'ABORTED' ? (abortReason?.cause ?? null) : null,
    steps: stepOutcomes(history, running, status),
    cost: localExecutionCost(history, unfinished),
    events: history.map((e) => ({
      type: e.type,
      state: e.state?.name ?? null,
      timestamp: new Date(e.timestamp).toISOString(),
    })),
  };
}

/** Why a step that runs only after a failure did not run in a build that succeeded. */
export const NOT_AFTER_A_FAILURE = 'it runs only after a failure, and the build did not fail';

const NOT_RAN: StepRun = { startedAt: null, stoppedAt: null, durationMs: null, image: null, log: null };

/**
 * A step runs from its pod's creation (its LaunchStep entered: the image pull and the wait for a
 * node count, as a CI job's time counts from when it is picked up, not the WaitForNeeds before
 * it) until its result is known: its FinishStep done (log kept), or the iteration's failure or
 * abort. Still running: no stop yet.
 */
function stepRun(history: readonly ExecutionEvent[], index: number, image: string | null, log: string | null, running: boolean): StepRun {
  const launched = history.find((e) => e.index === index && e.type === 'StateEntered' && isLaunchState(e.state?.name));
  if (!launched) return { ...NOT_RAN, image };
  const finished = finishEvent(history, index);
  const ended = history.find((e) => e.index === index && (e.type === 'MapIterationFailed' || e.type === 'MapIterationAborted'));
  // Stopped from outside (abort, timeout, a failure beside it): the execution's end is the step's.
  const stop = finished ?? ended ?? (running ? undefined : history.at(-1));
  return {
    startedAt: new Date(launched.timestamp).toISOString(),
    stoppedAt: stop ? new Date(stop.timestamp).toISOString() : null,
    durationMs: stop ? Math.max(0, stop.timestamp - launched.timestamp) : null,
    image,
    log,
  };
}

function stepOutcomes(history: readonly ExecutionEvent[], running: boolean, build: ExecutionStatus): ExecutionSummary['steps'] {
  const prepared = preparedBuild(history);
  if (!prepared?.steps) return [];
  // Iteration i is steps[i], then the after-failure steps (listedSteps).
  const steps = [...prepared.steps, ...(prepared.afterFailure ?? [])];
  return listedSteps(prepared).map((step) => {
    const summary = stepOutcome(step);
    const identity = step.iteration !== undefined ? steps[step.iteration]?.identity : undefined;
    return identity !== undefined ? { ...summary, identity } : summary;
  });

  function stepOutcome(step: ReturnType<typeof listedSteps>[number]): StepSummary {
    if (step.iteration === undefined) return { name: step.name, status: 'skipped', exitCode: null, error: null, reason: step.skipped.reason, ...NOT_RAN };
    const index = step.iteration;
    const image = steps[index]?.image ?? null;
    if (step.afterFailure && !running && build === 'SUCCEEDED') {
      return { name: step.name, status: 'skipped', exitCode: null, error: null, reason: NOT_AFTER_A_FAILURE, ...NOT_RAN, image };
    }
    // A step re-run by a redrive is what its last run made of it.
    const own = lastRun(history, index);
    const approval = steps[index]?.approval;
    if (approval) {
      const { status, error, ...rest } = approvalOutcome(own, index, approval.message, running);
      return { name: step.name, status, exitCode: null, error, ...rest, image: null, log: null };
    }
    const outcome = finishedStep(own, index);
    const attempts = attemptsOf(own, index);
    const run = { ...stepRun(own, index, image, outcome?.log ?? null, running), ...(attempts > 1 ? { attempts } : {}) };
    if (outcome) {
      // The services' log tails are for the page; the summary says where each whole log is.
      const services = outcome.services?.map(({ logTail: _tail, ...service }) => service);
      return {
        name: step.name,
        status: outcome.status,
        exitCode: outcome.exitCode,
        error: outcome.error,
        ...run,
        ...(services ? { services } : {}),
        ...(outcome.artifacts ? { artifacts: outcome.artifacts } : {}),
        ...(outcome.pushed ? { pushed: outcome.pushed } : {}),
        ...(outcome.tests ? { tests: outcome.tests } : {}),
      };
    }
    // A task of the iteration failed outright (e.g. the cluster stayed unreachable).
    const failed = own.find((e) => e.type === 'MapIterationFailed' && e.index === index);
    if (failed) return { name: step.name, status: 'failed', exitCode: null, error: failed.Error ?? null, ...run };
    const launched = own.some((e) => e.index === index && isLaunchState(e.state?.name));
    // Stopped between its pod's success and its iteration's end (a step beside it failed
    // meanwhile): it did succeed, as its own poll (or, once its FinishStep was done, the steps that
    // needed it) had already seen.
    if (launched && !running && succeededBeforeTheStop(own, index, step.name)) return { name: step.name, status: 'succeeded', exitCode: 0, error: null, ...run };
    // An iteration that ended unlaunched (NeedsNeverMet: its needs can no longer succeed) waits no more.
    const waiting = own.some((e) => e.type === 'MapIterationStarted' && e.index === index) && !own.some((e) => e.type === 'MapIterationSucceeded' && e.index === index);
    const status = launched ? (running ? 'running' : 'aborted') : waiting && running ? 'waiting' : 'not-run';
    const unmet = status === 'not-run' ? unmetNeeds(own, index) : undefined;
    const awaits = status === 'waiting' ? awaitedApprovals(own, index, steps[index]?.awaits) : undefined;
    const reason = unmet ?? awaits;
    return { name: step.name, status, exitCode: null, error: null, ...(reason ? { reason } : {}), ...run };
  }
}

/**
 * The part of the history that holds the step's last run: from the redrive (ExecutionRedriven)
 * before its last iteration's start, or all of it. Its earlier runs' events stay in the history.
 */
function lastRun(history: readonly ExecutionEvent[], index: number): readonly ExecutionEvent[] {
  const started = history.findLastIndex((e) => e.type === 'MapIterationStarted' && e.index === index);
  if (started < 0) return history;
  const from = history.slice(0, started).findLastIndex((e) => e.type === 'ExecutionRedriven');
  return from < 0 ? history : history.slice(from);
}

/** While a step waits in AwaitApprovedNeeds (its other needs met): for which approvals. */
function awaitedApprovals(history: readonly ExecutionEvent[], index: number, awaits: readonly string[] | undefined): string | undefined {
  const last = history.findLast((e) => e.index === index && e.type === 'StateEntered');
  if (!awaits?.length || last?.state?.name !== AWAIT_APPROVED_NEEDS) return undefined;
  return `waiting for ${awaits.map((name) => `"${name}"`).join(', ')} to be approved`;
}

/** Why a step never launched, when its WaitForNeeds found its needs could never be met (NeedsState.unmet). */
function unmetNeeds(history: readonly ExecutionEvent[], index: number): string | undefined {
  const checks = history.filter((e) => e.type === 'TaskSucceeded' && e.index === index && e.state?.name === 'WaitForNeeds');
  return (checks.at(-1)?.state?.output as Partial<NeedsState> | undefined)?.unmet?.reason;
}

/** Whether the step's own poll said it succeeded, or another step's WaitForNeeds counted it done. */
function succeededBeforeTheStop(history: readonly ExecutionEvent[], index: number, name: string): boolean {
  const output = (e: ExecutionEvent) => e.state?.output as { phase?: string; done?: string[] } | undefined;
  return history.some(
    (e) =>
      e.type === 'TaskSucceeded' &&
      ((e.index === index && e.state?.name === 'PollStep' && output(e)?.phase === 'succeeded') || (e.state?.name === 'WaitForNeeds' && (output(e)?.done ?? []).includes(name))),
  );
}

/**
 * What FinishStep (or FinishFailedStep) returned for a step, log tail included: the history's
 * TaskSucceeded, since the state's own output keeps only what the Map collects.
 */
export function finishedStep(events: readonly ExecutionEvent[], index?: number): StepResult | undefined {
  return finishEvent(events, index)?.state?.output as StepResult | undefined;
}

/**
 * The step's last FinishStep, unless that attempt is tried again (`nextAttempt`): then the retry's
 * attempt decides, and until it ends the step has no result.
 */
function finishEvent(events: readonly ExecutionEvent[], index?: number): ExecutionEvent | undefined {
  const last = events.findLast((e) => e.type === 'TaskSucceeded' && isFinishState(e.state?.name) && (index === undefined || e.index === index));
  return (last?.state?.output as Partial<StepResult> | undefined)?.nextAttempt === undefined ? last : undefined;
}

/** How many pods the step was given (its LaunchStep entered once per attempt). */
function attemptsOf(history: readonly ExecutionEvent[], index: number): number {
  return history.filter((e) => e.index === index && e.type === 'StateEntered' && isLaunchState(e.state?.name)).length;
}
