import { ConsoleOutput } from './console-output.js';
import type { ExecutionEvent } from '../emulators/stepfunctions/executor.js';

let t = 1_700_000_000_000;
const exited = (name: string, index: number | undefined, output: unknown): ExecutionEvent => ({
  type: 'StateExited',
  timestamp: (t += 1000),
  state: { name, type: 'Task', output },
  ...(index === undefined ? {} : { index }),
});
const poll = (polls: number, phase: string, reason: string) => exited('PollStep', 0, { poll: { podName: 'p', phase, reason, polls } });

describe('the console lines', () => {
  it('fold polls with the same outcome into one line and a count', () => {
    const output = new ConsoleOutput('b');
    const history: ExecutionEvent[] = [
      { type: 'ExecutionStarted', timestamp: t },
      exited('PrepareBuild', undefined, { namespace: 'default', steps: [{ name: 'long', image: 'alpine:3.20' }] }),
      poll(1, 'running', 'Running'),
      poll(2, 'running', 'Running'),
      poll(3, 'running', 'Running'),
      poll(4, 'succeeded', 'Completed'),
      { type: 'TaskSucceeded', timestamp: (t += 10), index: 0, state: { name: 'FinishStep', type: 'Task', output: { step: 'long', status: 'succeeded', exitCode: 0, error: null, cause: null, logTail: 'done', log: '/logs/long.log' } } },
    ];
    const lines = history.flatMap((event) => output.lines(event));
    expect(lines.filter((line) => line.includes('PollStep') || line.includes('same for'))).toEqual([
      '      · PollStep #1: running (Running)',
      '        (same for 3 polls in a row)',
      '      · PollStep #4: succeeded (Completed)',
    ]);
    expect(lines.slice(-3)).toEqual(['      ✓ FinishStep: succeeded, exit 0; pod deleted', '        │ done', '        log: /logs/long.log']);
  });
});

const finish = (index: number, step: string): ExecutionEvent => ({
  type: 'TaskSucceeded',
  timestamp: (t += 10),
  index,
  state: { name: 'FinishStep', type: 'Task', output: { step, status: 'succeeded', exitCode: 0, error: null, cause: null, logTail: '', log: null } },
});
const iteration = (type: string, index: number): ExecutionEvent => ({ type, timestamp: (t += 1), index, parentState: { name: 'RunSteps', type: 'Map' } });

describe('the console lines of steps side by side', () => {
  const needs = (index: number, met: boolean, waitingFor: string[], done: string[]) =>
    exited('WaitForNeeds', index, { needs: { met, waitingFor, done, nextPollSeconds: 0, checks: 1 } });
  const prepared = (steps: unknown[]) => exited('PrepareBuild', undefined, { namespace: 'default', maxParallel: 4, steps });
  const alpine = (name: string, more: object = {}) => ({ name, image: 'alpine:3.20', ...more });

  it('name each step\'s lines, say what a step waits for once, and that a needed pod is kept', () => {
    const output = new ConsoleOutput('b');
    const history: ExecutionEvent[] = [
      { type: 'ExecutionStarted', timestamp: t },
      prepared([alpine('deps', { needed: true }), alpine('unit', { needs: ['deps'] }), alpine('lint', { needs: ['deps'] })]),
      { type: 'StateEntered', timestamp: (t += 1), state: { name: 'RunSteps', type: 'Map' } },
      needs(1, false, ['deps'], []),
      needs(1, false, ['deps'], []),
      needs(2, false, ['deps'], []),
      finish(0, 'deps'),
      iteration('MapIterationSucceeded', 0),
      needs(1, true, [], ['deps']),
      finish(1, 'unit'),
    ];
    const lines = history.flatMap((event) => output.lines(event));
    expect(lines.filter((line) => /RunSteps|WaitForNeeds|FinishStep/.test(line))).toEqual([
      '  ▶ RunSteps: 3 step(s), up to 4 at once, each after the steps it needs',
      '      unit · WaitForNeeds: waiting for "deps"',
      '      lint · WaitForNeeds: waiting for "deps"',
      '      deps ✓ FinishStep: succeeded, exit 0; pod kept for the steps that need it',
      '      unit ✓ WaitForNeeds: "deps" succeeded',
      '      unit ✓ FinishStep: succeeded, exit 0; pod deleted',
    ]);
  });

  it('show a step that needs others as waiting until its pod is launched, and one that never starts as never started', () => {
    const output = new ConsoleOutput('b');
    const history: ExecutionEvent[] = [
      { type: 'ExecutionStarted', timestamp: t },
      prepared([alpine('deps', { needed: true }), alpine('unit', { needs: ['deps'] }), alpine('e2e', { needs: ['deps', 'unit'] })]),
      { type: 'StateEntered', timestamp: (t += 1), state: { name: 'RunSteps', type: 'Map' } },
      iteration('MapIterationStarted', 0),
      iteration('MapIterationStarted', 1),
      iteration('MapIterationStarted', 2),
      exited('LaunchStep', 0, { poll: { podName: 'deps-pod' } }),
      needs(1, false, ['deps'], []),
      needs(2, false, ['unit'], ['deps']),
      finish(0, 'deps'),
      iteration('MapIterationSucceeded', 0),
      needs(1, true, [], ['deps']),
      exited('LaunchStep', 1, { poll: { podName: 'unit-pod' } }),
      { ...iteration('MapIterationFailed', 1), Error: 'StepFailed' },
      { ...iteration('MapIterationFailed', 2), Error: 'StepFailed' },
    ];
    const lines = history.flatMap((event) => output.lines(event));
    expect(lines.filter((line) => /\[\d\/3\]|WaitForNeeds|LaunchStep/.test(line))).toEqual([
      '    ▶ [1/3] deps',
      '    · [2/3] unit: waiting for "deps"',
      '    · [3/3] e2e: waiting for "deps", "unit"',
      '      deps ✓ LaunchStep: pod deps-pod',
      '      e2e · WaitForNeeds: waiting for "unit"',
      '    ✓ [1/3] deps succeeded',
      '      unit ✓ WaitForNeeds: "deps" succeeded',
      '    ▶ [2/3] unit',
      '      unit ✓ LaunchStep: pod unit-pod',
      '    ✗ [2/3] unit: StepFailed',
      '    ✗ [3/3] e2e: StepFailed',
    ]);
  });

  it("say a step's needs are met only after each needed step said it succeeded", () => {
    const output = new ConsoleOutput('b');
    // WaitForNeeds watches the pods: it sees deps' pod succeed before deps' own PollStep does.
    const history: ExecutionEvent[] = [
      { type: 'ExecutionStarted', timestamp: t },
      prepared([alpine('deps', { needed: true }), alpine('unit', { needs: ['deps'], needed: true }), alpine('lint', { needs: ['deps'], needed: true }), alpine('e2e', { needs: ['unit', 'lint'] })]),
      { type: 'StateEntered', timestamp: (t += 1), state: { name: 'RunSteps', type: 'Map' } },
      needs(1, true, [], ['deps']),
      exited('LaunchStep', 1, { poll: { podName: 'unit-pod' } }),
      needs(2, true, [], ['deps']),
      finish(0, 'deps'),
      iteration('MapIterationSucceeded', 0),
      finish(2, 'lint'),
      needs(3, true, [], ['unit', 'lint']),
      iteration('MapIterationSucceeded', 2),
      finish(1, 'unit'),
      iteration('MapIterationSucceeded', 1),
    ];
    const lines = history.flatMap((event) => output.lines(event));
    expect(lines.filter((line) => /WaitForNeeds|succeeded|LaunchStep/.test(line))).toEqual([
      '      deps ✓ FinishStep: succeeded, exit 0; pod kept for the steps that need it',
      '    ✓ [1/4] deps succeeded',
      '      unit ✓ WaitForNeeds: "deps" succeeded',
      '      unit ✓ LaunchStep: pod unit-pod',
      '      lint ✓ WaitForNeeds: "deps" succeeded',
      '      lint ✓ FinishStep: succeeded, exit 0; pod kept for the steps that need it',
      '    ✓ [3/4] lint succeeded',
      '      unit ✓ FinishStep: succeeded, exit 0; pod kept for the steps that need it',
      '    ✓ [2/4] unit succeeded',
      '      e2e ✓ WaitForNeeds: "unit", "lint" succeeded',
    ]);
  });

  it('say a step will not start, and why, once the step that failed has said so', () => {
    const output = new ConsoleOutput('b');
    const unmet = (index: number, step: string, reason: string) =>
      exited('WaitForNeeds', index, { needs: { met: false, waitingFor: ['x'], done: [], unmet: { step, reason }, nextPollSeconds: 60, checks: 1 } });
    // WaitForNeeds watches the pods: it sees a's pod fail before a's own PollStep and FinishFailedStep do.
    const history: ExecutionEvent[] = [
      { type: 'ExecutionStarted', timestamp: t },
      prepared([alpine('a', { needed: true }), alpine('b', { needs: ['a'], needed: true }), alpine('c', { needs: ['b'] })]),
      unmet(1, 'a', 'it needs "a", which failed'),
      unmet(2, 'a', 'it needs "b", which will not succeed: "a" failed'),
      unmet(1, 'a', 'it needs "a", which failed'),
      { ...iteration('MapIterationFailed', 0), Error: 'StepFailed' },
    ];
    const lines = history.flatMap((event) => output.lines(event));
    expect(lines.filter((line) => /WaitForNeeds|\[1\/3\]/.test(line))).toEqual([
      expect.stringMatching(/✗ \[1\/3\] a/),
      '      b ✗ WaitForNeeds: will not start: it needs "a", which failed',
      '      c ✗ WaitForNeeds: will not start: it needs "b", which will not succeed: "a" failed',
    ]);
  });

  it('print what is still held when the execution ends', () => {
    const output = new ConsoleOutput('b');
    const history: ExecutionEvent[] = [
      { type: 'ExecutionStarted', timestamp: t },
      prepared([alpine('deps', { needed: true }), alpine('unit', { needs: ['deps'] })]),
      needs(1, true, [], ['deps']),
      { type: 'ExecutionAborted', timestamp: (t += 1000) },
    ];
    const lines = history.flatMap((event) => output.lines(event));
    expect(lines.slice(-2)).toEqual(['      unit ✓ WaitForNeeds: "deps" succeeded', expect.stringMatching(/^Execution ABORTED after /)]);
  });
});

describe('the console lines of a build', () => {
  it('say once that PrepareBuild failed, the way it left through its Catch', () => {
    const output = new ConsoleOutput('b');
    const failure = { Error: 'ImagePullFailed', Cause: 'Step "count": image "alpine:3.99" does not exist' };
    const history: ExecutionEvent[] = [
      { type: 'ExecutionStarted', timestamp: t },
      { type: 'StateEntered', timestamp: (t += 1), state: { name: 'PrepareBuild', type: 'Task' } },
      { type: 'StateFailed', timestamp: (t += 1), state: { name: 'PrepareBuild', type: 'Task' }, ...failure },
      { type: 'StateCaught', timestamp: (t += 1), state: { name: 'PrepareBuild', type: 'Task' } },
      exited('PrepareBuild', undefined, { failure }),
      { type: 'ExecutionFailed', timestamp: (t += 1), ...failure },
    ];
    const lines = history.flatMap((event) => output.lines(event));
    expect(lines.filter((line) => line.includes('PrepareBuild'))).toEqual(['  ✗ PrepareBuild: ImagePullFailed', '  ↪ PrepareBuild caught the error']);
  });

  it("count each Map's iterations as its own line counts its steps", () => {
    const output = new ConsoleOutput('b');
    const history: ExecutionEvent[] = [
      { type: 'ExecutionStarted', timestamp: t },
      exited('PrepareBuild', undefined, {
        namespace: 'default',
        steps: ['clone', 'build', 'test'].map((name) => ({ name, image: 'alpine:3.20' })),
        afterFailure: [{ name: 'notify', image: 'alpine:3.20' }],
      }),
      { type: 'StateEntered', timestamp: (t += 1), state: { name: 'RunSteps', type: 'Map' } },
      iteration('MapIterationStarted', 0),
      iteration('MapIterationSucceeded', 0),
      iteration('MapIterationStarted', 1),
      { ...iteration('MapIterationFailed', 1), Error: 'StepFailed' },
      { type: 'StateEntered', timestamp: (t += 1), state: { name: 'RunAfterFailure', type: 'Map' } },
      { ...iteration('MapIterationStarted', 3), parentState: { name: 'RunAfterFailure', type: 'Map' } },
    ];
    const lines = history.flatMap((event) => output.lines(event));
    expect(lines.filter((line) => /▶|\[/.test(line))).toEqual([
      '  ▶ RunSteps: 3 step(s), one at a time',
      '    ▶ [1/3] clone',
      '    ✓ [1/3] clone succeeded',
      '    ▶ [2/3] build',
      '    ✗ [2/3] build: StepFailed',
      '  ▶ RunAfterFailure: 1 step(s) that run after a failure, one at a time',
      '    ▶ [1/1] notify',
    ]);
  });
});

describe('the failed tests at the end', () => {
  const tests = {
    passed: 3,
    failed: 22,
    skipped: 0,
    failures: [
      { name: 'sum adds negative numbers', classname: 'sum adds negative numbers', file: 'src/sum.test.js', line: 9, message: 'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: -4\nReceived: -3\nmore\nand more' },
      ...Array.from({ length: 20 }, (_, i) => ({ name: `test_${i}`, classname: 'tests.test_calc', message: 'assert 0' })),
    ],
    problems: ['no file matches go/**/junit.xml'],
  };
  const finished = (status: 'failed' | 'succeeded'): ExecutionEvent => ({
    type: 'TaskSucceeded',
    timestamp: (t += 1),
    index: 0,
    state: { name: status === 'failed' ? 'FinishFailedStep' : 'FinishStep', type: 'Task', output: { step: 'test', status, exitCode: status === 'failed' ? 1 : 0, error: status === 'failed' ? 'StepFailed' : null, cause: null, logTail: '', log: null, tests } },
  });

  it('come before the Error and the Cause: each with its file and line and its message\'s first lines, 20 at most, the rest counted', () => {
    const output = new ConsoleOutput('b');
    const lines = [finished('failed'), { type: 'ExecutionFailed', timestamp: (t += 1), Error: 'StepFailed', Cause: 'Step "test" exited with 1' }].flatMap((event) => output.lines(event as ExecutionEvent));
    const end = lines.slice(lines.findIndex((line) => line.startsWith('Execution FAILED')));
    expect(end.slice(1, 10)).toEqual([
      '  ⚠ test reports of step "test": no file matches go/**/junit.xml',
      '  Failed tests of step "test" (22 of 25):',
      '    ✗ sum adds negative numbers  src/sum.test.js:9',
      '        Error: expect(received).toBe(expected) // Object.is equality',
      '        Expected: -4',
      '        Received: -3',
      '        more',
      '        …',
      '    ✗ tests.test_calc › test_0',
    ]);
    // 21 listed, 20 printed, and one the summary did not list.
    expect(end.slice(-5)).toEqual(['    ✗ tests.test_calc › test_18', '        assert 0', '  … and 2 more failed tests (run --json: steps[].tests; each step\'s log)', '  Error: StepFailed', '  Cause: Step "test" exited with 1']);
  });

  it('are said after a build that succeeded too (a step may let its tests fail)', () => {
    const output = new ConsoleOutput('b');
    const lines = [finished('succeeded'), { type: 'ExecutionSucceeded', timestamp: (t += 1) }].flatMap((event) => output.lines(event as ExecutionEvent));
    expect(lines.find((line) => line.includes('Failed tests'))).toBe('  Failed tests of step "test" (22 of 25):');
  });
});
