import { lambdaTask, logger } from '../lib/workflow/lambda-task.js';
import { taskRuntime } from '../lib/workflow/task-runtime.js';
import { cleanupBuild } from '../lib/workflow/tasks/cleanup-build.js';
import type { PreparedBuild } from '../lib/workflow/state-data.js';

export const handler = lambdaTask(async (input: PreparedBuild) => {
  const { config, deps } = taskRuntime(logger);
  return cleanupBuild(input, config.namespace, deps);
});
