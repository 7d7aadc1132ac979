/**
 * Waiting approvals on AWS, for the webhook (lib/forge/approval-delivery.ts) and for ReportStatus's
 * check run buttons (stepFunctionsWaitingApprovals): found in the execution's history
 * (lib/workflow/waiting-approval.ts) and answered with SendTaskSuccess (the step's result, with the
 * decision) or SendTaskFailure (ApprovalRejected, the Cause naming who, when and their comment).
 * The token is read when a person allowed to decide has decided, and goes nowhere but to Step
 * Functions; the reader for ReportStatus drops it.
 */
import { GetExecutionHistoryCommand, SendTaskFailureCommand, SendTaskSuccessCommand, type HistoryEvent, type SFNClient } from '@aws-sdk/client-sfn';
import type { WaitingStepReport } from '../contract/index.js';
import type { ApprovalDesk } from '../forge/approval-delivery.js';
import { executionArnFor } from '../forge/execution-name.js';
import { approvedResult, rejection } from '../workflow/approval-decision.js';
import { CALLBACK_RESOURCE, endsTheExecution, waitingApprovalIn, waitingApprovalsIn, type ApprovalHistoryEvent } from '../workflow/waiting-approval.js';

/** GetExecutionHistory's largest page; an execution has at most 25,000 events. */
const PAGE = 1000;
const MAX_PAGES = 25;

/**
 * What SendTask* answers for a token whose task no longer waits: TaskTimedOut ("the task associated
 * with the token has already been closed"), InvalidToken, TaskDoesNotExist (SendTaskSuccess in the
 * Step Functions API Reference).
 */
const NOT_WAITING = new Set(['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist']);

export function stepFunctionsApprovalDesk(sfn: Pick<SFNClient, 'send'>, stateMachineArn: string): ApprovalDesk {
  return {
    async waiting(executionName, which) {
      const executionArn = executionArnFor(stateMachineArn, executionName);
      const events = await approvalHistory(sfn, executionArn);
      const found = events && waitingApprovalIn(events, which);
      if (!found) return undefined;
      const { step, taskToken, pushedBy } = found;
      return {
        step: step.name,
        approval: step.approval,
        ...(pushedBy !== undefined ? { pushedBy } : {}),
        waiting: waitingApprovalsIn(events).map(({ index, step: { name, approval } }) => ({ name, index, approval })),
        async decide({ action, by, at, comment }) {
          try {
            if (action === 'approve') {
              await sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(approvedResult(step.name, by, at, comment)) }));
            } else {
              const { error, cause } = rejection(step.name, by, at, comment);
              await sfn.send(new SendTaskFailureCommand({ taskToken, error, cause }));
            }
            return true;
          } catch (error) {
            if (NOT_WAITING.has((error as Error).name)) return false;
            throw error;
          }
        },
      };
    },
  };
}

/**
 * ReportStatus's reader (StatusReporter.waitingApprovals): the approval steps an execution waits on,
 * from its whole history, without their tokens (nothing of a report carries one).
 */
export function stepFunctionsWaitingApprovals(sfn: Pick<SFNClient, 'send'>): (executionArn: string) => Promise<WaitingStepReport[]> {
  return async (executionArn) => {
    const events = (await approvalHistory(sfn, executionArn)) ?? [];
    return waitingApprovalsIn(events).map(({ index, step }) => ({ index, step }));
  };
}

/**
 * The whole history (a second approval may have waited since long before the one clicked, and each
 * wait's close must be seen), newest first, down to the end of the execution's run before a redrive
 * (nothing older waits: waitingApprovalsIn); undefined when the execution does not exist. Only the
 * callback Tasks' Parameters are kept: every other Task's (a whole build's and step's, thousands
 * of times in a long build) is nothing the reading needs.
 */
async function approvalHistory(sfn: Pick<SFNClient, 'send'>, executionArn: string): Promise<ApprovalHistoryEvent[] | undefined> {
  const events: ApprovalHistoryEvent[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    let answer;
    try {
      answer = await sfn.send(new GetExecutionHistoryCommand({ executionArn, reverseOrder: true, maxResults: PAGE, includeExecutionData: true, ...(nextToken ? { nextToken } : {}) }));
    } catch (error) {
      if ((error as Error).name === 'ExecutionDoesNotExist') return undefined;
      throw error;
    }
    const read = (answer.events ?? []).map(eventOf);
    events.push(...read);
    // A page newest first (reverseOrder) holding a run's end: the pages after it are older still.
    const newestFirst = read.length < 2 || read[0]!.id > read.at(-1)!.id;
    if (!answer.nextToken || (newestFirst && read.some(endsTheExecution))) break;
    nextToken = answer.nextToken;
  }
  return events;
}

function eventOf(event: HistoryEvent): ApprovalHistoryEvent {
  return {
    id: event.id ?? 0,
    ...(event.previousEventId !== undefined ? { previousEventId: event.previousEventId } : {}),
    ...(event.type ? { type: event.type } : {}),
    ...(event.taskScheduledEventDetails ? { taskScheduledEventDetails: scheduledOf(event.taskScheduledEventDetails) } : {}),
  };
}

function scheduledOf({ resource, parameters }: NonNullable<HistoryEvent['taskScheduledEventDetails']>): ApprovalHistoryEvent['taskScheduledEventDetails'] {
  return resource === CALLBACK_RESOURCE ? { resource, parameters } : { resource };
}
