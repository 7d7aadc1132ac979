import { orphanMarginSeconds } from '../lib/lambda/settings.js';
import { lambdaTaskRuntime } from '../lib/lambda/task-runtime.js';
import { cleanupOrphansHandler } from '../lib/workflow/handlers.js';

export const handler = cleanupOrphansHandler(lambdaTaskRuntime(), orphanMarginSeconds(process.env));
