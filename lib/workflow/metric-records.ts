/**
 * What a build and each of its steps tell CloudWatch when they end: one record each, written by
 * the functions that run at those moments (FinishStep for a step, ReportStatus for a build the
 * definition ended, the ended-execution cleanup for one it did not). Pure: the record is data, and
 * lib/lambda/emf-metrics.ts writes it as an Embedded Metric Format line with Powertools Metrics.
 *
 * Dimensions are few on purpose: every distinct combination of a metric's dimension values is a
 * custom metric CloudWatch bills for ("Dimensions", CloudWatch concepts). So the repository, and
 * on a failure the Error as well (a closed set: lib/contract/errors.ts, and Step Functions' own
 * States.* and Lambda names); the build, the step and the commit ride along as properties, which
 * Logs Insights can search but which make no metric.
 */
import type { BuildRef } from '../contract/index.js';
import { secondsBetween, type PodTimings } from '../kube/pod-timings.js';

/** The namespace a deployment's metrics go to when its settings name none (serverless.yml params.metricsNamespace). */
export const DEFAULT_METRICS_NAMESPACE = 'StepRunner';

/** The dimension names. */
export const MetricDimensions = { repository: 'Repository', error: 'Error' } as const;

/** The repository dimension's value for a build that names none (a local or hand-started execution). */
export const NO_REPOSITORY = 'none';

/**
 * Every metric a record may hold, with its unit and what it measures (docs/metrics.md is made from
 * this table). The dashboard (lib/lambda/metrics-dashboard.ts) draws these names.
 */
export const METRICS = {
  BuildDuration: { unit: 'Seconds', of: 'build', what: "From the execution's start to the build's end (a re-run's end counts from the first start)." },
  BuildQueueTime: { unit: 'Seconds', of: 'build', what: "The build's steps' StepQueueTime, added up." },
  BuildPullTime: { unit: 'Seconds', of: 'build', what: "The build's steps' StepPullTime, added up." },
  BuildFailure: { unit: 'Count', of: 'build', what: '1 for a failed build, 0 for one that succeeded: its Average is the failure rate, its Sum the failures.' },
  BuildCost: { unit: 'None', of: 'build', what: "The build's cost in US dollars (`cost.usd`), when the build's result has one." },
  StepDuration: { unit: 'Seconds', of: 'step', what: "From the pod's creation to the step container's end (or to FinishStep, when it never ended)." },
  StepQueueTime: { unit: 'Seconds', of: 'step', what: "From the pod's creation until the scheduler bound it to a node (PodScheduled): waiting for capacity." },
  StepPendingTime: { unit: 'Seconds', of: 'step', what: "From the pod's creation until the step container started: the queue, the image pulls, the init containers (checkout, cache restore, services)." },
  StepPullTime: { unit: 'Seconds', of: 'step', what: "The kubelet's image pulls for the pod, added up from its Pulled events (0 when every image was present)." },
  StepRunTime: { unit: 'Seconds', of: 'step', what: "The step container's own run, from its start to its end." },
  StepFailure: { unit: 'Count', of: 'step', what: '1 for a failed step (each failed attempt of a retried one), 0 for one that succeeded.' },
  StepCost: { unit: 'None', of: 'step', what: "The step pod's cost in US dollars: its requests for its time at its node's price, as the build's cost prices each pod (its `pods` part), when the pod was placed on a node." },
} as const satisfies Record<string, { unit: MetricUnitName; of: 'build' | 'step'; what: string }>;

export type MetricName = keyof typeof METRICS;
export type MetricUnitName = 'Seconds' | 'Count' | 'None';

export interface MetricValue {
  name: MetricName;
  unit: MetricUnitName;
  value: number;
}

/** One record: its metrics under each of its dimension sets, and the properties beside them. */
export interface MetricRecord {
  /** When the metrics happened (the end of the build or step). */
  timestamp: Date;
  /**
   * Each set is one way the metrics are aggregated: by repository; and, for a failure, by
   * repository and Error too (a success has no Error to file under).
   */
  dimensionSets: Record<string, string>[];
  metrics: MetricValue[];
  /** Searchable in the log line, never a dimension: build, step, commit, result. */
  properties: Record<string, string>;
}

/**
 * Writes one record: on Lambda an Embedded Metric Format line on stdout (lib/lambda/emf-metrics.ts),
 * which CloudWatch Logs turns into metrics. Locally none is given, and nothing is written.
 */
export interface MetricsSink {
  write(record: MetricRecord): void;
}

/** How a step ended, as FinishStep knows it. */
export interface StepEnd {
  build: BuildRef;
  step: string;
  status: 'succeeded' | 'failed';
  error: string | null;
  /** The attempt (0 the first), for a step that is retried. */
  attempt?: number;
  /** When LaunchStep created the pod ($.poll.launchedAt): the start when the pod's own creation was never seen. */
  launchedAt: string;
  timings?: PodTimings;
  endedAt: Date;
  /** The step pod's cost (cost-model.ts podDollars of its `result.pod`), when it has one: StepCost is written only then. */
  cost?: { usd: number };
}

export function stepMetricRecord(end: StepEnd): MetricRecord {
  const timings = end.timings ?? {};
  const created = timings.created ?? end.launchedAt;
  const metrics: MetricValue[] = [];
  const add = (name: MetricName, value: number | undefined) => {
    if (value !== undefined && Number.isFinite(value)) metrics.push({ name, unit: METRICS[name].unit, value });
  };
  add('StepDuration', secondsBetween(created, timings.finished ?? end.endedAt.toISOString()));
  add('StepQueueTime', secondsBetween(created, timings.scheduled));
  add('StepPendingTime', secondsBetween(created, timings.started));
  add('StepPullTime', timings.pullSeconds);
  add('StepRunTime', secondsBetween(timings.started, timings.finished));
  add('StepFailure', end.status === 'failed' ? 1 : 0);
  add('StepCost', end.cost?.usd);
  return {
    timestamp: end.endedAt,
    dimensionSets: dimensionSets(end.build, end.status === 'failed' ? end.error : null),
    metrics,
    properties: {
      ...buildProperties(end.build),
      step: end.step,
      result: end.status,
      ...(end.attempt ? { attempt: String(end.attempt) } : {}),
    },
  };
}

/** A step's StepQueueTime, from the timings FinishStep kept beside its result (StepRecord.timings). */
function stepQueueSeconds(timings: PodTimings | undefined, launchedAt?: string): number | undefined {
  return secondsBetween(timings?.created ?? launchedAt, timings?.scheduled);
}

/** How a build ended, as the function at its end knows it. */
export interface BuildEnd {
  build: BuildRef;
  status: 'succeeded' | 'failed';
  /** The build's Error (Step Functions' Error of the failure); absent for a success. */
  error?: string;
  /** The execution's start ($$.Execution.StartTime, or the status change event's startDate). */
  startedAt?: string;
  endedAt: Date;
  /** How its steps ended, with their timings, as FinishStep kept them (StepRecord). */
  steps: readonly { startedAt?: string; timings?: PodTimings }[];
  /**
   * The build's cost (`cost.usd` of the build's result, the cost helper's figure), when it has
   * one: BuildCost is written only then.
   */
  cost?: { usd: number };
}

export function buildMetricRecord(end: BuildEnd): MetricRecord {
  const metrics: MetricValue[] = [];
  const add = (name: MetricName, value: number | undefined) => {
    if (value !== undefined && Number.isFinite(value)) metrics.push({ name, unit: METRICS[name].unit, value });
  };
  add('BuildDuration', secondsBetween(end.startedAt ?? earliest(end.steps.map((s) => s.startedAt)), end.endedAt.toISOString()));
  add('BuildQueueTime', sum(end.steps.map((s) => stepQueueSeconds(s.timings, s.startedAt))));
  add('BuildPullTime', sum(end.steps.map((s) => s.timings?.pullSeconds)));
  add('BuildFailure', end.status === 'failed' ? 1 : 0);
  add('BuildCost', end.cost?.usd);
  return {
    timestamp: end.endedAt,
    dimensionSets: dimensionSets(end.build, end.status === 'failed' ? (end.error ?? 'Unknown') : null),
    metrics,
    properties: { ...buildProperties(end.build), result: end.status },
  };
}

function dimensionSets(build: BuildRef, error: string | null): Record<string, string>[] {
  const repository = { [MetricDimensions.repository]: build.repository || NO_REPOSITORY };
  return error ? [repository, { ...repository, [MetricDimensions.error]: error }] : [repository];
}

function buildProperties(build: BuildRef): Record<string, string> {
  return {
    build: build.id,
    ...(build.commit ? { commit: build.commit } : {}),
    ...(build.ref ? { ref: build.ref } : {}),
    ...(build.event ? { event: build.event } : {}),
  };
}

/** The sum of the values known; undefined when none is (no step's pull seen, say): no figure rather than a false 0. */
function sum(values: readonly (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : Math.round(known.reduce((a, b) => a + b, 0) * 1000) / 1000;
}

function earliest(instants: readonly (string | undefined)[]): string | undefined {
  const known = instants.filter((i): i is string => i !== undefined && !Number.isNaN(Date.parse(i)));
  return known.length === 0 ? undefined : known.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b));
}
