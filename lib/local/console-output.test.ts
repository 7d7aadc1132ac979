import { ConsoleOutput } from './console-output.js';
import type { ExecutionEvent } from './executor.js';

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

describe('the console lines of steps side by side', () => {
  it('name each step\'s lines, say what a step waits for once, and that a needed pod is kept', () => {
    const output = new ConsoleOutput('b');
    const finish = (index: number, step: string) => ({
      type: 'TaskSucceeded',
      timestamp: (t += 10),
      index,
      state: { name: 'FinishStep', type: 'Task', output: { step, status: 'succeeded', exitCode: 0, error: null, cause: null, logTail: '', log: null } },
    });
    const needs = (index: number, met: boolean, waitingFor: string[], done: string[]) =>
      exited('WaitForNeeds', index, { needs: { met, waitingFor, done, nextPollSeconds: 0, checks: 1 } });
    const history: ExecutionEvent[] = [
      { type: 'ExecutionStarted', timestamp: t },
      exited('PrepareBuild', undefined, {
        namespace: 'default',
        maxParallel: 4,
        steps: [{ name: 'deps', image: 'alpine:3.20', needed: true }, { name: 'unit', image: 'alpine:3.20', needs: ['deps'] }, { name: 'lint', image: 'alpine:3.20', needs: ['deps'] }],
      }),
      { type: 'StateEntered', timestamp: (t += 1), state: { name: 'RunSteps', type: 'Map' } },
      needs(1, false, ['deps'], []),
      needs(1, false, ['deps'], []),
      needs(2, false, ['deps'], []),
      finish(0, 'deps'),
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
});
