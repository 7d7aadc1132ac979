/**
 * A step's test reports on the console page (`reports:`): the counts, what could not be read, and
 * a table of the failed tests with where each failed and its message, as the check run shows them.
 */
import type { TestSummary } from '../contract/test-summary.js';
import { html, type Html } from './html.js';
import { stripAnsi } from './ansi.js';
import { duration } from './format.js';

export function testsSection(tests: TestSummary | undefined): Html {
  if (!tests) return html``;
  const more = tests.failed - tests.failures.length;
  return html`<h4>Tests</h4>
<p data-tests><span class="tests-passed">${tests.passed} passed</span>, ${tests.failed > 0 ? html`<span class="tests-failed">${tests.failed} failed</span>` : `${tests.failed} failed`}, ${tests.skipped} skipped${tests.durationMs !== undefined ? html` <span class="muted">(${duration(tests.durationMs)})</span>` : ''}</p>
${(tests.problems ?? []).map((problem) => html`<p class="message" data-tests-problem>⚠ ${problem}</p>`)}
${tests.failures.length > 0 ? html`<div class="table-scroll"><table class="failed-tests">
<thead><tr><th scope="col">Failed test</th><th scope="col">Where</th><th scope="col">Message</th></tr></thead>
<tbody>${tests.failures.map(
    (failure) => html`<tr class="failure"><td>${failure.classname && failure.classname !== failure.name && !failure.name.startsWith(failure.classname) ? html`<span class="muted">${failure.classname}</span> ` : ''}${failure.name}</td><td>${failure.file !== undefined ? html`<code>${failure.file}${failure.line !== undefined ? `:${failure.line}` : ''}</code>` : ''}</td><td><pre class="test-message">${stripAnsi(failure.message)}</pre></td></tr>`,
  )}</tbody>
</table></div>` : ''}
${more > 0 ? html`<p class="muted">${more} more failed test${more === 1 ? '' : 's'} not listed (the step's log and its reports have them).</p>` : ''}`;
}
