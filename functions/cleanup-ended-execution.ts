import { lambdaTaskRuntime } from '../lib/lambda/task-runtime.js';
import { cleanupEndedExecutionHandler } from '../lib/workflow/handlers.js';

export const handler = cleanupEndedExecutionHandler(lambdaTaskRuntime());
