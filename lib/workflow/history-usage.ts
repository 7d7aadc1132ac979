import type { BuildUsage, LambdaArchitecture, PodUsage } from './cost-model.js';
import type { StepRecord } from './step-log-store.js';

/**
 * The fields of a Step Functions HistoryEvent the count reads (GetExecutionHistory;
 * docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html).
 */
export interface AwsHistoryEvent {
  id: number;
  previousEventId?: number;
  type: string;
  timestamp: Date | string;
  lambdaFunctionScheduledEventDetails?: { resource?: string };
  taskScheduledEventDetails?: { resourceType?: string; resource?: string; parameters?: string };
}

/** Each Lambda function's memory by its serverless.yml name, and what Lambda bills it on. */
export interface FunctionSizes {
  architecture: LambdaArchitecture;
  memoryMb: Readonly<Record<string, number>>;
}

const ENDS = new Set(['LambdaFunctionSucceeded', 'LambdaFunctionFailed', 'LambdaFunctionTimedOut', 'TaskSubmitted', 'TaskSubmitFailed', 'TaskFailed', 'TaskTimedOut']);

/**
 * The memory of the function a resource ARN names: deployed as `SERVICE-STAGE-NAME`
 * (serverless.yml's key last), possibly with a qualifier after it.
 */
function memoryOf(resource: string | undefined, sizes: FunctionSizes): number | undefined {
  const functionName = resource?.split(':function:')[1]?.split(':')[0] ?? resource ?? '';
  const key = Object.keys(sizes.memoryMb).find((name) => functionName === name || functionName.endsWith(`-${name}`));
  return key === undefined ? undefined : sizes.memoryMb[key];
}

/** A callback Task's function: its Parameters' FunctionName (lambda:invoke.waitForTaskToken). */
function callbackFunction(details: AwsHistoryEvent['taskScheduledEventDetails']): string | undefined {
  try {
    return (JSON.parse(details?.parameters ?? '{}') as { FunctionName?: string }).FunctionName;
  } catch {
    return undefined;
  }
}

const ms = (at: Date | string) => new Date(at).getTime();

/**
 * What the build used, from its execution's history as GetExecutionHistory gives it so far, and
 * the records its steps' FinishStep kept (docs/cost.md, "On AWS"):
 * - transitions: every `*StateEntered`, and every retry (an invocation scheduled again in a Task
 *   already entered), which Step Functions bills as one more;
 * - Lambda: each invocation scheduled (a direct Lambda Task, or a callback Task's lambda:invoke),
 *   for the time from its start to its end event at its function's memory: a little more than
 *   Lambda's billed duration, which history does not carry (Step Functions' own dispatch is in it);
 * - S3: what each step's FinishStep counted it wrote (its logs, live-log parts, artifacts and
 *   record, their bytes), and this report's reading of the records (a LIST, a GET each);
 * - pods: the records' (the last attempt of each step: an earlier attempt's record is replaced),
 *   and `unfinished`: the pods of the steps still running when the execution ended outside the
 *   definition (stopped, timed out), which no FinishStep recorded (running-steps.ts).
 */
export function historyUsage(events: readonly AwsHistoryEvent[], sizes: FunctionSizes, records: readonly StepRecord[], unfinished: readonly PodUsage[] = []): BuildUsage {
  let entered = 0;
  let taskEntered = 0;
  let scheduledInTasks = 0;
  let gbSeconds = 0;
  const byId = new Map(events.map((event) => [event.id, event]));
  const scheduledMemory = new Map<number, number>();
  for (const event of events) {
    if (event.type.endsWith('StateEntered')) entered++;
    if (event.type === 'TaskStateEntered') taskEntered++;
    if (event.type === 'LambdaFunctionScheduled') {
      scheduledInTasks++;
      scheduledMemory.set(event.id, memoryOf(event.lambdaFunctionScheduledEventDetails?.resource, sizes) ?? 0);
    }
    if (event.type === 'TaskScheduled' && event.taskScheduledEventDetails?.resourceType === 'lambda') {
      scheduledInTasks++;
      scheduledMemory.set(event.id, memoryOf(callbackFunction(event.taskScheduledEventDetails), sizes) ?? 0);
    }
    if (!ENDS.has(event.type)) continue;
    // The end follows its start, which follows its scheduling (previousEventId).
    const started = event.previousEventId !== undefined ? byId.get(event.previousEventId) : undefined;
    const scheduled = started?.previousEventId !== undefined ? started.previousEventId : undefined;
    const memory = scheduled !== undefined ? scheduledMemory.get(scheduled) : undefined;
    if (!started || memory === undefined || !/Started$/.test(started.type)) continue;
    gbSeconds += (memory / 1024) * (Math.max(0, ms(event.timestamp) - ms(started.timestamp)) / 1000);
  }
  return {
    transitions: entered + Math.max(0, scheduledInTasks - taskEntered),
    lambda: { invocations: scheduledInTasks, gbSeconds, architecture: sizes.architecture },
    // What each step wrote (FinishStep's count), and this report's reading of the records: a LIST, a GET each.
    s3: records.reduce((sum, record) => ({ puts: sum.puts + (record.s3?.puts ?? 0), gets: sum.gets + (record.s3?.gets ?? 0), bytesWritten: sum.bytesWritten + (record.s3?.bytes ?? 0) }), { puts: 0, gets: records.length + 1, bytesWritten: 0 }),
    pods: [...records.flatMap((record) => (record.pod ? [record.pod] : [])), ...unfinished],
  };
}
