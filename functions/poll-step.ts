import { lambdaTaskRuntime } from '../lib/lambda/task-runtime.js';
import { pollStepHandler } from '../lib/workflow/handlers.js';

export const handler = pollStepHandler(lambdaTaskRuntime());
