import type { ExecutionInput } from '../../contract/index.js';
import { cleanupEndedExecutionHandler } from '../../workflow/handlers.js';
import type { TaskRuntime } from '../../workflow/task-deps.js';
import type { StatusReporter } from '../../workflow/tasks/report-status.js';
import { localLambdaContext } from '../lambda/lambda-context.js';
import { localExecutionArn } from './arns.js';

/**
 * What EventBridge does on AWS when an execution is aborted: the same cleanup-ended-execution
 * handler, with the event it would get, deletes the build's objects and posts (here: prints) the
 * commit's status (`error`; `pending` for a superseded build), since no state of the aborted execution could.
 */
export async function cleanupAfterAbort(
  input: ExecutionInput,
  name: string,
  runtime: TaskRuntime,
  statuses: StatusReporter,
  reason?: { error: string; cause: string },
): Promise<void> {
  // As the service's event: StopExecution's error and cause, null when it was given none.
  const event = {
    'detail-type': 'Step Functions Execution Status Change',
    detail: { executionArn: localExecutionArn(name), name, status: 'ABORTED', input: JSON.stringify(input), error: reason?.error ?? null, cause: reason?.cause ?? null },
  };
  await cleanupEndedExecutionHandler(runtime, () => statuses)(event, localLambdaContext('cleanupEndedExecution'));
}
