import { lambdaTaskRuntime } from '../lib/lambda/task-runtime.js';
import { waitForNeedsHandler } from '../lib/workflow/handlers.js';

export const handler = waitForNeedsHandler(lambdaTaskRuntime());
