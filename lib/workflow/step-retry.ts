/**
 * Whether a failed attempt of a step is tried again (its `retry:`): a fresh pod, the same
 * workspace, for the Errors a fresh pod can fix, up to `max` more attempts. The checkout is never
 * retried: a second clone into a workspace the first one began would meet its leftovers. Pure.
 */
import type { ErrorName } from '../contract/index.js';
import { stepRetry, type Step, type StepRetry } from '../pipeline/index.js';

/** The step's retry (its own, or the default: the Errors lib/contract/errors.ts retries by default, twice); none for the checkout. */
export function retryOf(step: Pick<Step, 'retry'>, checkout = false): StepRetry {
  return checkout ? { max: 0, on: [] } : stepRetry(step);
}

/** How many attempts may still follow attempt `attempt` (0-based). */
export function attemptsLeft(step: Pick<Step, 'retry'>, attempt: number, checkout = false): number {
  return Math.max(0, retryOf(step, checkout).max - attempt);
}

/** The next attempt's number when this failure is retried; undefined when the step fails for good. */
export function nextAttempt(step: Pick<Step, 'retry'>, attempt: number, error: ErrorName | undefined, checkout = false): number | undefined {
  const retry = retryOf(step, checkout);
  if (error === undefined || !retry.on.includes(error) || attempt >= retry.max) return undefined;
  return attempt + 1;
}

/** `attempt 2 of 3`, for the log and the Cause. */
export function attemptWords(step: Pick<Step, 'retry'>, attempt: number, checkout = false): string {
  return `attempt ${attempt + 1} of ${retryOf(step, checkout).max + 1}`;
}
