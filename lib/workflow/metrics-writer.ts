/**
 * Where a build's and its steps' metric records go (metric-records.ts), and the reads their
 * timings need at the moments they are written. A metric is an account of the build, never part
 * of it: nothing here throws, and a record that cannot be made or written is a warning in the log.
 */
import type { CaughtFailure, BuildRef } from '../contract/index.js';
import { mergePodTimings, podTimings, type PodTimings } from '../kube/pod-timings.js';
import { podDollars } from './cost-model.js';
import { buildMetricRecord, stepMetricRecord, type MetricRecord, type MetricsSink } from './metric-records.js';
import type { PollState, StepInput, StepResult } from './state-data.js';
import type { StepRecord } from './step-log-store.js';
import type { TaskDeps } from './task-deps.js';
import type { TaskLog } from './task-log.js';

/**
 * The step's timings as the polls left them ($.poll.timings), completed by FinishStep's last look
 * at the pod and its events: a poll that saw the pod already succeeded reads no events
 * (observe.ts), and a short step may go from its quiet pending to its end within one watch. Kept
 * with the step's record, they are its metrics' and its trace's alike. Pure.
 */
export function finalStepTimings(poll: PollState, seen: Parameters<typeof podTimings> | undefined): PodTimings | undefined {
  return seen ? mergePodTimings(poll.timings, podTimings(...seen)) : poll.timings;
}

/**
 * The step's record, at the end of FinishStep. Its StepCost is its pod (`result.pod`) priced as
 * the build's cost prices each pod, at the deployment's prices (`deps.prices`): none without them.
 */
export function writeStepMetrics(input: StepInput, poll: PollState, result: StepResult, timings: PodTimings | undefined, deps: Pick<TaskDeps, 'metrics' | 'prices' | 'log' | 'now'>): void {
  if (!deps.metrics) return;
  const { prices } = deps;
  write(deps.metrics, deps.log, () =>
    stepMetricRecord({
      build: input.build,
      step: result.step,
      status: result.status,
      error: result.error,
      ...(input.attempt ? { attempt: input.attempt } : {}),
      launchedAt: poll.launchedAt,
      ...(timings ? { timings } : {}),
      endedAt: deps.now(),
      ...(result.pod && prices ? { cost: { usd: podDollars(result.pod, prices) } } : {}),
    }),
  );
}

/** What the function at a build's end knows of it. */
export interface EndedBuild {
  build: BuildRef;
  /** The build's failure as Step Functions caught it; absent: it succeeded. */
  failure?: CaughtFailure;
  /** The execution's start (ISO 8601). */
  startedAt?: string;
  /** The build's cost, when the build's result carries one (`cost.usd`). */
  cost?: { usd: number };
}

/** The build's record, once it has ended: `steps` as FinishStep kept them (StepLogStore.results). */
export function writeBuildMetrics(ended: EndedBuild, steps: readonly StepRecord[], deps: { metrics?: MetricsSink; log: TaskLog; now?: () => Date }): void {
  if (!deps.metrics) return;
  write(deps.metrics, deps.log, () =>
    buildMetricRecord({
      build: ended.build,
      status: ended.failure ? 'failed' : 'succeeded',
      ...(ended.failure ? { error: ended.failure.Error ?? 'Unknown' } : {}),
      ...(ended.startedAt ? { startedAt: ended.startedAt } : {}),
      endedAt: deps.now?.() ?? new Date(),
      steps,
      ...(ended.cost && Number.isFinite(ended.cost.usd) ? { cost: ended.cost } : {}),
    }),
  );
}

function write(sink: MetricsSink, log: TaskLog, record: () => MetricRecord): void {
  try {
    sink.write(record());
  } catch (error) {
    log.warn('Metrics not written; the build goes on', { reason: (error as Error).message });
  }
}
