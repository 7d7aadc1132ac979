/**
 * The JUnit dialects from their reporters' own output (test/fixtures/junit): jest-junit's and
 * pytest's written by running them (generate.mjs), gotestsum's and Surefire's from the projects'
 * own fixtures (cited in each file).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MAX_FAILURE_MESSAGE, MAX_FAILURES } from '../contract/test-summary.js';
import { failureMessage, readJUnitReport, summarizeTests, workspaceFile, type TestCaseResult } from './junit-report.js';

const fixture = (name: string) => readFileSync(path.join('test', 'fixtures', 'junit', name), 'utf8');
const failed = (cases: TestCaseResult[]) => cases.filter((c) => c.status === 'failed').map(({ status: _s, ...rest }) => rest);
const counts = (cases: TestCaseResult[]) => ({ passed: cases.filter((c) => c.status === 'passed').length, failed: cases.filter((c) => c.status === 'failed').length, skipped: cases.filter((c) => c.status === 'skipped').length });

describe('a JUnit report of each dialect', () => {
  it.each([
    [
      'jest-junit (file attribute, the line from its frame in the stack, node_modules frames passed over)',
      'jest-junit.xml',
      'reports/junit.xml',
      { passed: 1, failed: 1, skipped: 1 },
      [{ name: 'sum adds negative numbers', classname: 'sum adds negative numbers', file: 'src/sum.test.js', line: 9, message: 'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: -4\nReceived: -3' }],
    ],
    [
      'pytest xunit2, the default (no file attribute: the traceback\'s path:line)',
      'pytest-xunit2.xml',
      'reports/pytest.xml',
      { passed: 1, failed: 1, skipped: 1 },
      [{ name: 'test_adds_negative', classname: 'tests.test_calc', file: 'tests/test_calc.py', line: 13, message: 'assert -3 == -4\n +  where -3 = add(-1, -2)' }],
    ],
    [
      'pytest xunit1 (file and a 0-based line: the def on line 12)',
      'pytest-xunit1.xml',
      'reports/pytest.xml',
      { passed: 1, failed: 1, skipped: 1 },
      [{ name: 'test_adds_negative', classname: 'tests.test_calc', file: 'tests/test_calc.py', line: 12, message: 'assert -3 == -4\n +  where -3 = add(-1, -2)' }],
    ],
    [
      'gotestsum (message "Failed": the output\'s t.Error line; the file in the package\'s folder of a github.com module)',
      'gotestsum.xml',
      'junit.xml',
      { passed: 2, failed: 5, skipped: 1 },
      [
        { name: 'TestMain', classname: '', message: 'sometimes main can exit 2\nFAIL\tgithub.com/gotestyourself/gotestyourself/testjson/internal/badmain\t0.010s' },
        { name: 'TestFailed', classname: 'github.com/gotestyourself/gotestyourself/testjson/internal/stub', file: 'testjson/internal/stub/stub_test.go', line: 34, message: 'stub_test.go:34: this failed' },
        { name: 'TestFailedWithStderr', classname: 'github.com/gotestyourself/gotestyourself/testjson/internal/stub', file: 'testjson/internal/stub/stub_test.go', line: 43, message: 'this is stderr\nstub_test.go:43: also failed' },
        { name: 'TestNestedWithFailure/c', classname: 'github.com/gotestyourself/gotestyourself/testjson/internal/stub', file: 'testjson/internal/stub/stub_test.go', line: 65, message: 'stub_test.go:65: failed' },
        { name: 'TestNestedWithFailure', classname: 'github.com/gotestyourself/gotestyourself/testjson/internal/stub', message: 'Failed' },
      ],
    ],
    [
      "Maven Surefire (an <error>: the test method's frame, in the module's src/test/java)",
      'surefire.xml',
      'core/target/surefire-reports/TEST-surefire.MyTest.xml',
      { passed: 0, failed: 1, skipped: 0 },
      [{ name: 'test', classname: 'surefire.MyTest', file: 'core/src/test/java/surefire/MyTest.java', line: 13, message: 'this is different message' }],
    ],
  ])('%s', (_what, file, reportPath, expectedCounts, failures) => {
    const read = readJUnitReport(reportPath, fixture(file));
    if (!read.ok) throw new Error(read.problem);
    expect(counts(read.cases)).toEqual(expectedCounts);
    expect(failed(read.cases)).toEqual(failures);
  });

  it.each([
    ['jest-junit.xml', 0.003],
    ['pytest-xunit2.xml', 0.002],
    ['pytest-xunit1.xml', 0],
    ['gotestsum.xml', 0],
    ['surefire.xml', 0.1],
  ])("%s: its test cases' times added up, %s s (not its suites': a suite's time holds its setup too)", (file, seconds) => {
    const read = readJUnitReport('r.xml', fixture(file));
    expect(read.ok && read.seconds).toBeCloseTo(seconds, 9);
  });

  it('has no time when no test case gives one', () => {
    expect(readJUnitReport('r.xml', '<testsuite time="3"><testcase name="a"/><testcase name="b" time="soon"/></testsuite>')).toEqual({ ok: true, cases: [expect.objectContaining({ name: 'a' }), expect.objectContaining({ name: 'b' })] });
  });

  it.each([
    ['a report cut short', fixture('broken.xml'), 'reports/broken.xml is not well-formed XML: it ends before its elements are closed (cut short?)'],
    ['a closing tag that does not match', '<testsuite><testcase name="a"></testsuite>', "reports/broken.xml is not well-formed XML (line 1: Expected closing tag 'testcase' (opened in line 1, col 12) instead of closing tag 'testsuite')"],
    ['no XML at all', 'PASS src/sum.test.js', "reports/broken.xml is not well-formed XML (line 1: char 'P' is not expected)"],
    ['XML of something else', '<coverage line-rate="1"/>', 'reports/broken.xml is XML but no JUnit report (no <testsuites> or <testsuite> at its root)'],
  ])('%s is a problem, said with the file', (_what, text, problem) => {
    expect(readJUnitReport('reports/broken.xml', text)).toEqual({ ok: false, problem });
  });
});

describe('the step\'s summary of its reports', () => {
  it('sums every report, lists the failures in order, and says what could not be read', () => {
    const summary = summarizeTests(
      [
        { path: 'reports/junit.xml', text: fixture('jest-junit.xml') },
        { path: 'reports/broken.xml', text: fixture('broken.xml') },
        { path: 'reports/huge.xml', problem: 'reports/huge.xml is 30 MB: not read (at most 5 MB)' },
        { path: 'reports/pytest.xml', text: fixture('pytest-xunit2.xml') },
      ],
      ['go/**/*.xml'],
    );
    expect(summary).toEqual({
      passed: 2,
      failed: 2,
      skipped: 2,
      // jest-junit's 0.002 + 0.001 s and pytest's 0.002 s.
      durationMs: 5,
      failures: [expect.objectContaining({ file: 'src/sum.test.js', line: 9 }), expect.objectContaining({ file: 'tests/test_calc.py', line: 13 })],
      problems: ['no file matches go/**/*.xml', 'reports/broken.xml is not well-formed XML: it ends before its elements are closed (cut short?)', 'reports/huge.xml is 30 MB: not read (at most 5 MB)'],
    });
  });

  it(`keeps the first ${MAX_FAILURES} failures of many, each message cut at ${MAX_FAILURE_MESSAGE} characters, and counts them all`, () => {
    const cases = Array.from({ length: 120 }, (_, i) => `<testcase classname="c" name="t${i}"><failure message="${'é'.repeat(900)}"/></testcase>`).join('');
    const summary = summarizeTests([{ path: 'r.xml', text: `<testsuite>${cases}<testcase name="ok"/></testsuite>` }]);
    expect({ passed: summary.passed, failed: summary.failed, listed: summary.failures.length, first: summary.failures[0]!.name, last: summary.failures.at(-1)!.name }).toEqual({ passed: 1, failed: 120, listed: MAX_FAILURES, first: 't0', last: `t${MAX_FAILURES - 1}` });
    expect(Array.from(summary.failures[0]!.message)).toHaveLength(MAX_FAILURE_MESSAGE);
    expect(summary.failures[0]!.message.endsWith('é…')).toBe(true);
    expect(JSON.stringify(summary).length).toBeLessThan(40 * 1024);
  });

  it('is all zeros with no report, and no problems then', () => {
    expect(summarizeTests([])).toEqual({ passed: 0, failed: 0, skipped: 0, failures: [] });
  });
});

describe('where a failure points', () => {
  it.each([
    ['src/a.test.js', 'src/a.test.js'],
    ['./src/a.test.js', 'src/a.test.js'],
    ['/workspace/src/a.test.js', 'src/a.test.js'],
    ['/home/runner/src/a.test.js', undefined],
    ['/workspace/node_modules/jest-circus/build/x.js', undefined],
    ['../elsewhere.py', undefined],
    ['node:internal/process/task_queues', undefined],
  ])('%s -> %s', (given, file) => {
    expect(workspaceFile(given)).toBe(file);
  });

  it.each([
    ['a Go test in a package relative to the module (gotestsum --junitfile-testcase-classname relative)', 'internal/stub', { file: 'internal/stub/stub_test.go', line: 34 }],
    ['a Go test of the module\'s root package', '.', { file: 'stub_test.go', line: 34 }],
    ['a Go module that is not host/owner/repo: no file', 'example.com/stub', {}],
  ])('%s', (_what, classname, place) => {
    const read = readJUnitReport('junit.xml', `<testsuites><testsuite name="x"><testcase classname="${classname}" name="TestFailed"><failure message="Failed">=== RUN   TestFailed&#xA;--- FAIL: TestFailed (0.00s)&#xA;&#x9;stub_test.go:34: this failed&#xA;</failure></testcase></testsuite></testsuites>`);
    expect(read.ok && read.cases[0]).toEqual({ name: 'TestFailed', classname, status: 'failed', ...place, message: 'stub_test.go:34: this failed' });
  });

  it("finds jest-junit's file in a package's folder (jest run in web/): the file relative to it, its frame in the stack whole", () => {
    const report = fixture('jest-junit.xml').replaceAll('/workspace/src/', '/workspace/web/src/');
    const read = readJUnitReport('web/reports/junit.xml', report);
    expect(read.ok && failed(read.cases).map((c) => [c.file, c.line])).toEqual([['web/src/sum.test.js', 9]]);
  });

  it('takes no host:port of a message for a file and line', () => {
    const read = readJUnitReport('r.xml', '<testsuite><testcase classname="c" name="t"><failure>Error: connect ECONNREFUSED db.example.com:5432\n    at TCPConnectWrap.afterConnect (node:net:1555:16)\n    at Object.&lt;anonymous&gt; (/workspace/test/db.test.ts:20:3)</failure></testcase></testsuite>');
    expect(read.ok && read.cases[0]).toMatchObject({ file: 'test/db.test.ts', line: 20 });
  });

  it.each([
    ['the message attribute when it says something', 'expected:<1> but was:<2>', 'java.lang.AssertionError\n\tat x.Y.z(Y.java:3)', 'expected:<1> but was:<2>'],
    ['the text above the stack when there is none', undefined, 'Error: boom\n\n    at Object.<anonymous> (/workspace/a.test.js:1:1)', 'Error: boom'],
    ["the text when the attribute is gotestsum's \"Failed\"", 'Failed', '=== RUN   TestX\n--- FAIL: TestX (0.00s)\n    x_test.go:3: nope\n', 'x_test.go:3: nope'],
    ['"failed" when neither says anything', '', '', 'failed'],
  ])('a failure\'s message: %s', (_what, message, text, expected) => {
    expect(failureMessage(message, text)).toBe(expected);
  });
});
