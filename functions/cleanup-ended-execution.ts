import { createCleanupEndedExecutionHandler } from '../lib/lambda/cleanup-ended-execution.js';

export const handler = createCleanupEndedExecutionHandler();
