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
