import { labelValue, stepPodName } from './pod-name.js';

const dns1123Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const labelValuePattern = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

describe('stepPodName', () => {
  it('is readable and deterministic', () => {
    const name = stepPodName('build-42', 'test');
    expect(name).toMatch(/^build-42-test-[0-9a-f]{8}$/);
    expect(stepPodName('build-42', 'test')).toBe(name);
  });

  it.each([
    ['42', 'test'],
    ['Repo/Name#17', 'Unit Tests'],
    ['--', '--'],
    ['', ''],
    ['x'.repeat(200), 'step'],
    ['build', 'é'.repeat(100)],
    ['9'.repeat(70), '-'.repeat(70)],
  ])('gives a DNS-1123 label of at most 63 characters starting with a letter for (%j, %j)', (build, step) => {
    const name = stepPodName(build, step);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(dns1123Label);
  });

  it("gives each retry of a step a pod of its own, readable and within the limits, and the first attempt today's name", () => {
    expect(stepPodName('build-42', 'test', 0)).toBe(stepPodName('build-42', 'test'));
    expect(stepPodName('build-42', 'test', 1)).toMatch(/^build-42-test-2-[0-9a-f]{8}$/);
    const names = new Set([0, 1, 2].map((attempt) => stepPodName('build-42', 'test', attempt)));
    expect(names.size).toBe(3);
    // A step named like another's retry still gets a name of its own.
    expect(stepPodName('build-42', 'test-2')).not.toBe(stepPodName('build-42', 'test', 1));
    const long = stepPodName('x'.repeat(200), 'step', 4);
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(dns1123Label);
  });

  it('gives a re-run (a redrive) of a step pods of their own, its retries too, and leaves the first run its names', () => {
    expect(stepPodName('build-42', 'test', 0, 0)).toBe(stepPodName('build-42', 'test'));
    expect(stepPodName('build-42', 'test', 1, 0)).toBe(stepPodName('build-42', 'test', 1));
    expect(stepPodName('build-42', 'test', 0, 1)).toMatch(/^build-42-test-r1-[0-9a-f]{8}$/);
    expect(stepPodName('build-42', 'test', 1, 2)).toMatch(/^build-42-test-r2-2-[0-9a-f]{8}$/);
    const names = [0, 1].flatMap((attempt) => [0, 1, 2].map((redrive) => stepPodName('build-42', 'test', attempt, redrive)));
    expect(new Set(names).size).toBe(6);
    const long = stepPodName('x'.repeat(200), 'step', 4, 12);
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(dns1123Label);
  });

  it('never lets sanitising or truncation make two different steps share a name', () => {
    const long = 'a'.repeat(80);
    const pairs: [string, string][] = [
      ['Build_1', 'test'],
      ['build-1', 'test'],
      ['build.1', 'test'],
      ['build', '1-test'],
      [`${long}1`, 'test'],
      [`${long}2`, 'test'],
      ['b', 'Test'],
      ['b', 'test'],
    ];
    const names = new Set(pairs.map(([b, s]) => stepPodName(b, s)));
    expect(names.size).toBe(pairs.length);
  });
});

describe('labelValue', () => {
  it('keeps a valid value as it is', () => {
    expect(labelValue('Build_1.2-x')).toBe('Build_1.2-x');
  });

  it.each(['a/b c', '-x-', '_.lead and trail._', 'y'.repeat(100), '///', 'ünïcode', `${'z'.repeat(62)}..q`])(
    'makes %j acceptable to Kubernetes',
    (text) => {
      const value = labelValue(text);
      expect(value.length).toBeLessThanOrEqual(63);
      expect(value).toMatch(labelValuePattern);
    },
  );
});
