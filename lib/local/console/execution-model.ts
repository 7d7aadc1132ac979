/**
 * One execution as the page shows it, computed from the registry's detail: the failure banner
 * (which state failed, with the Error and Cause), one entry per step (Map iteration) with its
 * states, last poll, result and pod, and the history rows. Pure.
 */
import { lambdaErrorMessage } from '../../forge/commit-status.js';
import { imageCheckNote } from '../../workflow/image-check.js';
import type { Step } from '../../pipeline/types.js';
import { listedSteps, type PollState, type PreparedBuild, type StepResult } from '../../workflow/state-data.js';
import type { ExecutionDetail, ListedExecution } from '../executions.js';
import { finishedStep, type ExecutionEvent } from '../executor.js';
import type { StepPodView } from './pod-view.js';
import { executionStates, type ExecutionStates, type StateStatus } from './state-status.js';

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
  image: string;
  /** What PrepareBuild's registry check said of the image (its digest, or why it could not tell); '' when unchecked. */
  imageCheck: string;
  status: StateStatus;
  lastPoll: PollState | null;
  polls: number;
  result: StepResult | null;
  pod: StepPodView | null;
  /** While the step runs: the last lines of its log so far. */
  liveLog: string | null;
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
  const planned: Step[] = prepared?.steps ?? [];
  const stepName = (index: number) => planned[index]?.name ?? `#${index + 1}`;

  const steps = planned.map((step, index): StepView => {
    const inIteration = history.filter((e) => e.index === index);
    const lastPollEvent = inIteration.filter((e) => e.type === 'StateExited' && (e.state?.name === 'PollStep' || e.state?.name === 'LaunchStep')).at(-1);
    const lastPoll = (lastPollEvent?.state?.output as { poll?: PollState } | undefined)?.poll ?? null;
    return {
      index,
      name: step.name,
      image: step.image,
      imageCheck: imageCheckNote(prepared?.images, step.image).trim().replace(/^\((.*)\)$/, '$1'),
      status: states.iterations.find((it) => it.index === index)?.status ?? 'not-run',
      lastPoll,
      polls: lastPoll?.polls ?? 0,
      result: finishedStep(inIteration) ?? null,
      pod: detail.pods.get(index) ?? null,
      liveLog: detail.liveLogs?.get(index) ?? null,
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
      detail: event.Error ? [event.Error, firstLine(event.Cause)].filter(Boolean).join(': ') : null,
      failure,
    };
  });

  const failedIteration = steps.find((s) => s.status === 'failed');
  const runningIteration = steps.find((s) => s.status === 'in-progress');
  const started = steps.filter((s) => s.status !== 'not-run').at(-1);
  const defaultStep = failedIteration?.index ?? runningIteration?.index ?? started?.index ?? (steps.length > 0 ? 0 : null);

  const listed: ListedStepView[] = prepared?.steps
    ? listedSteps(prepared).map((s) => (s.iteration === undefined ? { skipped: s.skipped } : { iteration: s.iteration }))
    : [];

  return { execution, failure: failureOf(execution, history, stepName), steps, listed, states, history: rows, defaultStep };
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
  const cause = (final ? execution.cause : null) ?? (first?.Cause != null ? lambdaErrorMessage(String(first.Cause)) : '');
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
