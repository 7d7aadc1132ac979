import { lambdaTask, logger } from '../lib/workflow/lambda-task.js';
import { taskRuntime } from '../lib/workflow/task-runtime.js';
import { pollStep } from '../lib/workflow/tasks/poll-step.js';
import type { StepInput } from '../lib/workflow/state-data.js';

export const handler = lambdaTask(async (input: StepInput) => pollStep(input, taskRuntime(logger).deps));
