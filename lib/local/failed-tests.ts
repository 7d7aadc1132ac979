/**
 * The failed tests `run` prints at a build's end, before its Error and Cause (pure): what a person
 * reads first of a failed build is which tests failed and where, as the check run shows them on
 * the pull request. Each step's tests are its FinishStep's (StepResult.tests, the last attempt's).
 */
import type { TestSummary } from '../contract/test-summary.js';

/** Failures printed at most, all steps together; `run --json` has each step's listed ones. */
const MAX_PRINTED = 20;
/** Lines of a failure's message printed. */
const MESSAGE_LINES = 4;

export function failedTestLines(tests: ReadonlyMap<string, TestSummary>): string[] {
  const lines: string[] = [];
  let printed = 0;
  let left = 0;
  for (const [step, summary] of tests) {
    for (const problem of summary.problems ?? []) lines.push(`  ⚠ test reports of step "${step}": ${problem}`);
    if (summary.failed === 0) continue;
    lines.push(`  Failed tests of step "${step}" (${summary.failed} of ${summary.passed + summary.failed + summary.skipped}):`);
    for (const failure of summary.failures) {
      if (printed === MAX_PRINTED) {
        left++;
        continue;
      }
      printed++;
      const where = failure.file !== undefined ? `  ${failure.file}${failure.line !== undefined ? `:${failure.line}` : ''}` : '';
      const name = failure.classname && failure.classname !== failure.name && !failure.name.startsWith(failure.classname) ? `${failure.classname} › ${failure.name}` : failure.name;
      lines.push(`    ✗ ${name}${where}`);
      const message = failure.message.split('\n').filter((line) => line.trim() !== '');
      for (const line of message.slice(0, MESSAGE_LINES)) lines.push(`        ${line}`);
      if (message.length > MESSAGE_LINES) lines.push('        …');
    }
    left += summary.failed - summary.failures.length;
  }
  if (left > 0) lines.push(`  … and ${left} more failed test${left === 1 ? '' : 's'} (run --json: steps[].tests; each step's log)`);
  return lines;
}
