import { lambdaTask, logger } from '../lib/workflow/lambda-task.js';
import { taskRuntime } from '../lib/workflow/task-runtime.js';
import { pollStep } from '../lib/workflow/tasks/poll-step.js';
import type { StepInput } from '../lib/workflow/state-data.js';

/** A watch must end well before the invocation does, or the poll is lost to a Lambda timeout. */
const WATCH_MARGIN_MS = 5_000;

export const handler = lambdaTask(async (input: StepInput, context) =>
  pollStep(input, taskRuntime(logger).deps, { maxWatchMs: context.getRemainingTimeInMillis() - WATCH_MARGIN_MS }),
);
