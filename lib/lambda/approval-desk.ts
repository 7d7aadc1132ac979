/**
 * Waiting approvals on AWS, for the webhook (lib/forge/approval-delivery.ts): found in the
 * execution's history (lib/workflow/waiting-approval.ts) and answered with SendTaskSuccess (the
 * step's result, with the decision) or SendTaskFailure (ApprovalRejected, the Cause naming who,
 * when and their comment). The token is read when a person allowed to decide has decided, and
 * goes nowhere but to Step Functions.
 */
import { GetExecutionHistoryCommand, SendTaskFailureCommand, SendTaskSuccessCommand, type HistoryEvent, type SFNClient } from '@aws-sdk/client-sfn';
import type { ApprovalDesk } from '../forge/approval-delivery.js';
import { executionArnFor } from '../forge/execution-name.js';
import { approvedResult, rejection } from '../workflow/approval-decision.js';
import { waitingApprovalIn, type ApprovalHistoryEvent, type ApprovalStepRef } from '../workflow/waiting-approval.js';

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
      const found = await findInHistory(sfn, executionArn, which);
      if (!found) return undefined;
      const { step, taskToken, pushedBy } = found;
      return {
        step: step.name,
        approval: step.approval,
        ...(pushedBy !== undefined ? { pushedBy } : {}),
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
 * Newest first (reverseOrder): the approval waits at the end of the history, so the first page
 * has it; a service that lists oldest first all the same is read to the end.
 */
async function findInHistory(sfn: Pick<SFNClient, 'send'>, executionArn: string, which: ApprovalStepRef) {
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
    events.push(...(answer.events ?? []).map(eventOf));
    const found = waitingApprovalIn(events, which);
    if (found || !answer.nextToken) return found;
    nextToken = answer.nextToken;
  }
  return undefined;
}

function eventOf(event: HistoryEvent): ApprovalHistoryEvent {
  return {
    id: event.id ?? 0,
    ...(event.previousEventId !== undefined ? { previousEventId: event.previousEventId } : {}),
    ...(event.type ? { type: event.type } : {}),
    ...(event.taskScheduledEventDetails ? { taskScheduledEventDetails: { resource: event.taskScheduledEventDetails.resource, parameters: event.taskScheduledEventDetails.parameters } } : {}),
  };
}
