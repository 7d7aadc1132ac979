/**
 * A build's test reports on its check run (pure): a section of the summary with each step's
 * counts and its failed tests, and a `failure` annotation for each failed test on its own file
 * and line (the report's, lib/workflow/junit-report.ts), else on the pipeline file's line of its
 * step. GitHub takes 50 annotations a request ("Update a check run"); check-run.ts sends the rest
 * in further requests, which GitHub appends. There are never many: a step's summary lists at most
 * MAX_FAILURES failures (it travels in the execution's state), and the failures past those are
 * counted in the summary instead.
 */
import type { StatusStep } from '../contract/index.js';
import { testsDuration, type TestFailure } from '../contract/test-summary.js';
import { truncate } from './commit-status.js';
import type { CheckAnnotation } from './github-api.js';
import { truncateUtf8, utf8Length } from './utf8-text.js';

/** The annotations of every failed test the steps' summaries list, in the steps' order. */
export function testAnnotations(steps: readonly StatusStep[], pipelineFile: string | undefined): CheckAnnotation[] {
  const annotations: CheckAnnotation[] = [];
  for (const step of steps) {
    for (const failure of step.tests?.failures ?? []) {
      const place = failure.file !== undefined && failure.line !== undefined ? { path: failure.file, line: failure.line } : pipelineFile && step.line !== undefined ? { path: pipelineFile, line: step.line } : undefined;
      if (!place) continue;
      annotations.push({
        path: place.path,
        start_line: place.line,
        end_line: place.line,
        annotation_level: 'failure',
        title: truncate(`${testName(failure)} failed (step "${step.name}")`, 200),
        message: truncate(failure.message.trim() || 'failed', 4_000),
        // Where the report put it, when the annotation could not go there.
        ...(place.path === pipelineFile && failure.file !== undefined ? { raw_details: `${failure.file}${failure.line !== undefined ? `:${failure.line}` : ''}` } : {}),
      });
    }
  }
  return annotations;
}

function testName(failure: Pick<TestFailure, 'name' | 'classname'>): string {
  // jest-junit's classname repeats the name; Surefire's and pytest's are the class or module.
  return failure.classname && failure.classname !== failure.name && !failure.name.startsWith(failure.classname) ? `${failure.classname} › ${failure.name}` : failure.name;
}

/**
 * `### Tests`: a row of counts per step with reports, then its failed tests, within `max` bytes
 * (the summary keeps the rest of its room for the steps' table); empty when no step had reports.
 */
export function testsSection(steps: readonly StatusStep[], max: number): string {
  const withTests = steps.filter((step) => step.tests);
  if (withTests.length === 0) return '';
  const lines = ['### Tests', '', '| Step | Passed | Failed | Skipped | Time |', '| --- | --- | --- | --- | --- |'];
  for (const step of withTests) {
    const { passed, failed, skipped, durationMs } = step.tests!;
    lines.push(`| ${code(step.name)} | ${passed} | ${failed} | ${skipped} | ${durationMs !== undefined ? testsDuration(durationMs) : ''} |`);
  }
  for (const step of withTests) {
    const tests = step.tests!;
    if (tests.failures.length > 0) {
      lines.push('', `**Failed in ${code(step.name)}**`, '', '| Test | Where | Message |', '| --- | --- | --- |');
      for (const failure of tests.failures) {
        const where = failure.file !== undefined ? `\`${failure.file}${failure.line !== undefined ? `:${failure.line}` : ''}\`` : '';
        lines.push(`| ${cell(testName(failure))} | ${where} | ${cell(truncate(failure.message.replace(/\s+/g, ' ').trim(), 300))} |`);
      }
      const more = tests.failed - tests.failures.length;
      if (more > 0) lines.push('', `_${more} more failed test${more === 1 ? '' : 's'} of this step not listed (nor annotated): the step's log and its reports have them._`);
    }
    for (const problem of tests.problems ?? []) lines.push('', `⚠️ ${code(step.name)}: ${cell(problem)}`);
  }
  const text = lines.join('\n');
  return utf8Length(text) <= max ? text : `${truncateUtf8(text, Math.max(0, max - 80))}\n\n_The rest of the tests is on the execution's page._`;
}

/** One line of a table cell, its Markdown and HTML characters read as themselves (a message may quote `<div>` or `**`). */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/([\\`*_[\]<>|])/g, '\\$1');
}

function code(name: string): string {
  return `\`${name.replace(/`/g, "'")}\``;
}
