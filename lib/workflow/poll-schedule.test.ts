import { nextPollSeconds, pendingWatchFor, PollSchedule, runningWatchFor } from './poll-schedule.js';

const pending = { phase: 'pending' } as const;
const running = { phase: 'running' } as const;

/** Simulate a step that pends for `pendingFor` seconds then runs until `endsAt`; count the polls. */
function pollsFor(pendingFor: number, endsAt: number, timeoutSeconds = 3600): number[] {
  const times: number[] = [];
  let t = 0;
  while (t < endsAt) {
    const status = t < pendingFor ? pending : running;
    t += nextPollSeconds(status, { elapsedSeconds: t, runningSeconds: Math.max(0, t - pendingFor), timeoutSeconds });
    times.push(t);
  }
  return times;
}

describe('poll schedule', () => {
  it('polls every second while a pod is pending, so a pull failure surfaces within one poll', () => {
    for (let t = 0; t < PollSchedule.PENDING_FAST_SECONDS; t++) {
      expect(nextPollSeconds(pending, { elapsedSeconds: t, runningSeconds: 0, timeoutSeconds: 600 })).toBe(1);
    }
  });

  it('slows down for a pull that is still going after the fast window', () => {
    expect(nextPollSeconds(pending, { elapsedSeconds: 45, runningSeconds: 0, timeoutSeconds: 600 })).toBe(
      PollSchedule.PENDING_SLOW_INTERVAL,
    );
  });

  it('backs off while a step runs, capped', () => {
    const waits = [0, 1, 2, 5, 20, 50, 300].map((r) =>
      nextPollSeconds(running, { elapsedSeconds: r + 3, runningSeconds: r, timeoutSeconds: 3600 }),
    );
    expect(waits).toEqual([1, 1, 2, 5, 20, 50, PollSchedule.RUNNING_MAX_SECONDS]);
  });

  it('does not wait after a poll that watched the pod, pending or running, since the next watch is the wait', () => {
    expect(nextPollSeconds(pending, { elapsedSeconds: 3, runningSeconds: 0, timeoutSeconds: 600, watched: true })).toBe(0);
    expect(nextPollSeconds(running, { elapsedSeconds: 3, runningSeconds: 1, timeoutSeconds: 600, watched: true })).toBe(0);
    // Without a watch to come (RUNNING_WATCH_SECONDS 0, or the watch failed), the schedule again.
    expect(nextPollSeconds(running, { elapsedSeconds: 3, runningSeconds: 1, timeoutSeconds: 600, watched: false })).toBe(1);
  });

  it('never waits past the step deadline', () => {
    expect(nextPollSeconds(running, { elapsedSeconds: 590, runningSeconds: 588, timeoutSeconds: 600 })).toBe(11);
    expect(nextPollSeconds(pending, { elapsedSeconds: 20, runningSeconds: 0, timeoutSeconds: 20 })).toBe(1);
  });

  it('past the deadline, never polls every second: as long after as the step is past it, up to the running cap', () => {
    const waits = [602, 605, 640, 700, 5000].map((t) => nextPollSeconds(pending, { elapsedSeconds: t, runningSeconds: 0, timeoutSeconds: 600 }));
    expect(waits).toEqual([PollSchedule.PENDING_SLOW_INTERVAL, 5, 40, PollSchedule.RUNNING_MAX_SECONDS, PollSchedule.RUNNING_MAX_SECONDS]);
    expect(nextPollSeconds(running, { elapsedSeconds: 4000, runningSeconds: 3990, timeoutSeconds: 600 })).toBe(PollSchedule.RUNNING_MAX_SECONDS);
  });

  it('a pod no one ends past its deadline costs a few polls an hour, not one a second', () => {
    // The classifier ends such a pod at its deadline; this is the schedule if it somehow did not.
    const polls = pollsFor(7200, 7200, 600);
    expect(polls.filter((t) => t > 601).length).toBeLessThan(120);
  });

  it('costs few polls for a long step and finishes a short one promptly', () => {
    const tenMinutes = pollsFor(3, 600);
    expect(tenMinutes.length).toBeLessThanOrEqual(20);
    const oneSecondStep = pollsFor(2, 3);
    expect(oneSecondStep.at(-1)).toBeLessThanOrEqual(4);
  });
});

describe('runningWatchFor', () => {
  const deployed = { runningWatchSeconds: 240, runningWatchUntilSeconds: 900 };
  it.each([
    ['a step that has just started: a whole watch', deployed, 0, 240],
    ['one watch on', deployed, 240.4, 240],
    ['the watch cut to end when the step has run 900 s', deployed, 730.2, 169],
    ['less than a second before the limit: none', deployed, 899.5, 0],
    ['past the limit: the schedule', deployed, 1200, 0],
    ['no limit: the watch lasts the whole run', { runningWatchSeconds: 240 }, 86_000, 240],
    ['no running watch at all', { runningWatchSeconds: 0, runningWatchUntilSeconds: 900 }, 0, 0],
    ['a limit of 0: none from the start', { runningWatchSeconds: 240, runningWatchUntilSeconds: 0 }, 0, 0],
    ['nothing said (an execution of an older deployment)', {}, 10, 0],
  ])('%s', (_, watch, runningSeconds, seconds) => {
    expect(runningWatchFor(watch, runningSeconds)).toBe(seconds);
  });
});

describe('a pod no one has said a word about', () => {
  const unanswered = { phase: 'pending', reason: 'Pending' } as const;
  it('is watched in the fast window, then waited for as long as it has waited, up to the running cap: no watch holds a Lambda for it', () => {
    expect(nextPollSeconds(unanswered, { elapsedSeconds: 10, runningSeconds: 0, timeoutSeconds: 3600, watched: true })).toBe(0);
    expect(pendingWatchFor(20, unanswered, 10)).toBe(20);
    const waits = [31, 45, 90, 200].map((t) => nextPollSeconds(unanswered, { elapsedSeconds: t, runningSeconds: 0, timeoutSeconds: 3600, watched: true }));
    expect(waits).toEqual([31, 45, PollSchedule.RUNNING_MAX_SECONDS, PollSchedule.RUNNING_MAX_SECONDS]);
    expect(pendingWatchFor(20, unanswered, 31)).toBe(0);
  });

  it('a pod someone has answered (ContainerCreating, the scheduler\'s Unschedulable) keeps its watch', () => {
    for (const reason of ['ContainerCreating', 'Unschedulable', 'WaitingForCapacity']) {
      expect(nextPollSeconds({ phase: 'pending', reason }, { elapsedSeconds: 90, runningSeconds: 0, timeoutSeconds: 3600, watched: true })).toBe(0);
      expect(pendingWatchFor(20, { phase: 'pending', reason }, 90)).toBe(20);
    }
  });
});
