/**
 * An approval step as `run --json` and `GET /executions/NAME` show it, from the history: waiting
 * (no reason) while its iteration waits for the steps it needs, waiting for an approval from
 * AwaitApproval's entry, then the decision (`approval: {decision, by, at, comment}`):
 * approved is the task's result (SendTaskSuccess's output), rejected and timed out are the
 * iteration's Error and Cause (lib/workflow/approval-decision.ts reads them back). It never had an
 * image, a log, an exit code or a pod.
 */
import { approvalOfFailure, type ApprovalRecord, type ApprovedResult } from '../../workflow/approval-decision.js';
import type { ExecutionEvent } from './execution-history.js';
import { AWAIT_APPROVAL } from './states.js';

export interface ApprovalOutcome {
  status: 'succeeded' | 'failed' | 'waiting' | 'aborted' | 'not-run';
  error: string | null;
  approval?: ApprovalRecord;
  /** While it waits: for whom, and the message. */
  reason?: string;
  startedAt: string | null;
  stoppedAt: string | null;
  durationMs: number | null;
}

const iso = (timestamp: number) => new Date(timestamp).toISOString();

export function approvalOutcome(history: readonly ExecutionEvent[], index: number, message: string | undefined, running: boolean): ApprovalOutcome {
  const entered = history.find((e) => e.index === index && e.type === 'StateEntered' && e.state?.name === AWAIT_APPROVAL);
  if (!entered) {
    // Not asked for yet: its iteration waits for the steps it needs (side by side), as any step's does.
    const started = history.some((e) => e.type === 'MapIterationStarted' && e.index === index);
    const ended = history.some((e) => (e.type === 'MapIterationSucceeded' || e.type === 'MapIterationFailed') && e.index === index);
    return { status: started && !ended && running ? 'waiting' : 'not-run', error: null, startedAt: null, stoppedAt: null, durationMs: null };
  }
  const times = (stop: ExecutionEvent | undefined) => ({
    startedAt: iso(entered.timestamp),
    stoppedAt: stop ? iso(stop.timestamp) : null,
    durationMs: stop ? Math.max(0, stop.timestamp - entered.timestamp) : null,
  });
  const approved = history.findLast((e) => e.index === index && e.type === 'TaskSucceeded' && e.state?.name === AWAIT_APPROVAL);
  const result = approved?.state?.output as Partial<ApprovedResult> | undefined;
  if (approved && result?.approval) return { status: 'succeeded', error: null, approval: result.approval, ...times(approved) };
  const failed = history.find((e) => e.index === index && e.type === 'MapIterationFailed');
  if (failed) {
    const approval = approvalOfFailure(failed.Error, typeof failed.Cause === 'string' ? failed.Cause : undefined, iso(failed.timestamp));
    return { status: 'failed', error: failed.Error ?? null, ...(approval ? { approval } : {}), ...times(failed) };
  }
  if (running) return { status: 'waiting', error: null, reason: `waiting for an approval${message ? `: ${message}` : ''}`, ...times(undefined) };
  return { status: 'aborted', error: null, ...times(history.at(-1)) };
}
