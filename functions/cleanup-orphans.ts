import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../lib/workflow/lambda-task.js';
import { taskRuntime } from '../lib/workflow/task-runtime.js';
import { cleanupOrphans, orphanMarginSeconds } from '../lib/workflow/tasks/cleanup-orphans.js';

/** EventBridge schedule: the sweep for runner pods that no execution cleaned up. */
export const handler = middy()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    const { config, deps } = taskRuntime(logger);
    return cleanupOrphans(config.namespace, orphanMarginSeconds(), deps);
  });
