import { lambdaTaskRuntime } from '../lib/lambda/task-runtime.js';
import { launchStepHandler } from '../lib/workflow/handlers.js';

export const handler = launchStepHandler(lambdaTaskRuntime());
