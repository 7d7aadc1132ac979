import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../lib/workflow/lambda-task.js';
import { taskRuntime } from '../lib/workflow/task-runtime.js';
import { cleanupEndedExecution, type ExecutionStatusChange } from '../lib/workflow/tasks/cleanup-ended-execution.js';

/** EventBridge: an execution of the build state machine was ABORTED or TIMED_OUT. */
export const handler = middy<ExecutionStatusChange>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    const { config, deps } = taskRuntime(logger);
    return cleanupEndedExecution(event, config.namespace, deps);
  });
