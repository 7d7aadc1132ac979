import type { PodTimings } from '../kube/index.js';
import type { PodUsage, StepS3Usage } from './cost-model.js';

/**
 * Where a step's log is kept: S3 on AWS (lib/lambda), a folder locally (lib/local). FinishStep
 * stores a log whole (`put`) when nothing of it was kept while the step ran; otherwise PollStep
 * keeps it as it grows, in parts (`putPart`), and FinishStep adds the rest and ends it
 * (`complete`), so the store holds every line, however much the kubelet keeps.
 */
import type { TestSummary } from '../contract/test-summary.js';

export interface StepLogStore {
  /** Stores the log and returns where it went (s3://bucket/key or a file path). */
  put(buildId: string, step: string, log: string): Promise<string>;
  /**
   * Writes part `part` (1, 2, ...) of a running step's log, which starts at byte `offset` of the
   * log: all of that part so far, replacing what an earlier write of it held, so a part grows by
   * being written again, and a retried invocation rewrites rather than repeats. Returns where the
   * log can be read while it grows.
   */
  putPart(buildId: string, step: string, text: string, at: { part: number; offset: number }): Promise<string>;
  /** Where a running step's log can be read as it grows (what putPart answers). */
  liveLocation(buildId: string, step: string): string;
  /** Ends a log kept in `parts` parts: the whole log where `put` would have put it, and its last bytes. */
  complete(buildId: string, step: string, parts: number): Promise<{ location: string; tail: string }>;
  /**
   * How often a running step's part is written: a local file can take every line at once; each
   * write to S3 is a request that costs.
   */
  readonly partEveryMs: number;
  /** Keeps how the step ended (FinishStep), beside its log: `BUILD/STEP.result.json`, a later attempt's replacing an earlier's. */
  putResult(buildId: string, record: StepRecord): Promise<void>;
  /** How the build's steps ended so far, in no order: what a check run's summary shows. */
  results(buildId: string): Promise<StepRecord[]>;
}

/**
 * How a step ended, as its check run's summary shows it: the Map's own results are dropped
 * (the state data stays small) and a failed build's Catch keeps only the Error, so the reports
 * read these instead.
 */
export interface StepRecord {
  step: string;
  status: 'succeeded' | 'failed';
  exitCode: number | null;
  error: string | null;
  /** When its pod was created, and when FinishStep saw it end (ISO 8601). */
  startedAt: string;
  endedAt: string;
  /**
   * Its pod's timings (PollState.timings, completed by FinishStep's last look at the pod): the
   * build's metrics, and its trace's pending, pulling and running; absent: none were seen.
   */
  timings?: PodTimings;
  /**
   * A build step's push: the digest and tags, for the check run's summary and for a later step of
   * the build that runs the image by its digest (`${{ steps.NAME.digest }}`, step-image.ts).
   */
  pushed?: { digest: string; tags: string[] };
  /** Its test reports' summary (StepResult.tests): the check run's table and annotations; absent: no reports. */
  tests?: TestSummary;
  /** What its pod reserved, where and for how long (pod-usage.ts), for the build's cost; absent: never placed. */
  pod?: PodUsage;
  /** What the step wrote to the bucket, for the build's cost (absent in a record of an older runner). */
  s3?: StepS3Usage;
}

const RESULT_SUFFIX = '.result.json';

/** `BUILD/STEP.result.json`, made safe as stepLogName makes the log's. */
export function stepResultName(buildId: string, step: string): string {
  return stepLogName(buildId, step).replace(/\.log$/, RESULT_SUFFIX);
}

/** Whether a stored name is a step's result (not its log, parts, or a service's log). */
export function isStepResultName(name: string): boolean {
  return name.endsWith(RESULT_SUFFIX);
}

/** A record as read back; anything else (a hand-edited file) is left out. */
export function parseStepRecord(text: string): StepRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<StepRecord>;
    return typeof value.step === 'string' && (value.status === 'succeeded' || value.status === 'failed') ? (value as StepRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** How much of a log's end `complete` returns: enough for the tail FinishStep shows. */
export const LOG_END_BYTES = 8 * 1024;

/**
 * A part is closed and the next one begun past this size, so no invocation holds more of a log in
 * memory (PollStep runs in 128 MB) and no rewrite of a part sends more.
 */
export const MAX_PART_BYTES = 2 * 1024 * 1024;

/**
 * `BUILD/STEP.log`, each part made safe: build ids and step names are validated elsewhere, but a
 * key or a path must never climb out of its prefix.
 */
export function stepLogName(buildId: string, step: string): string {
  return `${safeSegment(buildId)}/${safeSegment(step)}.log`;
}

/**
 * What a step's service's log is stored under, passed where a step's name goes: `STEP.services.SERVICE`,
 * so the log is `BUILD/STEP.services.SERVICE.log`, beside the step's own `BUILD/STEP.log`. Step and
 * service names are DNS labels, which hold no dot: no step's log can take this name.
 */
export function serviceLogName(step: string, service: string): string {
  return `${step}.services.${service}`;
}

function safeSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_');
}
