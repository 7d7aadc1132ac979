import { createPrepareBuildHandler } from '../lib/lambda/prepare-build.js';

export const handler = createPrepareBuildHandler();
