import { lambdaTask, logger } from '../lib/workflow/lambda-task.js';
import { taskRuntime } from '../lib/workflow/task-runtime.js';
import { prepareBuild } from '../lib/workflow/tasks/prepare-build.js';
import type { BuildInput } from '../lib/workflow/state-data.js';

export const handler = lambdaTask(async (input: BuildInput) => prepareBuild(input, taskRuntime(logger).config, logger));
