import { lambdaTaskRuntime } from '../lib/lambda/task-runtime.js';
import { prepareBuildHandler } from '../lib/workflow/handlers.js';

export const handler = prepareBuildHandler(lambdaTaskRuntime());
