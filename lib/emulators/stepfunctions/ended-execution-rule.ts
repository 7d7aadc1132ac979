import type { ExecutionInput } from '../../contract/index.js';
import { cleanupEndedExecutionHandler } from '../../workflow/handlers.js';
import type { TaskRuntime } from '../../workflow/task-deps.js';
import type { BuildCostReader, StatusReporter } from '../../workflow/tasks/report-status.js';
import type { EndedExecutionCleanup } from '../../workflow/tasks/cleanup-ended-execution.js';
import { localLambdaContext } from '../lambda/lambda-context.js';
import { localExecutionArn } from './arns.js';
import type { ExecutionEvent } from './execution-history.js';
import { EXECUTION_ENDS } from './execution-instants.js';

/** How an execution ended outside its definition, as the service's status change event says it. */
export interface EndedOutside {
  status: 'ABORTED' | 'TIMED_OUT';
  /** The execution's start and end, in milliseconds since the epoch. */
  startDate: number;
  stopDate: number;
  /** StopExecution's error and cause. */
  reason?: { error: string; cause: string };
}

/**
 * Whether the execution that just ended did so outside its definition, and when: aborted
 * (StopExecution), or past the definition's TimeoutSeconds (aws-local-stepfunctions' ExecutionTimeout
 * event), either of which ends it where no Catch runs. Its end is its own end event's time: a
 * redriven execution's history holds its earlier end too. Pure.
 */
export function endedOutside(
  aborted: boolean,
  history: readonly Pick<ExecutionEvent, 'type' | 'timestamp'>[],
  startedAt: string,
  now: () => number = Date.now,
): Omit<EndedOutside, 'reason'> | undefined {
  const end = history.findLast((event) => EXECUTION_ENDS.has(event.type));
  const status = aborted ? 'ABORTED' : end?.type === 'ExecutionTimeout' ? 'TIMED_OUT' : undefined;
  if (!status) return undefined;
  const own = end?.type === (status === 'ABORTED' ? 'ExecutionAborted' : 'ExecutionTimeout') ? end.timestamp : undefined;
  return { status, startDate: Date.parse(startedAt), stopDate: own ?? now() };
}

/**
 * What EventBridge does on AWS when an execution is aborted or times out: the same
 * cleanup-ended-execution handler, with the event it would get ("Step Functions Execution Status
 * Change", the Step Functions guide's EventBridge events: status, input, error, cause, startDate and
 * stopDate in ms), deletes the build's objects, posts (here: prints) the commit's status (`error`;
 * `pending` for a superseded build) with the build's cost (`cost`: the local history's, with the
 * pods of the steps it stopped) and sends its trace, since no state of the ended execution could.
 */
export async function cleanupAfterEnd(input: ExecutionInput, name: string, runtime: TaskRuntime, statuses: StatusReporter, ended: EndedOutside, cost?: BuildCostReader): Promise<EndedExecutionCleanup> {
  // As the service's event: StopExecution's error and cause, null when it was given none (and for a timeout).
  const event = {
    'detail-type': 'Step Functions Execution Status Change',
    detail: {
      executionArn: localExecutionArn(name),
      name,
      status: ended.status,
      input: JSON.stringify(input),
      error: ended.reason?.error ?? null,
      cause: ended.reason?.cause ?? null,
      startDate: ended.startDate,
      stopDate: ended.stopDate,
    },
  };
  return cleanupEndedExecutionHandler(runtime, () => statuses, cost)(event, localLambdaContext('cleanupEndedExecution'));
}
