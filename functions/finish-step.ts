import { lambdaTaskRuntime } from '../lib/lambda/task-runtime.js';
import { finishStepHandler } from '../lib/workflow/handlers.js';

export const handler = finishStepHandler(lambdaTaskRuntime());
