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
}

export interface LocalApprovals {
  decide(request: ApprovalRequest): Promise<void>;
}

/** `by`: who decides (default the local user); `now` for the record's time. */
export function localApprovals(options: { cluster: Pick<StepCluster, 'readApprovalToken'>; tokens: TaskTokens; by?: () => string; now?: () => Date }): LocalApprovals {
  const by = options.by ?? (() => userInfo().username);
  const now = options.now ?? (() => new Date());
  return {
    async decide({ namespace, buildId, execution, step, action, comment }) {
      const token = await options.cluster.readApprovalToken(namespace, approvalTokenName(buildId, step));
      const notWaiting = () => new ApprovalNotWaiting(`Step ${JSON.stringify(step)} of execution ${execution} is not waiting for an approval.`);
      if (token === undefined) throw notWaiting();
      try {
        if (action === 'approve') options.tokens.sendTaskSuccess(token, JSON.stringify(approvedResult(step, by(), now(), comment)));
        else {
          const { error, cause } = rejection(step, by(), now(), comment);
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
