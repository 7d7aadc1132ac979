import { createLambdaWebhookHandler } from '../lib/lambda/webhook.js';

export const handler = createLambdaWebhookHandler();
