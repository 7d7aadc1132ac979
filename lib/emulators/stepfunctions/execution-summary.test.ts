import type { ExecutionEvent } from './execution-history.js';
import { summarize } from './execution-summary.js';

/** Two steps side by side after `deps`; `broken` fails while `deps` is between its pod's end and FinishStep. */
function history(extra: ExecutionEvent[]): ExecutionEvent[] {
  const steps = ['deps', 'slow', 'broken'].map((name) => ({ name }));
  return [
    { type: 'ExecutionStarted', timestamp: 1 },
    { type: 'StateExited', timestamp: 2, state: { name: 'PrepareBuild', type: 'Task', output: { steps, settings: {} } } },
    ...steps.flatMap((_, index): ExecutionEvent[] => [
      { type: 'MapIterationStarted', timestamp: 3, index },
      { type: 'StateEntered', timestamp: 4, index, state: { name: 'LaunchStep', type: 'Task' } },
    ]),
    { type: 'TaskSucceeded', timestamp: 6, index: 2, state: { name: 'FinishFailedStep', type: 'Task', output: { status: 'failed', exitCode: null, error: 'ImagePullFailed' } } },
    ...extra,
    { type: 'ExecutionFailed', timestamp: 9, Error: 'ImagePullFailed' },
  ];
}

const outcomes = (events: ExecutionEvent[]) => summarize(events, false).steps.map((s) => [s.name, s.status]);

describe('the outcome of a step stopped before its FinishStep', () => {
  it.each<[string, ExecutionEvent[], string]>([
    ['its own poll saw it succeed', [{ type: 'TaskSucceeded', timestamp: 5, index: 0, state: { name: 'PollStep', type: 'Task', output: { phase: 'succeeded' } } }], 'succeeded'],
    ['a step that needed it counted it done', [{ type: 'TaskSucceeded', timestamp: 5, index: 2, state: { name: 'WaitForNeeds', type: 'Task', output: { met: true, done: ['deps'] } } }], 'succeeded'],
    ['only running was seen', [{ type: 'TaskSucceeded', timestamp: 5, index: 0, state: { name: 'PollStep', type: 'Task', output: { phase: 'running' } } }], 'aborted'],
    ['nothing was seen', [], 'aborted'],
  ])('when %s: %s', (_, extra, expected) => {
    expect(outcomes(history(extra))[0]).toEqual(['deps', expected]);
    // The step beside it, launched and never seen to end, was aborted either way.
    expect(outcomes(history(extra))[1]).toEqual(['slow', 'aborted']);
  });
});

describe('when each step ran, in what image, and where its log is', () => {
  const t0 = Date.parse('2026-12-01T21:00:00.000Z');
  const at = (ms: number) => t0 + ms;
  const iso = (ms: number) => new Date(at(ms)).toISOString();
  const steps = [
    { name: 'clone', image: 'alpine/git:2.47.2' },
    { name: 'test', image: 'node:22-alpine' },
    { name: 'lint', image: 'node:22-alpine' },
    { name: 'never', image: 'alpine:3.20' },
  ];
  const prepared = { steps, settings: { checkoutStep: 'clone' }, skipped: [{ name: 'deploy', index: 3, reason: 'branch feature/x is not main' }] };
  const iteration = (index: number, launch: number, finish: { at: number; state: string; output: object } | undefined): ExecutionEvent[] => [
    { type: 'MapIterationStarted', timestamp: at(launch - 200), index },
    // The wait for the steps it needs is not the step's time: it starts at its LaunchStep.
    { type: 'StateEntered', timestamp: at(launch - 100), index, state: { name: 'WaitForNeeds', type: 'Task' } },
    { type: 'StateEntered', timestamp: at(launch), index, state: { name: 'LaunchStep', type: 'Task' } },
    { type: 'TaskSucceeded', timestamp: at(launch + 300), index, state: { name: 'PollStep', type: 'Task', output: { phase: 'running' } } },
    ...(finish ? [{ type: 'TaskSucceeded', timestamp: at(finish.at), index, state: { name: finish.state, type: 'Task', output: finish.output } }] : []),
  ];
  const recorded: ExecutionEvent[] = [
    { type: 'ExecutionStarted', timestamp: at(0) },
    { type: 'StateExited', timestamp: at(50), state: { name: 'PrepareBuild', type: 'Task', output: prepared } },
    ...iteration(0, 400, { at: 1_650, state: 'FinishStep', output: { status: 'succeeded', exitCode: 0, error: null, log: '/state/logs/b/clone.log' } }),
    ...iteration(1, 2_000, { at: 5_250, state: 'FinishFailedStep', output: { status: 'failed', exitCode: 1, error: 'StepFailed', log: '/state/logs/b/test.log' } }),
    ...iteration(2, 2_000, undefined),
    { type: 'ExecutionFailed', timestamp: at(5_400), Error: 'StepFailed' },
  ];

  it('gives a finished step its span from LaunchStep to its FinishStep, its image and its log', () => {
    const [clone, test] = summarize(recorded, false).steps;
    expect(clone).toMatchObject({ name: 'clone', startedAt: iso(400), stoppedAt: iso(1_650), durationMs: 1_250, image: 'alpine/git:2.47.2', log: '/state/logs/b/clone.log' });
    expect(test).toMatchObject({ name: 'test', status: 'failed', startedAt: iso(2_000), stoppedAt: iso(5_250), durationMs: 3_250, image: 'node:22-alpine', log: '/state/logs/b/test.log' });
  });

  it('ends a step stopped from outside with the execution, without a log', () => {
    expect(summarize(recorded, false).steps[2]).toMatchObject({ name: 'lint', status: 'aborted', startedAt: iso(2_000), stoppedAt: iso(5_400), durationMs: 3_400, log: null });
  });

  it('has no end yet for a step still running', () => {
    const running = recorded.slice(0, -1);
    expect(summarize(running, false, { running: true }).steps[2]).toMatchObject({ name: 'lint', status: 'running', startedAt: iso(2_000), stoppedAt: null, durationMs: null });
  });

  it('gives nulls to a skipped step and a step that never ran (the latter still names its image)', () => {
    const byName = new Map(summarize(recorded, false).steps.map((s) => [s.name, s]));
    expect(byName.get('deploy')).toEqual({ name: 'deploy', status: 'skipped', exitCode: null, error: null, reason: 'branch feature/x is not main', startedAt: null, stoppedAt: null, durationMs: null, image: null, log: null });
    expect(byName.get('never')).toEqual({ name: 'never', status: 'not-run', exitCode: null, error: null, startedAt: null, stoppedAt: null, durationMs: null, image: 'alpine:3.20', log: null });
  });
});

describe('a step that waits for its needs while the build runs', () => {
  const waitingFor = (ended: ExecutionEvent[]) => {
    const steps = [{ name: 'test' }, { name: 'report' }];
    const events: ExecutionEvent[] = [
      { type: 'ExecutionStarted', timestamp: 1 },
      { type: 'StateExited', timestamp: 2, state: { name: 'PrepareBuild', type: 'Task', output: { steps, settings: {} } } },
      { type: 'MapIterationStarted', timestamp: 3, index: 0 },
      { type: 'StateEntered', timestamp: 4, index: 0, state: { name: 'LaunchStep', type: 'Task' } },
      { type: 'MapIterationStarted', timestamp: 3, index: 1 },
      { type: 'TaskSucceeded', timestamp: 5, index: 1, state: { name: 'WaitForNeeds', type: 'Task', output: { met: false, done: [], unmet: { step: 'test', reason: 'it needs "test", which failed' } } } },
      ...ended,
    ];
    return summarize(events, false, { running: true }).steps.map((s) => [s.name, s.status, s.reason]);
  };

  it.each<[string, ExecutionEvent[], unknown[]]>([
    ['is waiting while its iteration goes on', [], ['report', 'waiting', undefined]],
    // fail-fast: false: the failed combination fails no Map, and the step's iteration ends (NeedsNeverMet).
    ['has not run once its iteration ended unlaunched', [{ type: 'MapIterationSucceeded', timestamp: 6, index: 1 }], ['report', 'not-run', 'it needs "test", which failed']],
  ])('%s', (_, ended, expected) => {
    expect(waitingFor(ended)[1]).toEqual(expected);
  });
});
