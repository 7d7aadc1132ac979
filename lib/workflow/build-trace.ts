/**
 * A build as one trace, in the words of OpenTelemetry's CI/CD semantic conventions
 * (opentelemetry.io/docs/specs/semconv/cicd/cicd-spans/, attributes in
 * docs/registry/attributes/cicd.md and vcs.md of open-telemetry/semantic-conventions):
 * - the pipeline run: kind SERVER, named `{action} {pipeline}` ("RUN octo/app"), with
 *   `cicd.pipeline.result` (required) and `error.type` when it failed;
 * - a span per step that ran (a "task run": kind INTERNAL, `cicd.pipeline.task.name`,
 *   `cicd.pipeline.task.run.id`, `cicd.pipeline.task.run.result`, `error.type` when it failed,
 *   `cicd.pipeline.task.run.url.full` where a person sees it, when there is such a page);
 * - a step still running when the execution ended outside the definition (stopped, timed out):
 *   its span and the phase it was in end with the build, with the build's result and Error, and
 *   a status message that says it was still running;
 * - under each step, `pending` (from its pod's creation: scheduling, volumes, init containers),
 *   `pulling` (the step container's image, when it had to be pulled) and `running` (its container),
 *   from what FinishStep recorded (StepRecord.timings, lib/kube/pod-timings.ts).
 * A failed span has status ERROR with the Error's name, as "Recording errors"
 * (docs/general/recording-errors.md) asks: status code Error, and `error.type` its class name.
 * Pure: the build's end in, spans out; trace-export.ts hands them to the OpenTelemetry SDK.
 */
import {
  ATTR_CICD_PIPELINE_ACTION_NAME,
  ATTR_CICD_PIPELINE_NAME,
  ATTR_CICD_PIPELINE_RESULT,
  ATTR_CICD_PIPELINE_RUN_ID,
  ATTR_CICD_PIPELINE_RUN_URL_FULL,
  ATTR_CICD_PIPELINE_TASK_NAME,
  ATTR_CICD_PIPELINE_TASK_RUN_ID,
  ATTR_CICD_PIPELINE_TASK_RUN_RESULT,
  ATTR_CICD_PIPELINE_TASK_RUN_URL_FULL,
  ATTR_ERROR_TYPE,
  ATTR_PROCESS_EXIT_CODE,
  ATTR_VCS_CHANGE_ID,
  ATTR_VCS_REF_HEAD_NAME,
  ATTR_VCS_REF_HEAD_REVISION,
  ATTR_VCS_REF_HEAD_TYPE,
  ATTR_VCS_REPOSITORY_NAME,
  CICD_PIPELINE_ACTION_NAME_VALUE_RUN,
  VCS_REF_HEAD_TYPE_VALUE_BRANCH,
  VCS_REF_HEAD_TYPE_VALUE_TAG,
} from '@opentelemetry/semantic-conventions/incubating';
import type { BuildRef, CaughtFailure } from '../contract/index.js';
import type { PodTimings } from '../kube/index.js';
import type { StepRecord } from './step-log-store.js';

/**
 * One span, its times in epoch milliseconds; `error`: the Error it failed with (status ERROR, its
 * description `message`, else the Error).
 */
export interface TraceSpan {
  name: string;
  kind: 'server' | 'internal';
  start: number;
  end: number;
  attributes: Record<string, string | number>;
  error?: string;
  message?: string;
  children: TraceSpan[];
}

/** A step whose pod was still there, without a record, when the execution ended outside the definition. */
export interface RunningStep {
  step: string;
  /** Its pod's creation. */
  startedAt: string;
  /** What its pod and events said (lib/kube/pod-timings.ts). */
  timings?: PodTimings;
}

/** What ReportStatus knows when the build ends, or the ended-execution cleanup when it ends outside the definition. */
export interface EndedBuild {
  build: BuildRef;
  outcome: 'succeeded' | 'failed';
  failure?: CaughtFailure;
  /** Why no step ran (ReportSkipped). */
  skipped?: string;
  /** `$$.Execution.StartTime`; absent: the first step's start. */
  startedAt?: string;
  endedAt: string;
  /** The pipeline file, the pipeline's name when the build has no repository (a local run). */
  pipelineFile?: string;
  /** The execution, and where a person sees it (the Step Functions console's page, the local console's): `cicd.pipeline.run.url.full`. */
  executionArn?: string;
  runUrl?: string;
  /** Where a person sees each step, by its name (`cicd.pipeline.task.run.url.full`); a step with none has no such page. */
  stepUrls?: Record<string, string>;
  /** How each step ended (FinishStep's records). */
  steps: StepRecord[];
  /** The steps still running when the execution ended outside the definition (the ended-execution cleanup's). */
  running?: RunningStep[];
}

/** The phases a step's span holds, named as the views name them. */
export const PhaseSpans = { pending: 'pending', pulling: 'pulling', running: 'running' } as const;

/**
 * `cicd.pipeline.result` / `cicd.pipeline.task.run.result` of a failed build or step, by its Error:
 * `failure` is the work's own (a non-zero exit, a failing test), `timeout` a limit it ran into,
 * `cancellation` a build stopped for a newer one, and `error` the rest, what kept the work from
 * running (the well-known values of registry/attributes/cicd.md).
 */
const FAILURE_RESULTS: Record<string, string> = {
  StepFailed: 'failure',
  CheckoutFailed: 'failure',
  ServiceFailed: 'failure',
  ImageBuildFailed: 'failure',
  InvalidPipeline: 'failure',
  ApprovalRejected: 'failure',
  StepTimedOut: 'timeout',
  ApprovalTimedOut: 'timeout',
  // The ended-execution cleanup's Errors (cleanup-ended-execution.ts stoppedBecause): StopExecution, the execution's TimeoutSeconds.
  ExecutionTimedOut: 'timeout',
  Superseded: 'cancellation',
  ExecutionAborted: 'cancellation',
};

export function failedResult(error: string | null | undefined): string {
  return (error && FAILURE_RESULTS[error]) || 'error';
}

/** The trace of a build that ended: its pipeline run span, holding its steps'. Pure. */
export function buildTrace(ended: EndedBuild): TraceSpan {
  const { build } = ended;
  const end = Date.parse(ended.endedAt);
  const steps: (StepRecord | RunningStep)[] = [...ended.steps, ...(ended.running ?? [])].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  const start = Math.min(end, parsed(ended.startedAt) ?? Math.min(end, ...steps.map((s) => Date.parse(s.startedAt))));
  const pipeline = build.repository ?? ended.pipelineFile ?? 'pipeline';
  const error = ended.outcome === 'failed' ? (ended.failure?.Error ?? 'States.Unknown') : undefined;
  const result = error ? failedResult(error) : ended.skipped ? 'skip' : 'success';
  return {
    name: `${CICD_PIPELINE_ACTION_NAME_VALUE_RUN} ${pipeline}`,
    kind: 'server',
    start,
    end,
    attributes: {
      [ATTR_CICD_PIPELINE_NAME]: pipeline,
      [ATTR_CICD_PIPELINE_RUN_ID]: build.id,
      [ATTR_CICD_PIPELINE_ACTION_NAME]: CICD_PIPELINE_ACTION_NAME_VALUE_RUN,
      [ATTR_CICD_PIPELINE_RESULT]: result,
      ...(error ? { [ATTR_ERROR_TYPE]: error } : {}),
      ...(ended.runUrl ? { [ATTR_CICD_PIPELINE_RUN_URL_FULL]: ended.runUrl } : {}),
      ...vcsAttributes(build),
    },
    ...(error ? { error } : {}),
    children: steps.map((step) => stepSpan(ended, step, { start, end, ...(error ? { error } : {}) })),
  };
}

/** What a step still running at the build's end says, in its span's status. */
export const STILL_RUNNING = 'still running when the execution ended';

function stepSpan(ended: EndedBuild, step: StepRecord | RunningStep, within: { start: number; end: number; error?: string }): TraceSpan {
  const clamp = (ms: number) => Math.min(within.end, Math.max(within.start, ms));
  const start = clamp(Date.parse(step.startedAt));
  // A step the build ended around ends with it, failed as the build did.
  const record = 'status' in step ? step : undefined;
  const end = record ? Math.max(start, clamp(Date.parse(record.endedAt))) : within.end;
  const error = record ? (record.status === 'failed' ? (record.error ?? 'StepFailed') : undefined) : (within.error ?? 'States.Unknown');
  const message = record ? undefined : `${error}: ${STILL_RUNNING}`;
  const url = ended.stepUrls?.[step.step];
  return {
    name: step.step,
    kind: 'internal',
    start,
    end,
    attributes: {
      [ATTR_CICD_PIPELINE_TASK_NAME]: step.step,
      [ATTR_CICD_PIPELINE_TASK_RUN_ID]: `${ended.build.id}/${step.step}`,
      [ATTR_CICD_PIPELINE_TASK_RUN_RESULT]: error ? failedResult(error) : 'success',
      ...(error ? { [ATTR_ERROR_TYPE]: error } : {}),
      ...(record && record.exitCode !== null ? { [ATTR_PROCESS_EXIT_CODE]: record.exitCode } : {}),
      ...(url ? { [ATTR_CICD_PIPELINE_TASK_RUN_URL_FULL]: url } : {}),
    },
    ...(error ? { error } : {}),
    ...(message ? { message } : {}),
    children: phaseSpans(step.timings, start, end, error, message),
  };
}

/**
 * pending, pulling and running, one after the other inside the step's span (the times are the
 * API server's, to the second, so each is clamped into the step's and after the one before); the
 * last phase the step reached carries its failure.
 */
function phaseSpans(timings: PodTimings | undefined, start: number, end: number, error: string | undefined, message: string | undefined): TraceSpan[] {
  const t = timings ?? {};
  const at = (value: string | undefined, notBefore: number) => {
    const ms = parsed(value);
    return ms === undefined ? undefined : Math.min(end, Math.max(notBefore, ms));
  };
  const pulling = at(t.pulling, start);
  const pulled = pulling === undefined ? undefined : at(t.pulled, pulling);
  // The container starts once its image is there: a start stamped in the second the pull ended is not before it.
  const running = at(t.started, pulled ?? pulling ?? start);
  const phases: [string, number, number][] = [[PhaseSpans.pending, start, pulling ?? running ?? end]];
  if (pulling !== undefined) phases.push([PhaseSpans.pulling, pulling, pulled ?? running ?? end]);
  if (running !== undefined) phases.push([PhaseSpans.running, running, at(t.finished, running) ?? end]);
  return phases.map(([name, from, to], index) => ({
    name,
    kind: 'internal',
    start: from,
    end: Math.max(from, to),
    attributes: {},
    ...(error && index === phases.length - 1 ? { error, ...(message ? { message } : {}) } : {}),
    children: [],
  }));
}

/** vcs.* of the registry's VCS attributes: the repository's own name (no owner), the head ref and revision, the pull request. */
function vcsAttributes(build: BuildRef): Record<string, string> {
  const attributes: Record<string, string> = {};
  const name = build.repository?.split('/').pop();
  if (name) attributes[ATTR_VCS_REPOSITORY_NAME] = name;
  const ref = build.ref?.match(/^refs\/(heads|tags)\/(.+)$/);
  if (ref) {
    attributes[ATTR_VCS_REF_HEAD_NAME] = ref[2]!;
    attributes[ATTR_VCS_REF_HEAD_TYPE] = ref[1] === 'tags' ? VCS_REF_HEAD_TYPE_VALUE_TAG : VCS_REF_HEAD_TYPE_VALUE_BRANCH;
  } else if (build.ref) attributes[ATTR_VCS_REF_HEAD_NAME] = build.ref;
  if (build.commit) attributes[ATTR_VCS_REF_HEAD_REVISION] = build.commit;
  if (build.pullRequest) attributes[ATTR_VCS_CHANGE_ID] = String(build.pullRequest.number);
  return attributes;
}

function parsed(value: string | undefined): number | undefined {
  const ms = value === undefined ? NaN : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
