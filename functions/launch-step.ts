import { lambdaTask, logger } from '../lib/workflow/lambda-task.js';
import { taskRuntime } from '../lib/workflow/task-runtime.js';
import { launchStep } from '../lib/workflow/tasks/launch-step.js';
import type { StepInput } from '../lib/workflow/state-data.js';

export const handler = lambdaTask(async (input: StepInput) => launchStep(input, taskRuntime(logger).deps));
