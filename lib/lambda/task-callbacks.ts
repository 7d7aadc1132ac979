/**
 * SendTaskSuccess on AWS, for FinishApproval and AwaitApprovedNeeds (lib/workflow/tasks/approval-waits.ts):
 * the steps waiting for an approval answered once it is given. A task closed already answers
 * TaskTimedOut ("The task token has either expired or the task associated with the token has
 * already been closed", SendTaskSuccess in the Step Functions API Reference), which the caller
 * takes as answered. The SDK is loaded on first use, as sfnExecutionStopper's.
 */
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { TaskCallbacks } from '../workflow/task-deps.js';

export function sfnTaskCallbacks(client?: SFNClient): TaskCallbacks {
  let sfn: SFNClient | undefined = client;
  return {
    async sendTaskSuccess(taskToken, output) {
      const { SFNClient: Client, SendTaskSuccessCommand } = await import('@aws-sdk/client-sfn');
      sfn ??= new Client({});
      await sfn.send(new SendTaskSuccessCommand({ taskToken, output }));
    },
  };
}
