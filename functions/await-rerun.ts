import { awaitRerunHandler } from '../lib/workflow/handlers.js';

export const handler = awaitRerunHandler();
