import { lambdaTaskRuntime } from '../lib/lambda/task-runtime.js';
import { awaitApprovalHandler } from '../lib/workflow/handlers.js';

export const handler = awaitApprovalHandler(lambdaTaskRuntime());
