/**
 * A build's check run, as request bodies (pure): created when the execution starts, its summary
 * kept current as steps end, and completed with a conclusion, the failure's Error, Cause and log
 * tail, and an annotation on the pipeline file's line of the failing step. The API's limits are
 * kept here (docs.github.com, REST "Check runs": Create a check run, Update a check run):
 * `output.summary` and `output.text` at most 65,535 bytes of UTF-8 (the documentation says
 * characters, GitHub counts bytes: github/docs#35252), at most 50 annotations a request.
 *
 * Text given here is already masked: FinishStep masks a step's Secret values in its log tail and
 * its Cause before they leave the task (lib/workflow/tasks/finish-step.ts); `mask` is applied on
 * top for what a caller knows besides (its own token, say).
 */
import { Outcomes, type CaughtFailure, type CostSummary, type Outcome, type StatusStep } from '../contract/index.js';
import { plainCause } from '../contract/lambda-error.js';
import { STATUS_CONTEXT, truncate } from './commit-status.js';
import { keepEndUtf8, truncateUtf8, utf8Length } from './utf8-text.js';
import type { CheckAnnotation, CheckConclusion, CheckRunCreate, CheckRunOutput, CheckRunUpdate } from './github-api.js';
import { testAnnotations, testsSection } from './test-annotations.js';

/**
 * The check's name: the commit status's context, so a required check keeps its name. A build must
 * then report one or the other, never both: when a check and a status share the required name, both
 * are required (docs.github.com, "Troubleshooting required status checks").
 */
export const CHECK_NAME = STATUS_CONTEXT;
/**
 * "Maximum length: 65535 characters" of `output.summary` and `output.text`, which GitHub counts in
 * bytes: a longer one is refused with 422, "summary exceeds a maximum bytesize of 65535"
 * (github/docs#35252). A Cause or a log in Chinese, or a summary of emoji, is 3 or 4 bytes a
 * character.
 */
export const MAX_OUTPUT_BYTES = 65_535;
/** "The Checks API limits the number of annotations to a maximum of 50 per API request." */
export const MAX_ANNOTATIONS_PER_REQUEST = 50;
/** Far below GitHub's 64 KB of an annotation's message: it is shown inline beside the line. */
const MAX_ANNOTATION_MESSAGE = 4_000;
/** The title is one line in the checks list. */
const MAX_TITLE = 200;
/** The headline above the steps: the Cause's first paragraph, the rest is in `text`. */
const MAX_HEADLINE = 1_000;

/** How a build ended, as the check run tells it. */
export const Endings = {
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
  timedOut: 'timed-out',
  superseded: 'superseded',
  skipped: 'skipped',
} as const;
export type Ending = (typeof Endings)[keyof typeof Endings];

const CONCLUSIONS: Readonly<Record<Ending, CheckConclusion>> = {
  succeeded: 'success',
  failed: 'failure',
  cancelled: 'cancelled',
  'timed-out': 'timed_out',
  // Not a failure of the change: a newer push made it moot (GitHub shows neutral as neither).
  superseded: 'neutral',
  // A completed run, so a required check of this name does not wait (issue 27 asks for skipped;
  // that branch protection accepts it as passing is still to be seen against GitHub itself).
  skipped: 'skipped',
};

export function conclusionFor(ending: Ending): CheckConclusion {
  return CONCLUSIONS[ending];
}

/**
 * The ending a StatusRequest reports: `stopped` comes from the cleanup of an execution that ended
 * outside the definition (cleanup-ended-execution.ts names ExecutionAborted and
 * ExecutionTimedOut), and `Superseded` from a newer build of the same group.
 */
export function endingOf(outcome: Exclude<Outcome, 'started'>, failure?: CaughtFailure, skipped?: string): Ending {
  if (outcome === Outcomes.succeeded) return skipped ? Endings.skipped : Endings.succeeded;
  if (failure?.Error === 'Superseded') return Endings.superseded;
  if (outcome === Outcomes.failed) return Endings.failed;
  if (failure?.Error === 'ExecutionTimedOut') return Endings.timedOut;
  if (failure?.Error === 'ExecutionAborted') return Endings.cancelled;
  return Endings.failed;
}

/** A step as the summary shows it; the statuses are those of `run --json`, and `queued` before it starts. */
export type CheckStep = StatusStep;

export interface CheckRunStart {
  headSha: string;
  /** The execution (its ARN, else its name): what `external_id` finds the run by later. */
  execution: string;
  startedAt: string;
  /** The execution's console page. */
  detailsUrl?: string;
  steps?: readonly CheckStep[];
}

export function checkRunCreation(start: CheckRunStart): CheckRunCreate {
  return {
    name: CHECK_NAME,
    head_sha: start.headSha,
    external_id: start.execution,
    status: 'in_progress',
    started_at: start.startedAt,
    ...(start.detailsUrl ? { details_url: start.detailsUrl } : {}),
    output: { title: runningTitle(start.steps ?? []), summary: summaryWith('Build running.', start.steps ?? []) },
  };
}

/** The summary kept current as steps end. */
export function checkRunProgress(steps: readonly CheckStep[]): CheckRunUpdate {
  return { status: 'in_progress', output: { title: runningTitle(steps), summary: summaryWithTests('Build running.', steps) } };
}

export interface CheckRunEnd {
  ending: Ending;
  completedAt: string;
  failure?: CaughtFailure;
  /** The failing step's log tail, when it is not in the Cause already (FinishStep puts it there). */
  logTail?: string;
  steps?: readonly CheckStep[];
  /** The pipeline file's path in the repository, for the annotation. */
  pipelineFile?: string;
  /** A skipped build's reason (ReportSkipped's `skipped`). */
  skipped?: string;
  /** Applied to every text from the build (Cause, log tail, Errors, reasons). */
  mask?: (text: string) => string;
  /** What the build cost, said under the headline. */
  cost?: CostSummary;
}

/**
 * The bodies that complete the run: one, or one more for each further 50 annotations (GitHub
 * appends the annotations of each update, and each needs the output's title and summary).
 */
export function checkRunCompletion(end: CheckRunEnd): CheckRunUpdate[] {
  const mask = end.mask ?? ((text: string) => text);
  const steps = (end.steps ?? []).map((step) => ({
    ...step,
    ...(step.error ? { error: mask(step.error) } : {}),
    ...(step.reason ? { reason: mask(step.reason) } : {}),
  }));
  const cause = splitCause(mask(plainCause(end.failure?.Cause ?? '')));
  const logTail = end.logTail ? mask(end.logTail) : cause.logTail;
  const error = end.failure?.Error?.trim() || undefined;
  const failingStep = steps.find((step) => step.status === 'failed' && (!error || step.error === error)) ?? steps.find((step) => step.status === 'failed');
  const title = endTitle(end.ending, error, failingStep?.name, end.skipped ? mask(end.skipped) : undefined, cause.paragraph);
  const headline = end.ending === Endings.skipped ? mask(end.skipped ?? '') : error ? `**${escapeInline(error)}**${cause.paragraph ? `: ${escapeInline(truncate(oneLine(cause.paragraph), MAX_HEADLINE))}` : ''}` : endWords(end.ending);
  const output: CheckRunOutput = { title, summary: summaryWithTests(end.cost ? `${headline}\n\n${costLine(end.cost)}` : headline, steps) };
  const text = failureText(error, cause.paragraph, logTail, failingStep?.name);
  if (text) output.text = text;
  const annotations = [
    ...(failingStep && failingStep.line !== undefined && end.pipelineFile
      ? [annotationFor(end.pipelineFile, failingStep.line, error ?? failingStep.error ?? 'Failed', failingStep.name, cause.paragraph || failingStep.error || '')]
      : []),
    // Each failed test of the steps' reports, on its own line (test-annotations.ts), after the step's own.
    ...testAnnotations(steps.map((step) => (step.tests ? { ...step, tests: { ...step.tests, failures: step.tests.failures.map((f) => ({ ...f, message: mask(f.message) })) } } : step)), end.pipelineFile),
  ];
  const first: CheckRunUpdate = {
    status: 'completed',
    conclusion: conclusionFor(end.ending),
    completed_at: end.completedAt,
    output: { ...output, ...(annotations.length > 0 ? { annotations: annotations.slice(0, MAX_ANNOTATIONS_PER_REQUEST) } : {}) },
  };
  return [first, ...annotationBatches(output, annotations.slice(MAX_ANNOTATIONS_PER_REQUEST))];
}

/** Further annotations, 50 a request, each with the output they belong to. */
export function annotationBatches(output: Pick<CheckRunOutput, 'title' | 'summary'>, annotations: readonly CheckAnnotation[]): CheckRunUpdate[] {
  const batches: CheckRunUpdate[] = [];
  for (let at = 0; at < annotations.length; at += MAX_ANNOTATIONS_PER_REQUEST) {
    batches.push({ output: { title: output.title, summary: output.summary, annotations: annotations.slice(at, at + MAX_ANNOTATIONS_PER_REQUEST) } });
  }
  return batches;
}

export function annotationFor(path: string, line: number, error: string, step: string, message: string): CheckAnnotation {
  return {
    path,
    start_line: line,
    end_line: line,
    annotation_level: 'failure',
    title: truncate(`${error} in step "${step}"`, MAX_TITLE),
    message: truncate(message.trim() || `Step "${step}" failed with ${error}`, MAX_ANNOTATION_MESSAGE),
  };
}

/**
 * The Cause's paragraph and the log tail FinishStep appends to it ("Last lines of the log:",
 * or "... of service NAME:"), so the tail can be shown as code and the paragraph as words.
 */
export function splitCause(cause: string): { paragraph: string; logTail?: string } {
  const marker = /\nLast lines of the log(?: of service "[^"\n]*")?:\n/.exec(cause);
  if (!marker) return { paragraph: cause.trim() };
  const logTail = cause.slice(marker.index + marker[0].length);
  return { paragraph: cause.slice(0, marker.index).trim(), ...(logTail.trim() ? { logTail } : {}) };
}

/**
 * `N of M steps done` when the list has the steps still to come (the start's), `N steps done` when
 * it has only those that ended (a step's end knows no others).
 */
function runningTitle(steps: readonly CheckStep[]): string {
  const ended = steps.filter((step) => step.status !== 'running' && step.status !== 'queued' && step.status !== 'not-run').length;
  if (steps.length === 0) return 'Build running';
  return ended === steps.length ? `Build running: ${ended} step${ended === 1 ? '' : 's'} done` : `Build running: ${ended} of ${steps.length} steps done`;
}

function endTitle(ending: Ending, error: string | undefined, step: string | undefined, skipped: string | undefined, cause: string): string {
  const title =
    ending === Endings.failed
      ? `${error ?? 'Build failed'}${step ? ` in step "${step}"` : ''}`
      : ending === Endings.superseded
        ? oneLine(cause) || 'Superseded by a newer build'
        : ending === Endings.skipped
          ? `Skipped: ${oneLine(skipped ?? 'no step runs')}`
          : endWords(ending);
  return truncate(title, MAX_TITLE);
}

function endWords(ending: Ending): string {
  const words: Record<Ending, string> = {
    succeeded: 'Build succeeded',
    failed: 'Build failed',
    cancelled: 'Build cancelled',
    'timed-out': 'Build timed out',
    superseded: 'Superseded by a newer build',
    skipped: 'Build skipped',
  };
  return words[ending];
}

const STATUS_WORDS: Readonly<Record<CheckStep['status'], string>> = {
  succeeded: '✅ succeeded',
  failed: '❌ failed',
  running: '⏳ running',
  queued: '🕒 queued',
  skipped: '⏭️ skipped',
  aborted: '⏹️ aborted',
  'not-run': '➖ not run',
};

/** The summary, and the tests' section after it when a step had reports, within MAX_OUTPUT_BYTES together. */
function summaryWithTests(headline: string, steps: readonly CheckStep[]): string {
  const tests = testsSection(steps, Math.floor(MAX_OUTPUT_BYTES / 2));
  return tests ? `${summaryWith(headline, steps, MAX_OUTPUT_BYTES - utf8Length(tests) - 2)}\n\n${tests}` : summaryWith(headline, steps);
}

/**
 * The headline, then the steps as a table, within `max` bytes (MAX_OUTPUT_BYTES): rows that do not
 * fit are left out whole (never cut in the middle) and a last line says how many.
 */
export function summaryWith(headline: string, steps: readonly CheckStep[], max = MAX_OUTPUT_BYTES): string {
  const head = truncateUtf8(headline, Math.floor(max / 4));
  if (steps.length === 0) return head;
  const table = ['| Step | Status | Duration | Error |', '| --- | --- | --- | --- |'];
  const rows = steps.map(stepRow);
  const note = (left: number) => `\n\n_${left} more step${left === 1 ? '' : 's'} not shown here: the execution's page has them all._`;
  let text = `${head}\n\n${table.join('\n')}`;
  let bytes = utf8Length(text);
  // The longest note there can be: room kept for it while rows may still follow.
  const noteBytes = utf8Length(note(rows.length));
  for (const [index, row] of rows.entries()) {
    const left = rows.length - index - 1;
    // Room for this row and, should any row come after it not fit, for the note about them.
    const reserve = left > 0 ? noteBytes : 0;
    const rowBytes = 1 + utf8Length(row);
    if (bytes + rowBytes + reserve > max) return text + note(rows.length - index);
    text += `\n${row}`;
    bytes += rowBytes;
  }
  return text;
}

function stepRow(step: CheckStep): string {
  const status = step.status === 'skipped' && step.reason ? `${STATUS_WORDS.skipped}: ${step.reason}` : `${STATUS_WORDS[step.status]}${step.pushed ? `, pushed \`${step.pushed.digest}\`` : ''}`;
  const identity = step.identity !== undefined ? ` as \`${step.identity}\`` : '';
  const cells = [`\`${step.name.replace(/`/g, "'")}\`${identity}`, status, step.durationSeconds !== undefined ? duration(step.durationSeconds) : '', step.error ?? ''];
  return `| ${cells.map((cell) => escapeCell(truncate(oneLine(cell), 300))).join(' | ')} |`;
}

const PART_WORDS: Readonly<Record<string, string>> = { stepFunctions: 'Step Functions', lambda: 'Lambda', s3: 'S3', pods: 'step pods' };

/** Dollars to the cent's hundredth: a build's parts are often fractions of a cent. */
export const dollars = (usd: number): string => `$${usd.toFixed(4)}`;

/**
 * `Cost: $0.0123 (Step Functions $0.0011, Lambda $0.0004, S3 $0.0000, step pods $0.0108), at AWS
 * list prices ...`: the build's cost, its parts, and where the runner's documentation says how
 * each is counted (docs/cost.md).
 */
export function costLine(cost: CostSummary): string {
  const parts = Object.entries(cost.parts).map(([part, usd]) => `${PART_WORDS[part] ?? part} ${dollars(usd)}`);
  return `**Cost: ${dollars(cost.usd)}** (${parts.join(', ')}), at list prices for ${cost.prices.region} as of ${cost.prices.asOf}; how each part is counted and how exact it is: the runner's docs/cost.md.`;
}

/** `1m 05s`, `2h 03m`, `42s`, as the console shows durations. */
export function duration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/** The Cause in full, then the log tail as code; empty when the build did not fail. */
function failureText(error: string | undefined, paragraph: string, logTail: string | undefined, step: string | undefined): string {
  if (!error && !paragraph && !logTail) return '';
  const parts = [`### ${error ?? 'Failure'}`, '', paragraph || 'Step Functions gave no cause.'];
  if (logTail) {
    const heading = `### Last lines of the log${step ? ` of step "${step}"` : ''}`;
    // A fence longer than any run of backticks in the log, so the log cannot close it.
    const fence = '`'.repeat(Math.max(3, ...Array.from(logTail.matchAll(/`+/g), (match) => match[0].length + 1)));
    const before = `${parts.join('\n')}\n\n${heading}\n\n${fence}text\n`;
    const after = `\n${fence}`;
    const room = MAX_OUTPUT_BYTES - utf8Length(before) - utf8Length(after);
    if (room > 100) return before + keepEndUtf8(logTail.replace(/\n$/, ''), room) + after;
  }
  return truncateUtf8(parts.join('\n'), MAX_OUTPUT_BYTES);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A table cell holds one line, and `|` would end it. */
function escapeCell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

/** Markdown emphasis characters of a Cause should read as themselves. */
function escapeInline(text: string): string {
  return text.replace(/([\\`*_[\]<>|])/g, '\\$1');
}
