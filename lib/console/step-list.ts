/**
 * The page's list of steps: one column for a sequential pipeline (as it always was), and for one
 * with `needs` a row per depth of the needs graph, the steps that may run together side by side,
 * each saying what it needs. Every step is a link that selects it, a skipped one included (its
 * panel says why it was skipped). Pure.
 */
import type { StepOutcome } from '../emulators/stepfunctions/executor.js';
import type { ExecutionModel, ListedStepView, SkippedStepView, StepView } from './execution-model.js';
import { html, type Html } from './html.js';

/**
 * Which step the page shows: an iteration by its index (as `?step=N` always said), or a skipped
 * step, which has no iteration, by its place in the file (`?step=skipped-N`).
 */
export type StepSelection = number | string | null;

export const skippedKey = (s: SkippedStepView) => `skipped-${s.index}`;
export const isSkippedKey = (key: string) => /^skipped-\d+$/.test(key);

/** The words beside each step: what run --json says, as a reader says it. */
export const OUTCOME_LABELS: Record<StepOutcome, string> = {
  succeeded: 'succeeded',
  failed: 'failed',
  running: 'in progress',
  waiting: 'waiting for needs',
  aborted: 'aborted',
  'not-run': 'not run',
  skipped: 'skipped',
};

/** The colour class: the graph's for the statuses they share, one of their own for the rest. */
export const OUTCOME_CLASS: Record<StepOutcome, string> = {
  succeeded: 'succeeded',
  failed: 'failed',
  running: 'in-progress',
  waiting: 'waiting',
  aborted: 'aborted',
  'not-run': 'not-run',
  skipped: 'skipped',
};

export function outcomePill(outcome: StepOutcome): Html {
  return html`<span class="pill status-${OUTCOME_CLASS[outcome]}">${OUTCOME_LABELS[outcome]}</span>`;
}

export function stepList(model: ExecutionModel, selected: StepSelection): Html {
  const { steps } = model;
  if (steps.length === 0 && model.listed.length === 0) return html`<li class="muted">No steps yet: PrepareBuild has not finished.</li>`;
  // Without the file's order (an execution recorded before it was kept), the iterations alone.
  if (model.listed.length === 0) return html`${steps.map((s) => stepItem(s, selected, false))}`;
  const entry = (e: ListedStepView) => {
    if ('skipped' in e) return skippedItem(e.skipped, selected);
    const s = steps[e.iteration];
    return s ? stepItem(s, selected, model.parallel) : html``;
  };
  if (!model.parallel) return html`${model.listed.map(entry)}`;
  // One item per depth, its steps in a list of their own that the stylesheet lays out in a row.
  return html`${model.rows.map(
    (row, depth) => html`<li class="step-row" data-depth="${depth}"><ol class="step-row-steps" aria-label="${rowLabel(row, depth)}">${row.map(entry)}</ol></li>`,
  )}`;
}

/** Said to screen readers, which do not see the row: which steps may run at the same time. */
function rowLabel(row: ListedStepView[], depth: number): string {
  return row.length > 1 ? `Depth ${depth}: ${row.length} steps side by side` : `Depth ${depth}`;
}

function stepItem(s: StepView, selected: StepSelection, withNeeds: boolean): Html {
  const needs = withNeeds && s.needs && s.needs.length > 0 ? html`<span class="step-needs">needs: ${s.needs.join(', ')}</span>` : '';
  return html`<li><a class="step status-${OUTCOME_CLASS[s.outcome]}" href="?step=${s.index}" data-step="${s.index}" data-outcome="${s.outcome}"${selected === s.index ? html` aria-current="true"` : ''}>
<span class="dot" aria-hidden="true"></span><span class="step-name">${s.index + 1}. ${s.name}</span>
<span class="step-status">${OUTCOME_LABELS[s.outcome]}${s.result?.error ? html` · <code>${s.result.error}</code>` : ''}</span>${needs}</a></li>`;
}

/** A step its `when` left out: no iteration, but it is selected like the others to show why. */
function skippedItem(s: SkippedStepView, selected: StepSelection): Html {
  const key = skippedKey(s);
  return html`<li><a class="step status-skipped" href="?step=${key}" data-step="${key}" data-skipped-step="${s.index}" data-outcome="skipped"${selected === key ? html` aria-current="true"` : ''}>
<span class="dot" aria-hidden="true"></span><span class="step-name">${s.name}</span>
<span class="step-status">skipped</span><span class="step-reason">Skipped: ${s.reason}</span></a></li>`;
}

/** The panel of a skipped step: its reason, and why there is no pod, log or iteration to show. */
export function skippedDetail(s: SkippedStepView, shown: boolean): Html {
  return html`<section class="step-detail" data-step-detail="${skippedKey(s)}" aria-label="Step ${s.name}"${shown ? '' : html` hidden`}>
<h3>${s.name} ${outcomePill('skipped')}</h3>
<p>Skipped: ${s.reason}.</p>
<p class="muted">PrepareBuild decided this when the build started: the step has no RunSteps iteration, no pod and no log.</p>
</section>`;
}

/** What the panel of a step that has not run (yet) says about it. */
export function notRunNote(step: StepView, running: boolean): Html | null {
  switch (step.outcome) {
    case 'waiting':
      return html`<p>Waiting for ${step.waitingFor && step.waitingFor.length > 0 ? html`<strong>${step.waitingFor.join(', ')}</strong>` : 'the steps it needs'} to succeed (WaitForNeeds).</p>`;
    case 'aborted':
      return html`<p>Aborted: its pod was launched, then deleted when the build stopped before it finished (another step failed, or the execution was stopped).</p>`;
    case 'not-run':
      return html`<p>${running ? (step.needs ? 'Waiting for its iteration to start.' : 'Waiting for the steps before it.') : 'Not run: the build ended before this step was launched.'}</p>`;
    default:
      return null;
  }
}
