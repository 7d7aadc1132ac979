/**
 * One execution as the page shows it, computed from the registry's detail: the failure banner
 * (which state failed, with the Error and Cause), one entry per step (Map iteration) with its
 * states, last poll, result and pod, and the history rows. Pure.
 */
import { plainCause } from '../contract/lambda-error.js';
import { imageCheckNote } from '../workflow/image-check.js';
import type { Step } from '../pipeline/types.js';
import { listedSteps, type NeedsState, type PollState, type PreparedBuild, type StepResult } from '../workflow/state-data.js';
import type { ExecutionDetail, ListedExecution } from './execution-view.js';
import { AWAIT_APPROVAL, AWAIT_APPROVED_NEEDS, finishedStep, isLaunchState, type ExecutionEvent, type StepOutcome } from '../emulators/stepfunctions/executor.js';
import type { StepPodView } from './pod-view.js';
import { executionStates, type ExecutionStates, type StateStatus } from './state-status.js';
import { needsLevels, usesNeeds } from './step-levels.js';

export interface Failure {
  error: string;
  cause: string;
  /** The state whose failure it was (e.g. StepFailed), and the step if it was inside an iteration. */
  state: string | null;
  step: { index: number; name: string } | null;
  /** False while the execution still runs (the Catch is cleaning up). */
  final: boolean;
}

export interface StepView {
  index: number;
  name: string;
  /** Empty for an approval step, which runs no image. */
  image: string;
  /** An approval step (`approval:`): its message, and whether it has been asked for (its needs met); null for a step with a pod. */
  approval: { message: string | null; asked: boolean } | null;
  /** What PrepareBuild's registry check said of the image (its digest, or why it could not tell); '' when unchecked. */
  imageCheck: string;
  /** How its iteration's states went, in the graph's terms (in progress while it waits too). */
  status: StateStatus;
  /** What became of the step, in run --json's terms: waiting for its needs, running, aborted, not run... */
  outcome: StepOutcome;
  /** The steps it starts after; null in a sequential pipeline (each step follows the one above it). */
  needs: string[] | null;
  /** While it waits (WaitForNeeds): the needed steps not seen succeeded yet, as last checked; then (AwaitApprovedNeeds) the approvals it awaits. */
  waitingFor: string[] | null;
  lastPoll: PollState | null;
  polls: number;
  result: StepResult | null;
  pod: StepPodView | null;
  /** While the step runs: the last lines of its log so far. */
  liveLog: string | null;
  /** The services that run beside it (their containers are in its pod), in the order they start. */
  services: { name: string; image: string }[];
  /** How many pods it was given (its `retry`): 1 unless it was tried again. */
  attempts: number;
  /** The identity whose service account its pod runs as (`identity:`); null: none. */
  identity: string | null;
}

/** A step of the pipeline its `when` left out of this build: it has no iteration. */
export interface SkippedStepView {
  name: string;
  /** Its place among the pipeline file's steps (0-based). */
  index: number;
  reason: string;
}

/** The step list in the pipeline file's order: a step that runs by its iteration, or a skipped one. */
export type ListedStepView = { iteration: number } | { skipped: SkippedStepView };

export interface HistoryRow {
  id: number;
  type: string;
  state: string | null;
  stateType: string | null;
  step: { index: number; name: string } | null;
  timestamp: string;
  elapsedMs: number;
  /** Error (and the first line of the Cause) of failure events. */
  detail: string | null;
  failure: boolean;
}

export interface ExecutionModel {
  execution: ListedExecution;
  failure: Failure | null;
  /** One per Map iteration: steps[i] is iteration i. */
  steps: StepView[];
  /** Every step in the file's order (the checkout first), skipped ones included. */
  listed: ListedStepView[];
  /**
   * `listed` by depth in the needs graph: the steps of a row may run side by side. Only when the
   * pipeline uses `needs` (`parallel`); a sequential one is one step per row, drawn as a list.
   */
  rows: ListedStepView[][];
  parallel: boolean;
  states: ExecutionStates;
  history: HistoryRow[];
  /** The step to show first: the failed one, else the running one, else the last started. */
  defaultStep: number | null;
}

export function executionModel(detail: ExecutionDetail): ExecutionModel {
  const { execution, history } = detail;
  const running = execution.status === 'RUNNING';
  const states = executionStates(history, running);
  const prepared = history.find((e) => e.type === 'StateExited' && e.state?.name === 'PrepareBuild')?.state?.output as PreparedBuild | undefined;
  // Iteration i: RunSteps' steps, then those that run after a failure (numbered after them, as listedSteps() lists them).
  const planned: Step[] = [...(prepared?.steps ?? []), ...(prepared?.afterFailure ?? [])];
  const stepName = (index: number) => planned[index]?.name ?? `#${index + 1}`;
  // The run --json statuses, which the executor derives from this same history (names are unique).
  const outcomes = new Map((execution.steps ?? []).map((s) => [s.name, s.status]));

  const steps = planned.map((step, index): StepView => {
    const inIteration = history.filter((e) => e.index === index);
    const lastPollEvent = inIteration.filter((e) => e.type === 'StateExited' && (e.state?.name === 'PollStep' || e.state?.name === 'PollAfterFailure' || isLaunchState(e.state?.name))).at(-1);
    const lastPoll = (lastPollEvent?.state?.output as { poll?: PollState } | undefined)?.poll ?? null;
    const status = states.iterations.find((it) => it.index === index)?.status ?? 'not-run';
    const outcome = outcomes.get(step.name) ?? fallbackOutcome(status);
    const lastCheck = inIteration.filter((e) => e.type === 'TaskSucceeded' && e.state?.name === 'WaitForNeeds').at(-1)?.state?.output as NeedsState | undefined;
    const entered = (state: string) => inIteration.some((e) => e.type === 'StateEntered' && e.state?.name === state);
    // Waiting for approvals first (AwaitApprovedNeeds), then for the steps it needs (WaitForNeeds).
    const awaiting = inIteration.findLast((e) => e.type === 'StateEntered')?.state?.name === AWAIT_APPROVED_NEEDS;
    return {
      index,
      name: step.name,
      image: step.image ?? '',
      approval: step.approval ? { message: step.approval.message ?? null, asked: entered(AWAIT_APPROVAL) } : null,
      imageCheck: imageCheckNote(prepared?.images, step.image ?? '').trim().replace(/^\((.*)\)$/, '$1'),
      status,
      outcome,
      needs: step.needs ?? null,
      // Before the first check has answered, it waits for everything it needs.
      waitingFor: outcome === 'waiting' ? (awaiting ? (step.awaits ?? []) : (lastCheck?.waitingFor ?? step.needs ?? [])) : null,
      lastPoll,
      polls: lastPoll?.polls ?? 0,
      result: finishedStep(inIteration) ?? null,
      pod: detail.pods.get(index) ?? null,
      liveLog: detail.liveLogs?.get(index) ?? null,
      services: (step.services ?? []).map((service) => ({ name: service.name, image: service.image })),
      attempts: Math.max(1, inIteration.filter((e) => e.type === 'StateEntered' && isLaunchState(e.state?.name)).length),
      identity: step.identity ?? null,
    };
  });

  const startedAt = history[0]?.timestamp ?? Date.parse(execution.startedAt);
  const rows = history.map((event, i): HistoryRow => {
    const failure = event.type.endsWith('Failed') || event.type === 'ExecutionTimeout' || event.type === 'ExecutionAborted';
    return {
      id: i + 1,
      type: event.type,
      state: event.state?.name ?? null,
      stateType: event.state?.type ?? null,
      step: event.index === undefined ? null : { index: event.index, name: stepName(event.index) },
      timestamp: new Date(event.timestamp).toISOString(),
      elapsedMs: event.timestamp - startedAt,
      // A Lambda task's Cause (and so an execution's that fails in AwaitRerun) is its error JSON: the message is what a person reads.
      detail: event.Error ? [event.Error, firstLine(plainCause(String(event.Cause ?? '')))].filter(Boolean).join(': ') : null,
      failure,
    };
  });

  const failedIteration = steps.find((s) => s.status === 'failed');
  // Of steps side by side, one whose pod runs before one that still waits for its needs.
  const runningIteration = steps.find((s) => s.outcome === 'running') ?? steps.find((s) => s.status === 'in-progress');
  const started = steps.filter((s) => s.status !== 'not-run').at(-1);
  const defaultStep = failedIteration?.index ?? runningIteration?.index ?? started?.index ?? (steps.length > 0 ? 0 : null);

  const listed: ListedStepView[] = prepared?.steps
    ? listedSteps(prepared).map((s) => (s.iteration === undefined ? { skipped: s.skipped } : { iteration: s.iteration }))
    : [];

  const parallel = usesNeeds(planned);
  const leveled = listed.map((entry) => ('skipped' in entry ? { name: entry.skipped.name } : { name: planned[entry.iteration]!.name, needs: planned[entry.iteration]!.needs }));
  const stepRows = parallel ? needsLevels(leveled).map((row) => row.map((position) => listed[position]!)) : listed.map((entry) => [entry]);

  return { execution, failure: failureOf(execution, history, stepName), steps, listed, rows: stepRows, parallel, states, history: rows, defaultStep };
}

/** For a detail without run --json's step statuses: the graph's status, in those terms. */
function fallbackOutcome(status: StateStatus): StepOutcome {
  if (status === 'succeeded' || status === 'failed') return status;
  if (status === 'caught') return 'failed';
  if (status === 'in-progress') return 'running';
  return status === 'cancelled' ? 'aborted' : 'not-run';
}


/**
 * The first state that failed is the one to name (StepFailed in the step's iteration, not the Map
 * or BuildFailed that pass it on); the Error and Cause are the execution's once it has ended.
 */
function failureOf(execution: ListedExecution, history: readonly ExecutionEvent[], stepName: (i: number) => string): Failure | null {
  const first = history.find((e) => e.type === 'StateFailed' || e.type === 'MapIterationFailed');
  const final = execution.status !== 'RUNNING' && execution.status !== 'SUCCEEDED';
  // Stopped by a person, not failed: the page says "aborted", as the console does, in grey.
  if (!first && (!final || execution.status === 'ABORTED')) return null;
  const error = (final ? execution.error : null) ?? first?.Error ?? execution.status;
  // A task's own failure carries Lambda's error JSON until the definition's ReadFailure reads it.
  const cause = (final ? execution.cause : null) ?? (first?.Cause != null ? plainCause(String(first.Cause)) : '');
  return {
    error,
    cause,
    state: first?.state?.name ?? null,
    step: first?.index === undefined ? null : { index: first.index, name: stepName(first.index) },
    final,
  };
}

function firstLine(text: unknown): string {
  const line = String(text ?? '').split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
