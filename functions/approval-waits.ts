import { lambdaTaskRuntime } from '../lib/lambda/task-runtime.js';
import { approvalWaitsHandler } from '../lib/workflow/handlers.js';

export const handler = approvalWaitsHandler(lambdaTaskRuntime());
