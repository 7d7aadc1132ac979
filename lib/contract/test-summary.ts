/**
 * What a step's `reports: {junit: [...]}` told of its tests (lib/workflow/junit-report.ts reads
 * them): `steps[].tests` in `run --json` and `GET /executions/NAME`, the step's result, the
 * console page and the check run's summary and annotations all show this one shape.
 */

/** One failed test (a `<failure>` or an `<error>` of its `<testcase>`). */
export interface TestFailure {
  name: string;
  classname: string;
  /** Relative to the workspace (the repository's root); absent when the report does not tell. */
  file?: string;
  /** 1-based, in `file`; absent when the report does not tell. */
  line?: number;
  /** The failure's message, cut (MAX_FAILURE_MESSAGE). */
  message: string;
}

export interface TestSummary {
  passed: number;
  failed: number;
  skipped: number;
  /**
   * How long the tests took, in milliseconds: the sum of the test cases' `time` (seconds), as
   * GitLab adds up a suite's time (gitlabhq/gitlabhq lib/gitlab/ci/reports/test_suite.rb,
   * add_test_case). Absent: no report gave a time.
   */
  durationMs?: number;
  /**
   * The first MAX_FAILURES of the failed tests, in the reports' order: the summary travels in the
   * execution's state (256 KiB at most), so `failed` may count more than are listed here.
   */
  failures: TestFailure[];
  /** What could not be read (a file that is no JUnit XML, a glob that matched nothing); absent: none. */
  problems?: string[];
}

/** The failed tests a summary lists at most (and so, at most, a step's annotations). */
export const MAX_FAILURES = 50;
/** A failure's message is cut at this many characters (a log tail of its own is in the step's log). */
export const MAX_FAILURE_MESSAGE = 500;
/** The problems a summary lists at most. */
export const MAX_REPORT_PROBLEMS = 10;

/** `105 ms`, `2.4 s`, `3 min 12 s`: a summary's durationMs, in the step's log and the check run's tests table. */
export function testsDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.floor((ms % 60_000) / 1000)} s`;
}
