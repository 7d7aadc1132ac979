/**
 * StopExecution on AWS, for superseding (lib/workflow/superseding.ts): the older build of a
 * concurrency group, or the build itself, stopped with StopExecution's `error` and `cause`, which
 * the console and the EventBridge status-change event then carry for the ABORTED execution. The
 * SDK is loaded on first use, so the functions that stop nothing do not pay for it at a cold start.
 */
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { ExecutionStopper } from '../workflow/superseding.js';

export function sfnExecutionStopper(client?: SFNClient): ExecutionStopper {
  let sfn: SFNClient | undefined = client;
  return {
    async stop(executionArn, error, cause) {
      const { SFNClient: Client, StopExecutionCommand } = await import('@aws-sdk/client-sfn');
      sfn ??= new Client({});
      try {
        await sfn.send(new StopExecutionCommand({ executionArn, error, cause }));
      } catch (failure) {
        // Gone (its history expired): nothing left to stop, as for one that has ended.
        if ((failure as { name?: string }).name === 'ExecutionDoesNotExist') return;
        throw failure;
      }
    },
  };
}
