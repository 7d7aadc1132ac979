/**
 * How a step's last poll reads to a person, in the run's output and on the console page. Pure.
 * Most polls read as the classifier put them, `phase (reason)`; a pod the autoscaler is adding a
 * node for, or one queued for room on a fixed-size cluster, is not stuck, and says so, with the
 * autoscaler's or the scheduler's own words (the poll's message).
 */
import { StepReasons } from '../kube/classify-reasons.js';
import type { PollState } from '../workflow/state-data.js';

export const WAITING_FOR_NODE = 'waiting for a node';
export const WAITING_FOR_CAPACITY = 'waiting for capacity';

const WAITING: Record<string, string> = {
  [StepReasons.WaitingForNode]: WAITING_FOR_NODE,
  [StepReasons.WaitingForCapacity]: WAITING_FOR_CAPACITY,
};

/** `waiting for a node`, `waiting for capacity`, or `pending (Unschedulable)` and the like. */
export function pollOutcome(poll: Pick<PollState, 'phase' | 'reason'>): string {
  return WAITING[poll.reason] ?? `${poll.phase} (${poll.reason})`;
}

/** The poll is a wait that names what it waits for (its message then gives the words). */
export function isNamedWait(poll: Pick<PollState, 'reason'>): boolean {
  return poll.reason in WAITING;
}
