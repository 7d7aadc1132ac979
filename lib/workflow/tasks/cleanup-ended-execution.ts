import { buildIdFor } from '../../forge/execution-name.js';
import { EXECUTION_TIME_LIMIT_SECONDS, formatDuration } from '../../pipeline/index.js';
import { ErrorNames, Outcomes, type BuildRef, type CaughtFailure, type CostSummary, type StatusReport } from '../../contract/index.js';
import { plainCause } from '../../contract/lambda-error.js';
import type { CleanupResult } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';
import { cleanupBuild } from './cleanup-build.js';
import { readBuildCost, reportStatus, type BuildCostReader, type StatusReporter } from './report-status.js';
import type { PodUsage } from '../cost-model.js';
import { writeBuildMetrics } from '../metrics-writer.js';
import { runningSteps } from '../running-steps.js';
import type { StepRecord } from '../step-log-store.js';

/**
 * The part of a "Step Functions Execution Status Change" event that the cleanup reads. EventBridge
 * carries the execution's input as a JSON string; it leaves it out (null, inputDetails.included
 * false) when it is larger than an event may be.
 */
export interface ExecutionStatusChange {
  'detail-type'?: string;
  detail: {
    executionArn?: string;
    name?: string;
    status?: string;
    input?: string | null;
    /** A FAILED execution's Error and Cause, as the console shows them; an ABORTED one's, as StopExecution gave them. */
    error?: string | null;
    cause?: string | null;
    /**
     * When the execution started and stopped, in milliseconds since the epoch (the event's
     * `startDate` and `stopDate`: "Step Functions Execution Status Change" in the Step Functions
     * guide's EventBridge events).
     */
    startDate?: number | null;
    stopDate?: number | null;
  };
}

export type EndedBuild = { build: BuildRef; namespace?: string };

/**
 * The errors no Catch of the definition takes: `States.ALL` does not match them ("Error names" in
 * the Step Functions guide, Handling errors), so an execution they fail ends where they happen,
 * without CleanupBuild or ReportFailed. Every other error, `States.*` ones included
 * (States.Timeout of a Task, States.TaskFailed, States.NoChoiceMatched...), reaches a Catch: the
 * execution then ends in BuildFailed with that Error, already cleaned up and reported.
 */
export const UNCATCHABLE_ERRORS: readonly string[] = ['States.Runtime', 'States.DataLimitExceeded'];

/**
 * Why the build ended outside the definition, for its commit status; undefined for an execution
 * whose own states already cleaned up and reported (a failure the definition's Catch took), whose
 * commit status must stay the one ReportFailed posted.
 */
export function stoppedBecause(event: ExecutionStatusChange): CaughtFailure | undefined {
  const { status, error, cause } = event.detail;
  // StopExecution's own error and cause: a newer build of its concurrency group stopped it (superseding.ts).
  if (status === 'ABORTED' && error === ErrorNames.Superseded) return { Error: error, Cause: cause ?? 'Superseded by a newer build' };
  if (status === 'ABORTED') return { Error: 'ExecutionAborted', Cause: 'The execution was stopped before the build ended; its pods were deleted' };
  if (status === 'TIMED_OUT') return { Error: 'ExecutionTimedOut', Cause: timedOutCause(event.detail) };
  // The service's own Cause is text; plainCause all the same, should a task's error JSON ever end up here.
  if (status === 'FAILED' && error && UNCATCHABLE_ERRORS.includes(error)) return { Error: error, ...(cause ? { Cause: plainCause(cause) } : {}) };
  return undefined;
}

/**
 * How long the execution ran, when the event says, as the limit it met: the definition's
 * TimeoutSeconds (EXECUTION_TIME_LIMIT_SECONDS), which a build that keeps to its steps' and
 * approvals' timeouts never reaches, so a person has to look at what was running.
 */
function timedOutCause({ startDate, stopDate }: ExecutionStatusChange['detail']): string {
  const ran = typeof startDate === 'number' && typeof stopDate === 'number' ? Math.round((stopDate - startDate) / 1000) : EXECUTION_TIME_LIMIT_SECONDS;
  return `The execution ran ${formatDuration(ran)}, past the state machine's time limit, and Step Functions ended it; its pods were deleted. Its steps' and approvals' own timeouts should have ended it first: look at the step still running then`;
}

/**
 * Which build an ended execution ran, and where. No Catch runs when an execution
 * is aborted or times out, so its pods are only found through this. Without a readable input the
 * build id still follows from the execution's name, exactly as the webhook derived it.
 */
export function endedBuildOf(event: ExecutionStatusChange): EndedBuild | undefined {
  const parsed = parseInput(event.detail.input);
  const id = parsed?.build?.id;
  if (typeof id === 'string' && id !== '') {
    const namespace = typeof parsed?.namespace === 'string' && parsed.namespace !== '' ? parsed.namespace : undefined;
    return { build: { id }, ...(namespace ? { namespace } : {}) };
  }
  return event.detail.name ? { build: { id: buildIdFor(event.detail.name) } } : undefined;
}

/** The whole build the input names (repository, commit, installation...), which its commit status needs. */
function buildRefOf(event: ExecutionStatusChange, id: string): BuildRef {
  const build = parseInput(event.detail.input)?.build;
  return typeof build === 'object' && build !== null && build.id === id ? (build as BuildRef) : { id };
}

function parseInput(input: string | null | undefined): { build?: { id?: unknown }; namespace?: unknown } | undefined {
  if (!input) return undefined;
  try {
    const value: unknown = JSON.parse(input);
    return typeof value === 'object' && value !== null ? (value as { build?: { id?: unknown } }) : undefined;
  } catch {
    return undefined;
  }
}

/** What the cleanup did, and the pods of the steps still running that it priced and deleted. */
export type EndedExecutionCleanup = CleanupResult & { build: string | null; status?: StatusReport; unfinished?: PodUsage[] };

/**
 * Deletes the pods (and claim and credentials) of the ended execution's build, the same cleanup as
 * the CleanupBuild state, and gives its commit an `error` status saying why, since no ReportFailed
 * ran. An execution the definition ended itself needs neither. With `cost` (ReportStatus's reader
 * on AWS), the build's cost goes with the status and the metrics, as ReportStatus sends it for a
 * build that ended through the definition.
 */
export async function cleanupEndedExecution(
  event: ExecutionStatusChange,
  defaultNamespace: string,
  deps: TaskDeps,
  statuses?: StatusReporter,
  cost?: BuildCostReader,
): Promise<EndedExecutionCleanup> {
  const failure = stoppedBecause(event);
  if (!failure) {
    deps.log.info(`Execution ${event.detail.status ?? 'ended'} through the definition, which cleaned up and reported itself`, { executionArn: event.detail.executionArn });
    return { build: null, deletedPods: 0, deletedClaims: 0, deletedSecrets: 0 };
  }
  const ended = endedBuildOf(event);
  if (!ended) {
    deps.log.warn('An ended execution with neither a readable input nor a name: nothing to clean up', {
      executionArn: event.detail.executionArn,
    });
    return { build: null, deletedPods: 0, deletedClaims: 0, deletedSecrets: 0 };
  }
  const build = buildRefOf(event, ended.build.id);
  const { executionArn } = event.detail;
  const endedAt = instant(event.detail.stopDate) ?? deps.now().toISOString();
  // How the steps ended, as FinishStep kept them, if the store can tell: for the metrics, the trace and the cost.
  const steps = deps.metrics || deps.exportTrace || cost ? await deps.logs.results(build.id).catch((): StepRecord[] => []) : [];
  // Before the cleanup deletes them: the pods of the steps still running are all that says they ran, and what they held.
  const running = await runningSteps(ended.namespace ?? defaultNamespace, build.id, steps, new Date(endedAt), deps);
  const unfinished = running.flatMap((step) => (step.pod ? [step.pod] : []));
  const result = await cleanupBuild(ended, defaultNamespace, deps);
  const priced = cost && executionArn ? await readBuildCost(executionArn, cost, async () => steps, unfinished, deps.log) : undefined;
  if (deps.metrics) writeEndedBuildMetrics(event, build, failure, steps, deps, priced);
  const status = statuses
    ? await reportStatus({ build, outcome: Outcomes.stopped, failure, ...(executionArn ? { executionArn } : {}), ...(priced ? { cost: priced } : {}) }, { reporter: statuses, log: deps.log })
    : undefined;
  // After the status, which people wait for, as ReportStatus sends a trace; the export logs its own failure and never throws.
  const startedAt = instant(event.detail.startDate);
  await deps.exportTrace?.({
    build,
    outcome: Outcomes.failed,
    failure,
    ...(startedAt ? { startedAt } : {}),
    endedAt,
    ...(executionArn ? { executionArn } : {}),
    steps,
    running,
  });
  return { build: ended.build.id, ...result, ...(status ? { status } : {}), ...(unfinished.length > 0 ? { unfinished } : {}) };
}

function instant(ms: number | null | undefined): string | undefined {
  return typeof ms === 'number' ? new Date(ms).toISOString() : undefined;
}

/**
 * The build's metrics, which no ReportFailed wrote. Not a superseded build's: a newer commit
 * replaced it, which no failure rate should count.
 */
function writeEndedBuildMetrics(event: ExecutionStatusChange, build: BuildRef, failure: CaughtFailure, steps: StepRecord[], deps: TaskDeps, cost: CostSummary | undefined): void {
  if (failure.Error === ErrorNames.Superseded) return;
  const started = instant(event.detail.startDate);
  writeBuildMetrics({ build, failure, ...(started ? { startedAt: started } : {}), ...(cost ? { cost: { usd: cost.usd } } : {}) }, steps, deps);
}
