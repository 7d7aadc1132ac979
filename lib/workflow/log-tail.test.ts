import { readFileSync } from 'node:fs';
import { causeLogTail, logTail } from './log-tail.js';

/** Failing output of the tools: npm 10 (`npm ci` without a lockfile) and pytest 9 (with and without `-rN`) as recorded, go test ./... and npm 6 as they print it. */
const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/tool-failures/${name}`, import.meta.url), 'utf8');

const MARK = '… (earlier, where the last error begins:)';

describe('causeLogTail', () => {
  it.each<[string, string, string[]]>([
    [
      'npm ci without a lockfile: the reason, above 90 lines of usage',
      'npm-ci-no-lockfile.txt',
      [
        'npm error code EUSAGE',
        'npm error The `npm ci` command can only install with an existing package-lock.json or',
        'npm error npm-shrinkwrap.json with lockfileVersion >= 1. Run an install with npm@5 or',
      ],
    ],
    [
      'pytest: the E lines, above 25 lines of captured output',
      'pytest.txt',
      ['E       assert 4 == 5', 'E        +  where 4 = inc(3)', 'test_sample.py:12: AssertionError'],
    ],
    [
      'pytest -rN: no summary line, only "1 failed" in the tail',
      'pytest-no-summary.txt',
      ['E       assert 4 == 5', 'E        +  where 4 = inc(3)', 'test_sample.py:12: AssertionError'],
    ],
    [
      'go test ./...: the failed test, above every later package\'s ok line',
      'go-test.txt',
      ['--- FAIL: TestAdd (0.00s)', '    add_test.go:9: Add(1, 2) = 4, want 3', 'FAIL'],
    ],
  ])('%s', (_title, file, excerpt) => {
    const log = fixture(file);
    const tail = logTail(log);
    expect(tail).not.toContain(excerpt[0]);
    expect(causeLogTail(log)).toBe(`${MARK}\n${excerpt.join('\n')}\n…\n${tail}`);
  });

  it.each([
    ['npm 6, whose error fits in the tail', 'npm6-missing-script.txt'],
    ['a log with no error at all', null],
  ])('is the plain tail for %s', (_title, file) => {
    const log = file ? fixture(file) : Array.from({ length: 40 }, (_, i) => `compiled module ${i}`).join('\n');
    expect(causeLogTail(log)).toBe(logTail(log));
  });

  it('keeps the excerpt short whatever the error line\'s length', () => {
    const log = [`Error: ${'x'.repeat(5000)}`, ...Array.from({ length: 30 }, (_, i) => `line ${i}`)].join('\n');
    const excerpt = causeLogTail(log).split('\n…\n')[0] ?? '';
    expect(excerpt.length).toBeLessThanOrEqual(MARK.length + 1 + 200);
  });

  it('does not take a name that contains "error" for an error', () => {
    const log = ['cp src/errors.ts dist/', 'mv terror-report.txt out/', ...Array.from({ length: 25 }, (_, i) => `line ${i}`)].join('\n');
    expect(causeLogTail(log)).toBe(logTail(log));
  });
});
