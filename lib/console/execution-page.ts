/**
 * One execution's page, and the same regions as fragments for live updates: the status, the
 * failure banner, the summary, the pipeline's steps as a graph (shown first) and the state machine's
 * graph (coloured for the selected step's iteration), the steps
 * with their pod, events and log, and the event history. Pure.
 */
import { COST_DOCS, costWords } from '../workflow/cost-model.js';
import type { PodEventView, StepPodView } from './pod-view.js';
import type { ExecutionModel, Failure, HistoryRow, StepView } from './execution-model.js';
import { byteSize, duration, executionHref, executionPill, timeTag } from './format.js';
import type { GraphLayout } from './graph-layout.js';
import { graphSvg } from './graph-svg.js';
import { ansiHtml, stripAnsi } from './ansi.js';
import { html, jsonForScript, type Html } from './html.js';
import { pageShell } from './page-shell.js';
import { STATUS_LABELS, type StateStatus } from './state-status.js';
import { isSkippedKey, notRunNote, OUTCOME_CLASS, OUTCOME_LABELS, outcomePill, skippedDetail, skippedKey, stepList, type StepSelection } from './step-list.js';
import { identityServiceAccount } from '../kube/service-accounts.js';
import { pipelineSvg } from './pipeline-svg.js';
import { testsSection } from './tests-section.js';
import type { StepOutcome } from '../emulators/stepfunctions/executor.js';
import { isNamedWait, pollOutcome } from './poll-words.js';
import type { PollState } from '../workflow/state-data.js';

export const streamHref = (name: string) => `${executionHref(name)}/stream`;
export const logHref = (name: string, index: number) => `${executionHref(name)}/steps/${index}/log`;
/** An artifact a step kept, served from the store by the local server (console-routes.ts). */
export const artifactHref = (name: string, index: number, artifact: number) => `${executionHref(name)}/steps/${index}/artifacts/${artifact}`;
export const stopHref = (name: string) => `${executionHref(name)}/stop`;
export const rerunHref = (name: string) => `${executionHref(name)}/rerun`;
export const redriveHref = (name: string) => `${executionHref(name)}/redrive`;
export const decideHref = (name: string, decision: 'approve' | 'reject') => `${executionHref(name)}/${decision}`;

/** What the page's script needs to recolour the graph and pick the step, sent with each update. */
export interface ClientModel {
  status: ExecutionModel['execution']['status'];
  states: ExecutionModel['states'];
  defaultStep: number | null;
  steps: { index: number; name: string }[];
  /** The skipped steps, selectable by their key (`skipped-N`) though they have no iteration. */
  skipped: { key: string; name: string }[];
}

export function clientModel(model: ExecutionModel): ClientModel {
  return {
    status: model.execution.status,
    states: model.states,
    defaultStep: model.defaultStep,
    steps: model.steps.map((s) => ({ index: s.index, name: s.name })),
    skipped: model.listed.flatMap((e) => ('skipped' in e ? [{ key: skippedKey(e.skipped), name: e.skipped.name }] : [])),
  };
}

type RegionId = 'x-status' | 'x-actions' | 'x-banner' | 'x-summary' | 'x-pipeline' | 'x-steps' | 'x-details' | 'x-history';

function regions(model: ExecutionModel, selected: StepSelection, now: Date): Record<RegionId, Html> {
  return {
    'x-status': executionPill(model.execution.status),
    'x-actions': actions(model),
    'x-banner': banner(model, now),
    'x-summary': summary(model, now),
    'x-pipeline': pipelineSvg(model, selected),
    'x-steps': stepList(model, selected),
    'x-details': stepDetails(model, selected),
    'x-history': historyRows(model.history),
  };
}

/** Region id -> its HTML, for live updates: the page's script swaps each one in. */
export function executionFragments(model: ExecutionModel, selected: StepSelection, now: Date): Record<string, string> {
  return Object.fromEntries(Object.entries(regions(model, selected, now)).map(([id, part]) => [id, part.text]));
}

export function executionPage(model: ExecutionModel, layout: GraphLayout, requestedStep: StepSelection, now: Date): Html {
  const name = model.execution.name;
  const selected = knownSelection(model, requestedStep) ? requestedStep : model.defaultStep;
  const iteration = model.states.iterations.find((it) => it.index === selected);
  const svg = graphSvg(layout, (node) => (node.scope ? iteration?.states[node.state] : model.states.top[node.state]));
  const parts = regions(model, selected, now);
  const region = (id: RegionId) => parts[id];
  return pageShell(
    name,
    html`<div class="execution-page" data-name="${name}" data-stream="${streamHref(name)}" data-selected="${selected ?? ''}">
<nav class="crumbs" aria-label="Breadcrumb"><a href="/">Executions</a> / <span>${name}</span></nav>
<div class="title-row"><h1>${name}</h1><span id="x-status">${region('x-status')}</span><div id="x-actions" class="actions">${region('x-actions')}</div></div>
<p id="x-action-error" class="action-error" role="alert" hidden></p>
<div id="x-banner">${region('x-banner')}</div>
<section id="x-summary" class="summary" aria-label="Execution details">${region('x-summary')}</section>
<div class="columns">
<section class="panel graph-panel" aria-labelledby="graph-title">
<div class="graph-head"><h2 id="graph-title">Graph view</h2>
<div class="view-toggle" role="group" aria-label="Show">
<button type="button" data-view="pipeline" aria-pressed="true">Pipeline</button><button type="button" data-view="states" aria-pressed="false">State machine</button>
</div></div>
<div class="graph-view" data-graph-view="pipeline">
<p class="graph-caption">The pipeline's steps; an arrow goes from a step to each step that needs it.</p>
<div class="graph-scroll" id="x-pipeline">${region('x-pipeline')}</div>
${pipelineLegend()}
</div>
<div class="graph-view" data-graph-view="states" hidden>
<p class="graph-caption" id="x-graph-caption">${graphCaption(model, selected)}</p>
<div class="graph-scroll">${svg}</div>
${legend()}
</div>
</section>
<section class="panel steps-panel" aria-labelledby="steps-title">
<h2 id="steps-title">Steps <span class="muted">(RunSteps iterations)</span></h2>
<ol id="x-steps" class="steps">${region('x-steps')}</ol>
<div id="x-details">${region('x-details')}</div>
</section>
</div>
<section class="panel" aria-labelledby="history-title">
<h2 id="history-title">Event history</h2>
<div class="table-scroll">
<table class="history">
<thead><tr><th scope="col">ID</th><th scope="col">Type</th><th scope="col">State</th><th scope="col">Step</th><th scope="col">Elapsed</th><th scope="col">Timestamp</th><th scope="col">Detail</th></tr></thead>
<tbody id="x-history">${region('x-history')}</tbody>
</table>
</div>
</section>
</div>
<script type="application/json" id="x-model">${jsonForScript(clientModel(model))}</script>`,
  );
}

/** The console's "Stop execution" (while it runs) and "New execution" (same input). */
function actions(model: ExecutionModel): Html {
  const name = model.execution.name;
  const stop =
    model.execution.status === 'RUNNING'
      ? html`<button type="button" class="action action-stop" data-action="stop" data-href="${stopHref(name)}" data-confirm="Stop execution ${name}? Its running step is aborted and its pods are deleted.">Stop execution</button>`
      : '';
  // Step Functions' Redrive: the same execution goes on, only its steps that did not succeed run again.
  const redrive = model.execution.redrivable
    ? html`<button type="button" class="action" data-action="redrive" data-href="${redriveHref(name)}">Re-run failed steps</button>`
    : '';
  // A step waiting for a person: the decision, as `step-runner approve|reject` makes it (a comment asked for on the way).
  const decisions = model.steps
    .filter((s) => s.approval?.asked && s.outcome === 'waiting')
    .map(
      (s) =>
        html`<button type="button" class="action" data-action="approve" data-step="${s.name}" data-href="${decideHref(name, 'approve')}" data-comment="Approve step ${s.name}${s.approval?.message ? ` (${s.approval.message})` : ''}? A comment (optional):">Approve ${s.name}</button><button type="button" class="action action-stop" data-action="reject" data-step="${s.name}" data-href="${decideHref(name, 'reject')}" data-comment="Reject step ${s.name}? The build fails ApprovalRejected. A comment (optional):">Reject ${s.name}</button>`,
    );
  return html`${stop}${decisions}${redrive}<button type="button" class="action" data-action="rerun" data-href="${rerunHref(name)}">New execution</button>`;
}

/** An iteration of this execution, or a step it skipped; anything else falls back to the default. */
function knownSelection(model: ExecutionModel, selection: StepSelection): boolean {
  if (typeof selection === 'number') return model.steps.some((s) => s.index === selection);
  return selection !== null && isSkippedKey(selection) && model.listed.some((e) => 'skipped' in e && skippedKey(e.skipped) === selection);
}

function graphCaption(model: ExecutionModel, selected: StepSelection): Html {
  const step = model.steps.find((s) => s.index === selected);
  const skipped = model.listed.find((e) => 'skipped' in e && skippedKey(e.skipped) === selected);
  if (skipped && 'skipped' in skipped) return html`Inside RunSteps: step <strong>${skipped.skipped.name}</strong> was skipped, so it has no iteration`;
  return step
    ? html`Inside RunSteps: iteration <strong>${step.index + 1}</strong> of ${model.steps.length}, step <strong>${step.name}</strong>`
    : html`Inside RunSteps: no iteration yet`;
}

function legend(): Html {
  const shown: StateStatus[] = ['succeeded', 'failed', 'caught', 'in-progress', 'not-run', 'cancelled'];
  return html`<ul class="legend" aria-label="Legend">${shown.map((s) => html`<li><span class="swatch status-${s}"></span>${STATUS_LABELS[s]}</li>`)}</ul>`;
}

function pipelineLegend(): Html {
  const shown: StepOutcome[] = ['succeeded', 'failed', 'running', 'waiting', 'aborted', 'not-run', 'skipped'];
  return html`<ul class="legend" aria-label="Legend">${shown.map((s) => html`<li><span class="swatch status-${OUTCOME_CLASS[s]}"></span>${OUTCOME_LABELS[s]}</li>`)}</ul>`;
}

/** The banner's word on the running step: a step waiting for a node or for room gives the autoscaler's or the scheduler's words too. */
function pollLine(poll: PollState): string {
  const outcome = pollOutcome(poll);
  return isNamedWait(poll) && poll.message ? `${outcome} (${stripAnsi(poll.message)})` : outcome;
}

function pollHeadline(poll: PollState): Html {
  return isNamedWait(poll) ? html`<strong>${pollOutcome(poll)}</strong>` : html`<strong>${poll.phase}</strong> (${poll.reason})`;
}

function banner(model: ExecutionModel, now: Date): Html {
  const x = model.execution;
  if (model.failure) return failureBanner(model.failure, model.execution.status === 'RUNNING');
  if (x.status === 'SUCCEEDED') {
    return html`<section class="banner banner-succeeded"><h2>Execution succeeded</h2><p>${model.steps.length} step(s) in ${duration(Date.parse(x.stoppedAt ?? '') - Date.parse(x.startedAt))}.</p></section>`;
  }
  if (x.status === 'RUNNING') {
    const running = model.steps.filter((s) => s.outcome === 'running');
    const current = running[0] ?? model.steps.find((s) => s.status === 'in-progress');
    return html`<section class="banner banner-running"><h2>Running</h2><p>${
      running.length > 1
        ? html`Steps ${running.map((s, i) => html`${i > 0 ? ', ' : ''}<strong>${s.name}</strong>`)} side by side`
        : current ? html`Step <strong>${current.name}</strong> (${current.index + 1} of ${model.steps.length}): ${current.lastPoll ? pollLine(current.lastPoll) : 'launching'}` : 'Preparing the build'
    } · ${duration(now.getTime() - Date.parse(x.startedAt))} so far</p></section>`;
  }
  // Stopped with StopExecution's error and cause (a newer build superseded it): shown as the console does.
  const reason = x.status === 'ABORTED' && x.error
    ? html`<p><span class="error-label">Error</span> <code class="error-name">${x.error}</code></p>${x.cause ? html`<p class="cause-label">Cause</p><pre class="cause">${x.cause}</pre>` : ''}`
    : '';
  return html`<section class="banner banner-cancelled"><h2>Execution ${x.status.toLowerCase().replace('_', ' ')}</h2>${reason}</section>`;
}

function failureBanner(failure: Failure, stillRunning: boolean): Html {
  const where = failure.step
    ? html`in step <a href="?step=${failure.step.index}" data-step="${failure.step.index}">${failure.step.name}</a> (iteration ${failure.step.index + 1} of RunSteps)${failure.state ? html`, state <code>${failure.state}</code>` : ''}`
    : failure.state
      ? html`in state <code>${failure.state}</code>`
      : '';
  return html`<section class="banner banner-failed" role="alert" aria-labelledby="banner-title">
<h2 id="banner-title">${stillRunning ? 'A step failed' : 'Execution failed'}: <span class="error-label">Error</span> <code class="error-name">${failure.error}</code></h2>
${where ? html`<p class="where">${where}${stillRunning ? ' — cleaning up the build' : ''}</p>` : ''}
${failure.cause ? html`<p class="cause-label">Cause</p><pre class="cause">${ansiHtml(failure.cause)}</pre>` : ''}
</section>`;
}

function summary(model: ExecutionModel, now: Date): Html {
  const x = model.execution;
  const end = x.stoppedAt ? Date.parse(x.stoppedAt) : now.getTime();
  return html`<dl>
<div><dt>Trigger</dt><dd>${x.trigger ?? '—'}</dd></div>
<div><dt>Repository</dt><dd>${x.repository ?? '—'}</dd></div>
<div><dt>Commit</dt><dd>${x.commit ? html`<code title="${x.commit}">${x.commit.slice(0, 12)}</code>` : '—'}${x.ref ? html` <span class="muted">${x.ref}</span>` : ''}</dd></div>
<div><dt>Started</dt><dd>${timeTag(x.startedAt)}</dd></div>
<div><dt>Duration</dt><dd>${duration(end - Date.parse(x.startedAt))}${x.stoppedAt ? '' : ' so far'}</dd></div>
${x.cost ? costRow(x.cost, x.stoppedAt === null) : ''}
<div><dt>Execution ARN</dt><dd><code class="arn">${x.executionArn}</code></dd></div>
${x.rerunOf ? html`<div><dt>Re-run of</dt><dd><a href="${executionHref(x.rerunOf)}" data-rerun-of>${x.rerunOf}</a></dd></div>` : ''}
${x.reruns.length > 0 ? html`<div><dt>Re-runs</dt><dd>${x.reruns.map((r, i) => html`${i > 0 ? ', ' : ''}<a href="${executionHref(r)}" data-rerun>${r}</a>`)}</dd></div>` : ''}
</dl>`;
}

/** The build's cost (execution-cost.ts), its parts, the prices it is at, and where the way it is counted is written. */
function costRow(cost: NonNullable<ExecutionModel['execution']['cost']>, soFar: boolean): Html {
  const [usd, rest] = [`$${cost.usd.toFixed(4)}`, costWords(cost).replace(/^\S+ /, '')];
  return html`<div><dt>Cost</dt><dd data-cost><strong>${usd}</strong>${soFar ? ' so far' : ''} <span class="muted">${rest}; how it is counted: <code>${COST_DOCS}</code></span></dd></div>`;
}

function stepDetails(model: ExecutionModel, selected: StepSelection): Html {
  const skipped = model.listed.flatMap((e) => ('skipped' in e ? [e.skipped] : []));
  return html`${model.steps.map((s) => stepDetail(model, s, selected === s.index))}${skipped.map((s) => skippedDetail(s, selected === skippedKey(s)))}`;
}

function stepDetail(model: ExecutionModel, step: StepView, shown: boolean): Html {
  const name = model.execution.name;
  const result = step.result;
  const notRun = notRunNote(step, model.execution.status === 'RUNNING');
  return html`<section class="step-detail" data-step-detail="${step.index}" aria-label="Step ${step.name}"${shown ? '' : html` hidden`}>
<h3>${step.name} ${outcomePill(step.outcome)}</h3>
${step.needs && step.needs.length > 0 ? html`<p class="muted">Needs ${step.needs.join(', ')}</p>` : ''}
<p class="muted">Image <code>${step.image}</code>${step.imageCheck ? html` <span class="image-check">${step.imageCheck}</span>` : ''}</p>
${step.identity !== null ? html`<p class="muted">Identity <code data-identity>${step.identity}</code> (service account <code>${identityServiceAccount(step.identity)}</code>)</p>` : ''}
${notRun ?? ''}
${result ? html`<dl class="facts">
<div><dt>Result</dt><dd>${result.status}${result.exitCode !== null ? `, exit code ${result.exitCode}` : ''}${step.attempts > 1 ? html`, on attempt <span data-attempts>${step.attempts}</span>` : ''}</dd></div>
${result.error ? html`<div><dt>Error</dt><dd><code class="error-name">${result.error}</code></dd></div>` : ''}
${result.pushed ? html`<div><dt>Pushed</dt><dd><code data-pushed-digest>${result.pushed.digest}</code>${result.pushed.tags.length > 0 ? html` as ${result.pushed.tags.map((tag, i) => html`${i > 0 ? ', ' : ''}<code>${tag}</code>`)}` : ''}</dd></div>` : ''}
</dl>` : ''}
${step.lastPoll ? html`<h4>Last poll</h4><p>#${step.lastPoll.polls}: ${pollHeadline(step.lastPoll)}${step.lastPoll.message ? html` — <span class="message">${stripAnsi(step.lastPoll.message)}</span>` : ''}</p>` : ''}
${podSection(step.pod)}
${servicesSection(step)}
${testsSection(step.result?.tests)}
${artifactsSection(step, name)}
${logSection(step, logHref(name, step.index))}
</section>`;
}

/**
 * The step's services, each as its container was last seen (while the pod lived; then as the
 * step's result has it), its own events and the last lines of its log.
 */
function servicesSection(step: StepView): Html {
  if (step.services.length === 0) return html``;
  return html`<h4>Services</h4>
${step.services.map((service) => {
    const seen = step.pod?.services?.find((s) => s.name === service.name);
    const result = step.result?.services?.find((s) => s.name === service.name);
    const state = seen?.state ?? result?.state ?? 'not started';
    const exitCode = seen?.exitCode ?? result?.exitCode ?? null;
    const restarts = seen?.restarts ?? result?.restarts ?? 0;
    const events = (step.pod?.events ?? []).filter((e) => e.container === service.name);
    return html`<section class="service" aria-label="Service ${service.name}">
<h5><code>${service.name}</code> <span class="muted">image <code>${service.image}</code></span></h5>
<dl class="facts">
<div><dt>Container</dt><dd>${state}${seen?.reason ? html` <strong>${seen.reason}</strong>` : ''}${exitCode !== null ? ` (exit ${exitCode})` : ''}${restarts > 0 ? `, restarted ${restarts} time${restarts === 1 ? '' : 's'}` : ''}${seen?.message ? html`<br><span class="message">${stripAnsi(seen.message)}</span>` : ''}</dd></div>
</dl>
${events.length === 0 ? html`<p class="muted">No events.</p>` : eventsTable(events)}
${result ? html`${result.logTail ? html`<pre class="log">${ansiHtml(result.logTail)}</pre>` : html`<p class="muted">The service wrote nothing.</p>`}
${result.log ? html`<p class="muted">Whole log: <code>${result.log}</code></p>` : ''}` : ''}
</section>`;
  })}`;
}

/** What the step kept of its `artifacts:` (after a failure too), each with its download and sha256 to check it by. */
function artifactsSection(step: StepView, name: string): Html {
  const kept = step.result?.artifacts;
  if (!kept) return html``;
  if (kept.length === 0) return html`<h4>Artifacts</h4><p class="muted">The step kept no artifacts (its log says why).</p>`;
  return html`<h4>Artifacts</h4>
<div class="table-scroll"><table class="artifacts">
<thead><tr><th scope="col">Path</th><th scope="col">Size</th><th scope="col">sha256</th></tr></thead>
<tbody>${kept.map(
    (a, i) => html`<tr data-artifact="${i}"><td><a href="${artifactHref(name, step.index, i)}" download><code>${a.path}</code></a></td><td class="num">${byteSize(a.size)}</td><td><code class="sha256" title="${a.location}">${a.sha256}</code></td></tr>`,
  )}</tbody>
</table></div>`;
}

function podSection(pod: StepPodView | null): Html {
  if (!pod) return html`<h4>Pod</h4><p class="muted">Not created yet.</p>`;
  const c = pod.container;
  return html`<h4>Pod <code>${pod.podName}</code></h4>
<dl class="facts">
<div><dt>Phase</dt><dd>${pod.phase}${pod.deleted ? html` <span class="muted">(as last seen; the pod was deleted when its step ended)</span>` : ''}</dd></div>
${c ? html`<div><dt>Container</dt><dd>${c.state}${c.reason ? html` <strong>${c.reason}</strong>` : ''}${c.exitCode !== null ? ` (exit ${c.exitCode})` : ''}${c.message ? html`<br><span class="message">${stripAnsi(c.message)}</span>` : ''}</dd></div>` : ''}
${pod.node ? html`<div><dt>Node</dt><dd>${pod.node}</dd></div>` : ''}
</dl>
<h4>Events</h4>
${pod.events.length === 0 ? html`<p class="muted">No events.</p>` : eventsTable(pod.events)}`;
}

function eventsTable(events: PodEventView[]): Html {
  return html`<div class="table-scroll"><table class="pod-events">
<thead><tr><th scope="col">Type</th><th scope="col">Reason</th><th scope="col">From</th><th scope="col">Count</th><th scope="col">Last seen</th><th scope="col">Message</th></tr></thead>
<tbody>${events.map(
    (e) => html`<tr class="${e.type === 'Warning' ? 'warning' : ''}"><td>${e.type}</td><td><strong>${e.reason}</strong></td><td data-label="from">${e.source}</td><td data-label="count">${e.count}</td><td data-label="last seen">${timeTag(e.lastSeen, false)}</td><td class="message">${e.message}</td></tr>`,
  )}</tbody>
</table></div>`;
}

function logSection(step: StepView, href: string): Html {
  const result = step.result;
  if (!result && step.status === 'in-progress') {
    return html`<h4>Log <span class="muted">(as it runs)</span></h4>
${step.liveLog ? html`<pre class="log">${ansiHtml(step.liveLog)}</pre>` : html`<p class="muted">Nothing yet.</p>`}
<p><a href="${href}">Whole log so far</a></p>`;
  }
  if (!result) return html``;
  const local = result.log !== null && !result.log.startsWith('s3://');
  return html`<h4>Log</h4>
${result.logTail ? html`<pre class="log">${ansiHtml(result.logTail)}</pre>` : html`<p class="muted">The step wrote nothing.</p>`}
${local ? html`<p><a href="${href}">Whole log</a></p>` : result.log ? html`<p class="muted">Whole log: <code>${result.log}</code></p>` : ''}`;
}

function historyRows(rows: HistoryRow[]): Html {
  return html`${rows.map(
    (r) => html`<tr class="${r.failure ? 'failure' : ''}">
<td>${r.id}</td><td>${r.type}</td><td>${r.state ?? ''}</td><td class="nowrap">${r.step ? `${r.step.index + 1}. ${r.step.name}` : ''}</td><td class="num">${r.elapsedMs} ms</td><td>${timeTag(r.timestamp, false)}</td><td class="message">${r.detail ? stripAnsi(r.detail) : ''}</td>
</tr>`,
  )}`;
}
