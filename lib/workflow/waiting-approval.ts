/**
 * The approval step an execution waits on, read from its Step Functions history (GetExecutionHistory):
 * the AwaitApproval Task's `TaskScheduled` event holds the Parameters it was given, resolved, the
 * callback's `$$.Task.Token` among them ("Wait for a Callback with Task Token": the history shows
 * the token to whoever may read the execution). It waits while its task has not closed
 * (TaskSucceeded, TaskFailed, TaskTimedOut) and the execution has not ended. Steps run side by side,
 * so other tasks close meanwhile: a close is this task's when its previousEventId leads back to the
 * TaskScheduled through the task's own events (TaskStarted, TaskSubmitted), as each event names
 * the one before it in its thread (HistoryEvent.previousEventId, Step Functions API Reference). The deployed webhook reads it here rather than from
 * the build's Secret: it then needs no way into the cluster. Pure.
 */
import type { Step } from '../pipeline/index.js';

/** The fields of a history event read here (@aws-sdk/client-sfn's HistoryEvent). */
export interface ApprovalHistoryEvent {
  id: number;
  previousEventId?: number;
  type?: string;
  taskScheduledEventDetails?: { resource?: string; parameters?: string };
}

export interface ScheduledApproval {
  taskToken: string;
  step: Pick<Step, 'name'> & { approval: NonNullable<Step['approval']> };
  /** Who pushed the change (BuildRef.pushedBy), when the build knows. */
  pushedBy?: string;
}

/** Which approval step: a check run's button names its iteration, the generic webhook its name. */
export type ApprovalStepRef = { index: number } | { step: string };

/** Step Functions' name for the callback form of the Lambda integration (`arn:aws:states:::lambda:invoke.waitForTaskToken`). */
export const CALLBACK_RESOURCE = 'invoke.waitForTaskToken';
const CLOSED = new Set(['TaskSucceeded', 'TaskFailed', 'TaskTimedOut']);
const ENDED = new Set(['ExecutionSucceeded', 'ExecutionFailed', 'ExecutionAborted', 'ExecutionTimedOut']);

/** An execution's end: it closes every wait before it (a redrive's come after it), so nothing older is needed. */
export const endsTheExecution = (event: Pick<ApprovalHistoryEvent, 'type'>): boolean => ENDED.has(event.type ?? '');

/** An approval step waiting, with its iteration: what a check run's buttons name. */
export interface IndexedApproval extends ScheduledApproval {
  index: number;
}

/**
 * `events`: any order (GetExecutionHistory's reverseOrder, or not); those newer than the approval's
 * TaskScheduled must all be there. Undefined: that step waits for no approval.
 */
export function waitingApprovalIn(events: readonly ApprovalHistoryEvent[], which: ApprovalStepRef): ScheduledApproval | undefined {
  const found = waitingApprovalsIn(events).find((waiting) => ('index' in which ? waiting.index === which.index : waiting.step.name === which.step));
  if (!found) return undefined;
  const { index: _index, ...approval } = found;
  return approval;
}

/**
 * Every approval step the execution waits on, the one waiting longest first (steps side by side
 * may wait for two at once): what a check run shows while they wait. `events`: the whole history,
 * in any order. Each iteration's newest AwaitApproval is its wait (an earlier one was an attempt
 * the Task retried); none once the execution has ended, but those of a redrive since.
 */
export function waitingApprovalsIn(events: readonly ApprovalHistoryEvent[]): IndexedApproval[] {
  const byId = new Map(events.map((event) => [event.id, event]));
  const closes: ApprovalHistoryEvent[] = [];
  const seen = new Set<number>();
  const waiting: IndexedApproval[] = [];
  for (const event of [...events].sort((a, b) => b.id - a.id)) {
    // An end closes every wait before it; a redrive's waits come after it (ExecutionRedriven).
    if (endsTheExecution(event)) break;
    if (CLOSED.has(event.type ?? '')) closes.push(event);
    if (event.type !== 'TaskScheduled' || event.taskScheduledEventDetails?.resource !== CALLBACK_RESOURCE) continue;
    const payload = payloadOf(event.taskScheduledEventDetails.parameters);
    // `task`: a step waiting for the approvals it needs (AwaitApprovedNeeds), which no person answers.
    if (!payload || payload.task !== undefined || typeof payload.index !== 'number' || seen.has(payload.index)) continue;
    seen.add(payload.index);
    const closed = closes.some((close) => closesTask(close, event.id, byId));
    if (closed || typeof payload.taskToken !== 'string' || !payload.step?.approval || typeof payload.step.name !== 'string') continue;
    const pushedBy = payload.build?.pushedBy;
    waiting.push({ index: payload.index, taskToken: payload.taskToken, step: { name: payload.step.name, approval: payload.step.approval }, ...(typeof pushedBy === 'string' ? { pushedBy } : {}) });
  }
  return waiting.reverse();
}

/**
 * Whether `close` ends the task scheduled as `scheduled`: back through the task's own events. An
 * event with no previousEventId (a history read without it) is taken as closing it, as before
 * steps ran side by side.
 */
function closesTask(close: ApprovalHistoryEvent, scheduled: number, byId: ReadonlyMap<number, ApprovalHistoryEvent>): boolean {
  let at: ApprovalHistoryEvent | undefined = close;
  for (let hop = 0; hop < 4 && at; hop++) {
    if (at.previousEventId === undefined) return true;
    if (at.previousEventId === scheduled) return true;
    at = byId.get(at.previousEventId);
    if (at && !TASK_OWN.has(at.type ?? '')) return false;
  }
  return false;
}

const TASK_OWN = new Set(['TaskStarted', 'TaskSubmitted']);

type AwaitApprovalPayload = { task?: unknown; index?: unknown; taskToken?: unknown; build?: { pushedBy?: unknown }; step?: { name?: unknown; approval?: NonNullable<Step['approval']> } };

function payloadOf(parameters: string | undefined): AwaitApprovalPayload | undefined {
  try {
    return (JSON.parse(parameters ?? '') as { Payload?: AwaitApprovalPayload }).Payload;
  } catch {
    return undefined;
  }
}
