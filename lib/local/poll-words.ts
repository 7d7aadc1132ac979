/**
 * How a step's last poll reads to a person, in the run's output and on the console page. Pure.
 * Most polls read as the classifier put them, `phase (reason)`; a pod the autoscaler is adding a
 * node for is not stuck, and says so, with the autoscaler's own words (the poll's message).
 */
import { StepReasons } from '../kube/classify-reasons.js';
import type { PollState } from '../workflow/state-data.js';

export const WAITING_FOR_NODE = 'waiting for a node';

/** `waiting for a node`, or `pending (Unschedulable)` and the like. */
export function pollOutcome(poll: Pick<PollState, 'phase' | 'reason'>): string {
  return poll.reason === StepReasons.WaitingForNode ? WAITING_FOR_NODE : `${poll.phase} (${poll.reason})`;
}
