/**
 * A build's test reports on its check run: the summary's tests section and an annotation per
 * failed test, on its own line or else on its step's, in requests of 50 that GitHub's schema
 * accepts (`@octokit/openapi`, "Update a check run").
 */
import { requestBodyProblems } from '../../test/fixtures/webhooks/github-openapi.js';
import { MAX_FAILURES, type TestFailure } from '../contract/test-summary.js';
import { checkRunCompletion, checkRunProgress, Endings, MAX_ANNOTATIONS_PER_REQUEST, type CheckStep } from './check-run.js';
import { testAnnotations, testsSection } from './test-annotations.js';

const jest: TestFailure = { name: 'sum adds negative numbers', classname: 'sum adds negative numbers', file: 'src/sum.test.js', line: 9, message: 'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: -4\nReceived: -3' };
const go: TestFailure = { name: 'TestNestedWithFailure', classname: 'github.com/o/r/internal/stub', message: 'Failed' };
const steps: CheckStep[] = [
  { name: 'clone', status: 'succeeded', line: 2 },
  { name: 'test', status: 'failed', error: 'StepFailed', line: 5, tests: { passed: 1, failed: 2, skipped: 1, durationMs: 2480, failures: [jest, go], problems: ['no file matches go/**/*.xml'] } },
];

describe('test reports on the check run', () => {
  it("annotates each failed test on its file and line, else on its step's line, after the step's own annotation", () => {
    const [first, ...more] = checkRunCompletion({ ending: Endings.failed, completedAt: '2026-12-06T10:00:00Z', failure: { Error: 'StepFailed', Cause: 'Step "test" exited with 1' }, steps, pipelineFile: '.step-runner.yml' });
    expect(more).toEqual([]);
    expect(first!.output?.annotations?.map((a) => [a.path, a.start_line, a.title])).toEqual([
      ['.step-runner.yml', 5, 'StepFailed in step "test"'],
      ['src/sum.test.js', 9, 'sum adds negative numbers failed (step "test")'],
      ['.step-runner.yml', 5, 'github.com/o/r/internal/stub › TestNestedWithFailure failed (step "test")'],
    ]);
    expect(first!.output?.annotations?.[1]?.message).toBe(jest.message);
    expect(first!.output?.summary).toContain('| `test` | 1 | 2 | 1 | 2.4 s |');
    expect(first!.output?.summary).toContain('| sum adds negative numbers | `src/sum.test.js:9` | Error: expect(received).toBe(expected) // Object.is equality Expected: -4 Received: -3 |');
    expect(first!.output?.summary).toContain('⚠️ `test`: no file matches go/\\*\\*/\\*.xml');
    expect(requestBodyProblems('checks/update', first)).toEqual([]);
  });

  it(`sends more than ${MAX_ANNOTATIONS_PER_REQUEST} in further requests, each one GitHub's schema accepts, and counts what no summary lists`, () => {
    const many = (step: string, line: number): CheckStep => ({
      name: step,
      status: 'failed',
      line,
      tests: { passed: 0, failed: 70, skipped: 0, failures: Array.from({ length: MAX_FAILURES }, (_, i) => ({ name: `t${i}`, classname: 'c', file: 'a_test.py', line: i + 1, message: 'assert 0' })) },
    });
    const bodies = checkRunCompletion({ ending: Endings.failed, completedAt: '2026-12-06T10:00:00Z', failure: { Error: 'StepFailed', Cause: 'x' }, steps: [many('a', 3), many('b', 7)], pipelineFile: 'ci.yml' });
    expect(bodies.map((b) => b.output?.annotations?.length)).toEqual([50, 50, 1]);
    for (const body of bodies) expect(requestBodyProblems('checks/update', body)).toEqual([]);
    expect(bodies[0]!.output?.summary).toContain("_20 more failed tests of this step not listed (nor annotated): the step's log and its reports have them._");
  });

  it('shows the counts while the build runs, and nothing of tests when no step has reports', () => {
    expect(checkRunProgress(steps).output?.summary).toContain('### Tests');
    expect(checkRunProgress([{ name: 'build', status: 'succeeded' }]).output?.summary).not.toContain('### Tests');
    expect(testsSection([{ name: 'build', status: 'succeeded' }], 1000)).toBe('');
  });

  it('leaves out a failure with no place when the pipeline file is not known', () => {
    expect(testAnnotations(steps, undefined).map((a) => a.path)).toEqual(['src/sum.test.js']);
  });

  it('keeps the section within its bytes, saying where the rest is', () => {
    const section = testsSection(steps, 200);
    expect(Buffer.byteLength(section)).toBeLessThanOrEqual(200);
    expect(section.endsWith("_The rest of the tests is on the execution's page._")).toBe(true);
  });
});
