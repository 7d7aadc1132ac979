import { lambdaTask, logger } from '../lib/workflow/lambda-task.js';
import { taskRuntime } from '../lib/workflow/task-runtime.js';
import { finishStep } from '../lib/workflow/tasks/finish-step.js';
import type { StepInput } from '../lib/workflow/state-data.js';

export const handler = lambdaTask(async (input: StepInput) => finishStep(input, taskRuntime(logger).deps));
