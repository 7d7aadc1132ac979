/** The list of executions, newest first, as the Step Functions console lists them. Pure. */
import type { ListedExecution } from './execution-view.js';
import { duration, executionHref, executionPill, timeTag } from './format.js';
import { html, type Html } from './html.js';
import { pageShell } from './page-shell.js';

export const LIST_STREAM = '/console/stream';

/** `notice`: why the reader landed here instead (an execution this server does not have). */
export function listPage(executions: ListedExecution[], now: Date, notice?: string): Html {
  return pageShell(
    'Executions',
    html`<div class="list-page" data-stream="${LIST_STREAM}">
<h1>Executions</h1>
${notice ? html`<p class="banner banner-failed" role="alert">${notice}</p>` : ''}
<p class="muted">Builds started on this server, newest first. This list updates by itself.</p>
<div class="table-scroll">
<table class="executions">
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">Commit</th><th scope="col">Started</th><th scope="col">Duration</th><th scope="col">Error</th></tr></thead>
<tbody id="x-list">${listRows(executions, now)}</tbody>
</table>
</div>
</div>`,
  );
}

export function listRows(executions: ListedExecution[], now: Date): Html {
  if (executions.length === 0) {
    return html`<tr><td colspan="7" class="empty">No executions yet. A signed POST to /webhook or /webhook/generic starts one.</td></tr>`;
  }
  return html`${executions.map((x) => {
    const end = x.stoppedAt ? Date.parse(x.stoppedAt) : now.getTime();
    const commit = x.commit ? x.commit.slice(0, 7) : null;
    return html`<tr data-execution="${x.name}">
<td class="name"><a href="${executionHref(x.name)}">${x.name}</a></td>
<td>${executionPill(x.status)}</td>
<td>${x.trigger ?? '—'}</td>
<td>${x.repository ? html`<span class="repo">${x.repository}</span> ` : ''}${commit ? html`<code title="${x.commit}">${commit}</code>` : ''}${x.ref ? html` <span class="muted">${x.ref}</span>` : ''}</td>
<td>${timeTag(x.startedAt)}</td>
<td>${duration(end - Date.parse(x.startedAt))}${x.stoppedAt ? '' : '…'}</td>
<td>${x.error ? html`<code class="error-name">${x.error}</code>` : ''}</td>
</tr>`;
  })}`;
}
