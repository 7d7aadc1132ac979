import { createLaunchStepHandler } from '../lib/lambda/launch-step.js';

export const handler = createLaunchStepHandler();
