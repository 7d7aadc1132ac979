/**
 * Fail fast, all the way: once a step fails, the steps waiting for it (and for those) stop waiting
 * at once, say why they did not run, and the execution's result settles with no invocation of its
 * still holding a watch (which kept `run` from exiting for WaitForNeeds' 4-minute watch).
 */
import type { ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import type { NeedsState, PreparedBuild } from '../lib/workflow/state-data.js';
import { localBuildsForFile } from './fixtures/local-builds.js';

const builds = localBuildsForFile({ prefix: 'needs-fail-fast', settings: { imageCheck: false } });

const step = (name: string, command: string, needs?: string) =>
  `  - name: ${name}\n    image: alpine:3.20\n    commands: [${JSON.stringify(command)}]\n${needs ? `    needs: [${needs}]\n` : ''}`;

const preparedOf = (events: ExecutionEvent[]) => events.find((e) => e.type === 'StateExited' && e.state?.name === 'PrepareBuild')!.state!.output as PreparedBuild;

describe('a failed need stops the steps waiting for it', () => {
  it('ends the waits the moment the step fails: no step after it launches, each says why, and no invocation is left in flight', async () => {
    const pipeline = 'version: 1\ncheckout: false\nsteps:\n' + step('a', 'exit 1') + step('b', 'echo never', 'a') + step('c', 'echo never', 'b');
    const { summary, events, inFlightAtEnd } = await builds.build('needs-fail-fast', pipeline);

    expect(summary).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    expect(summary.steps.map((s) => [s.name, s.status, s.reason])).toEqual([
      ['a', 'failed', undefined],
      ['b', 'not-run', 'it needs "a", which failed'],
      ['c', 'not-run', 'it needs "b", which will not succeed: "a" failed'],
    ]);

    const prepared = preparedOf(events);
    const indexOf = (name: string) => prepared.steps.findIndex((s) => s.name === name);
    const position = (where: (e: ExecutionEvent) => boolean) => events.findIndex(where);
    const aFailed = position((e) => e.type === 'MapIterationFailed' && e.index === indexOf('a'));
    expect(aFailed).toBeGreaterThan(-1);
    for (const waiter of ['b', 'c']) {
      // Its WaitForNeeds answered because a step failed, not because its watch's time was up,
      // and before the Map failed: the wait was not what held the build.
      const answered = position((e) => e.type === 'TaskSucceeded' && e.index === indexOf(waiter) && e.state?.name === 'WaitForNeeds' && (e.state.output as NeedsState).unmet !== undefined);
      expect(answered).toBeGreaterThan(-1);
      expect(answered).toBeLessThan(aFailed);
      expect((events[answered]!.state!.output as NeedsState).unmet).toMatchObject({ step: 'a' });
      expect(events.some((e) => e.index === indexOf(waiter) && e.state?.name === 'LaunchStep')).toBe(false);
    }
    // Every invocation had answered when the result settled: nothing holds the process after it.
    expect(inFlightAtEnd).toBe(0);
  }, 60_000);
});
