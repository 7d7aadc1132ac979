/**
 * The running watch ends 15 minutes into a step (runningWatchUntilSeconds), through the real
 * definition and task code in simulated time: the benchmark's own simulation (bench/
 * orchestration-cost.ts), so a definition the benchmark can no longer run (an unbound Task state,
 * settings that stop reaching PollStep) fails here rather than on the next bench run.
 */
import { costPerStepHour, simulateBuild, simulatedCompletionLatencyMs, variant } from '../bench/orchestration-cost.js';
import { DEFAULT_RUNNING_WATCH_UNTIL_SECONDS } from '../lib/workflow/settings.js';

const watch = { ...variant('watch'), pollMemoryMb: 128 };
const wholeRun = { ...watch, label: 'watch whole run', runningWatchUntilSeconds: 86_400 };

describe('a running step, as deployed', () => {
  it('is watched for its first 15 minutes only, then polled a minute apart', async () => {
    const twentyMinutes = await simulateBuild(watch, [20 * 60]);
    // The pod's 5 s pending are watched too.
    expect(twentyMinutes.watchedSeconds).toBeGreaterThan(DEFAULT_RUNNING_WATCH_UNTIL_SECONDS);
    expect(twentyMinutes.watchedSeconds).toBeLessThanOrEqual(DEFAULT_RUNNING_WATCH_UNTIL_SECONDS + 5);
    // Watched whole, the same step holds the Lambda for all of its 20 minutes.
    expect((await simulateBuild(wholeRun, [20 * 60])).watchedSeconds).toBeGreaterThan(20 * 60 - 10);
    const fifteen = await simulateBuild(watch, [15 * 60]);
    // Five minutes past the watch: a poll a minute (about five more) rather than none.
    expect(twentyMinutes.polls - fifteen.polls).toBeGreaterThanOrEqual(4);
    expect(twentyMinutes.polls - fifteen.polls).toBeLessThanOrEqual(6);
  });

  it('is seen to end within a second up to 15 minutes, and within the schedule\'s minute after', async () => {
    for (const seconds of [30, 10 * 60, 14 * 60 + 50]) expect(await simulatedCompletionLatencyMs(watch, seconds)).toBeLessThan(1000);
    const late = await simulatedCompletionLatencyMs(watch, 20 * 60 + 7);
    expect(late).toBeGreaterThan(1000);
    expect(late).toBeLessThanOrEqual(61_000);
  });

  it('costs less per step-hour than watching the whole run once a step runs past the watch', async () => {
    const hour = await costPerStepHour(watch);
    const whole = await costPerStepHour(wholeRun);
    expect(hour.gbSeconds).toBeLessThan(whole.gbSeconds / 3);
    expect(hour.dollars).toBeLessThan(whole.dollars);
  });
});
