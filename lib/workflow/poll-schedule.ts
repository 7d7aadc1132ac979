import { StepReasons } from '../kube/classify-reasons.js';
import { StepPhases, type StepStatus } from '../kube/types.js';

/**
 * How long WaitForStep waits before the next poll. Step Functions bills per state transition and
 * each poll costs three (Wait, PollStep, StepStatus), so the schedule trades latency for cost:
 *
 * - pending (scheduling, pulling): every second for the first PENDING_FAST_SECONDS, because this
 *   is when an image pull failure is reported and it must surface within one poll; then slower,
 *   since a pull that has not failed by then is a large image still downloading;
 * - running: doubling from one second up to RUNNING_MAX_SECONDS, so short steps finish promptly
 *   and a long step costs a few polls a minute at most;
 * - never past the step's deadline: the poll right after activeDeadlineSeconds reports the timeout
 *   (a pod no node started, which the kubelet's deadline cannot end, the classifier ends then:
 *   lib/kube/classify-stall.ts). A step still not ended past it (a kubelet late to end the pod,
 *   a node gone) is polled as long after as it is past, from PENDING_SLOW_INTERVAL up to
 *   RUNNING_MAX_SECONDS, never every second;
 * - no wait at all after a poll that held a watch (pending or running): the watch was the wait,
 *   and the next one starts from the change it saw (see tasks/poll-step.ts). The schedule is what
 *   a deployment without watches (PENDING_WATCH_SECONDS / RUNNING_WATCH_SECONDS 0) polls on, and
 *   the fallback when a watch delivers nothing.
 *
 * - a pod no one has said a word about (reason Pending: not placed, no scheduler's answer, no
 *   kubelet's; a stall in the making, classify-stall.ts) past PENDING_FAST_SECONDS: no watch, which
 *   would hold a Lambda for nothing, but a Wait as long as the pod has waited, up to
 *   RUNNING_MAX_SECONDS, so a pod never scheduled costs a few polls up to its pending-timeout
 *   (bench/README.md, "Pods that never run").
 *
 * Wait states take whole seconds, hence integers throughout.
 */
export const PollSchedule = {
  PENDING_FAST_SECONDS: 30,
  PENDING_SLOW_INTERVAL: 3,
  RUNNING_FIRST_INTERVAL: 1,
  RUNNING_MAX_SECONDS: 60,
} as const;

export interface PollClock {
  /** Seconds since the step's pod was launched. */
  elapsedSeconds: number;
  /** Seconds since the step was first seen running (0 while pending). */
  runningSeconds: number;
  /** The step's timeout (activeDeadlineSeconds). */
  timeoutSeconds: number;
  /** The poll held a watch, and the next one will hold one too: that watch is the wait. */
  watched?: boolean;
}

export function nextPollSeconds(status: Pick<StepStatus, 'phase'> & { reason?: string }, clock: PollClock): number {
  const unanswered = isUnanswered(status, clock.elapsedSeconds);
  if (clock.watched && !unanswered && (status.phase === StepPhases.Pending || status.phase === StepPhases.Running)) return 0;
  const wanted =
    status.phase === StepPhases.Running
      ? runningInterval(clock.runningSeconds)
      : unanswered
        ? unansweredInterval(clock.elapsedSeconds)
        : pendingInterval(clock.elapsedSeconds);
  // One second past the deadline is when the kubelet has had the chance to mark the pod failed.
  const untilDeadline = Math.ceil(clock.timeoutSeconds - clock.elapsedSeconds) + 1;
  if (untilDeadline >= 1) return Math.max(1, Math.min(wanted, untilDeadline));
  const past = Math.floor(clock.elapsedSeconds - clock.timeoutSeconds);
  return Math.min(PollSchedule.RUNNING_MAX_SECONDS, Math.max(PollSchedule.PENDING_SLOW_INTERVAL, wanted, past));
}

/** What a deployment says about the running watch (BuildSettings, history-budget's Watches). */
export interface RunningWatch {
  /** The longest one poll watches a running step (absent or 0: no watch, the schedule). */
  runningWatchSeconds?: number;
  /** No watch once the step has run this long: the schedule after (absent: the whole run). */
  runningWatchUntilSeconds?: number;
}

/**
 * How long a poll may watch a step that has run `runningSeconds` so far: the running watch, cut
 * to end when the step has run `runningWatchUntilSeconds`, and none after. Whole seconds; under a
 * second is none. A watch holds a Lambda for its whole length, which costs more than the
 * schedule's polls a minute apart, so it is spent where waiting matters most: a step of a few
 * minutes is seen to end within a second, one past the limit within the schedule's minute
 * (bench/README.md, "cost per step-hour").
 */
export function runningWatchFor(watch: RunningWatch, runningSeconds: number): number {
  const most = watch.runningWatchSeconds ?? 0;
  const left = watch.runningWatchUntilSeconds === undefined ? most : Math.floor(watch.runningWatchUntilSeconds - runningSeconds);
  const seconds = Math.min(most, left);
  return seconds >= 1 ? seconds : 0;
}

/**
 * A pending pod no one has said a word about for the fast window: no scheduler's answer, no
 * kubelet's (the classifier's plain `Pending`). The pending watch is not worth a Lambda's time there.
 */
function isUnanswered(status: { phase: string; reason?: string }, elapsedSeconds: number): boolean {
  return status.phase === StepPhases.Pending && status.reason === StepReasons.Pending && elapsedSeconds >= PollSchedule.PENDING_FAST_SECONDS;
}

/** How long a poll after one that found the pod in `poll` (its phase and reason) watches it, the step `elapsedSeconds` in. */
export function pendingWatchFor(pendingWatchSeconds: number | undefined, poll: { phase: string; reason?: string }, elapsedSeconds: number): number {
  return isUnanswered(poll, elapsedSeconds) ? 0 : (pendingWatchSeconds ?? 0);
}

/** LaunchStep's wait before the first poll: none when that poll watches the pod, which is its own wait. */
export function firstPollSeconds(pendingWatchSeconds: number): number {
  return pendingWatchSeconds > 0 ? 0 : 1;
}

function pendingInterval(elapsedSeconds: number): number {
  return elapsedSeconds < PollSchedule.PENDING_FAST_SECONDS ? 1 : PollSchedule.PENDING_SLOW_INTERVAL;
}

/** Doubling from the fast window on, as a running step's: the wait equals the time waited so far, up to the running cap. */
function unansweredInterval(elapsedSeconds: number): number {
  return Math.min(PollSchedule.RUNNING_MAX_SECONDS, Math.max(PollSchedule.PENDING_SLOW_INTERVAL, Math.floor(elapsedSeconds)));
}

/** Doubling: polls at roughly 1, 2, 4, 8... seconds into the run, i.e. the wait equals the time run so far. */
function runningInterval(runningSeconds: number): number {
  const interval = Math.max(PollSchedule.RUNNING_FIRST_INTERVAL, Math.floor(runningSeconds));
  return Math.min(interval, PollSchedule.RUNNING_MAX_SECONDS);
}
