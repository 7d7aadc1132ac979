import { lambdaTaskRuntime } from '../lib/lambda/task-runtime.js';
import { cleanupBuildHandler } from '../lib/workflow/handlers.js';

export const handler = cleanupBuildHandler(lambdaTaskRuntime());
