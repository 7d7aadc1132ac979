/**
 * Approve or reject a waiting approval step of a local execution, as the runner does on AWS: the
 * step's task token is read from its Secret (lib/kube/approval-token.ts, where AwaitApproval kept
 * it) and answered with SendTaskSuccess (approved: the step's result with the decision) or
 * SendTaskFailure (rejected: ApprovalRejected, the Cause naming who, when and their comment), on
 * the process's task tokens (lib/emulators/stepfunctions/task-tokens.ts). Locally whoever may stop
 * the build may decide, as the local user.
 */
import { userInfo } from 'node:os';
import { ExecutionControlError } from '../../emulators/stepfunctions/execution-errors.js';
import { TaskTokenError, type TaskTokens } from '../../emulators/stepfunctions/executor.js';
import { approvalTokenName } from '../../kube/index.js';
import type { StepCluster } from '../../kube/step-cluster.js';
import { approvedResult, rejection } from '../../workflow/approval-decision.js';
import type { ApprovalAction } from '../../forge/approver-rule.js';
import type { ApprovalDesk } from '../../forge/approval-delivery.js';
import type { Step } from '../../pipeline/index.js';
import type { WaitingStepReport } from '../../contract/index.js';

export type { ApprovalAction } from '../../forge/approver-rule.js';

/** The step is no approval step of the build, or it is not waiting (not yet, or decided already). */
export class ApprovalNotWaiting extends ExecutionControlError {
  override readonly name = 'ApprovalNotWaiting';
  readonly statusCode = 409;
}

/** What was asked of the step. */
export interface ApprovalRequest {
  namespace: string;
  buildId: string;
  execution: string;
  step: string;
  action: ApprovalAction;
  comment?: string;
  /** Who decides, when someone else than the local user: a GitHub login, checked already (a check run's button). */
  by?: string;
}

export interface LocalApprovals {
  decide(request: ApprovalRequest): Promise<void>;
}

/** `by`: who decides (default the local user); `now` for the record's time. */
export function localApprovals(options: { cluster: Pick<StepCluster, 'readApprovalToken'>; tokens: TaskTokens; by?: () => string; now?: () => Date }): LocalApprovals {
  const by = options.by ?? (() => userInfo().username);
  const now = options.now ?? (() => new Date());
  return {
    async decide({ namespace, buildId, execution, step, action, comment, by: who }) {
      const token = await options.cluster.readApprovalToken(namespace, approvalTokenName(buildId, step));
      const notWaiting = () => new ApprovalNotWaiting(`Step ${JSON.stringify(step)} of execution ${execution} is not waiting for an approval.`);
      if (token === undefined) throw notWaiting();
      try {
        const decider = who ?? by();
        if (action === 'approve') options.tokens.sendTaskSuccess(token, JSON.stringify(approvedResult(step, decider, now(), comment)));
        else {
          const { error, cause } = rejection(step, decider, now(), comment);
          options.tokens.sendTaskFailure(token, error, cause);
        }
      } catch (error) {
        // Answered already, timed out, or its execution ended: TaskTimedOut. A token of another process: InvalidToken.
        if (error instanceof TaskTokenError) throw notWaiting();
        throw error;
      }
    },
  };
}

/**
 * The local server's desk for a check run's Approve and Reject (lib/forge/approval-delivery.ts), as
 * the deployed one is: the step of the button's iteration, answered through the Secret's token as
 * the console's buttons are, in the name of the GitHub login that clicked.
 */
export function localApprovalDesk(executions: {
  approvalStepAt(name: string, which: { index: number } | { step: string }): { step: Step; pushedBy?: string } | undefined;
  decide(name: string, step: string, action: ApprovalAction, comment?: string, by?: string): Promise<unknown>;
  waitingApprovals(name: string): WaitingStepReport[];
}): ApprovalDesk {
  return {
    async waiting(name, which) {
      const found = executions.approvalStepAt(name, which);
      const step = found?.step;
      if (!found || !step?.approval) return undefined;
      return {
        step: step.name,
        approval: step.approval,
        ...(found.pushedBy !== undefined ? { pushedBy: found.pushedBy } : {}),
        waiting: executions.waitingApprovals(name).flatMap(({ index, step }) => (step.approval ? [{ name: step.name, index, approval: step.approval }] : [])),
        async decide({ action, by, comment }) {
          try {
            await executions.decide(name, step.name, action, comment, by);
            return true;
          } catch (error) {
            if (error instanceof ApprovalNotWaiting || error instanceof ExecutionControlError) return false;
            throw error;
          }
        },
      };
    },
  };
}
