import { buildCost, type BuildCost, type BuildUsage, type LambdaArchitecture, type PodUsage, type Prices } from '../../workflow/cost-model.js';
import type { StepResult } from '../../workflow/state-data.js';
import type { ExecutionEvent } from './execution-history.js';
import { isFinishState } from './states.js';

/**
 * What an execution used, counted from its history (docs/cost.md, "Locally"):
 * - transitions: every state entered, and every retry, which Step Functions bills as one more
 *   (aws.amazon.com/step-functions/pricing: "including retries");
 * - Lambda: one request per invocation, its billed time at its function's memory (the Lambda*
 *   events, lambda-invocations.ts);
 * - S3: what each step's FinishStep counted it wrote (StepResult.s3: its logs, live-log parts,
 *   artifacts and record, their bytes);
 * - pods: every attempt's pod, as its FinishStep measured it (StepResult.pod), and `unfinished`:
 *   the pods of the steps still running when the execution was stopped or timed out, as the
 *   ended-execution cleanup measured them (running-steps.ts), as on AWS (history-usage.ts).
 * A redriven execution's history holds its earlier runs, which were billed too.
 */
export function executionUsage(history: readonly ExecutionEvent[], architecture: LambdaArchitecture, unfinished: readonly PodUsage[] = []): BuildUsage {
  let transitions = 0;
  let invocations = 0;
  let gbSeconds = 0;
  const s3 = { puts: 0, gets: 0, bytesWritten: 0 };
  const pods: PodUsage[] = [];
  for (const event of history) {
    if (event.type === 'StateEntered' || event.type === 'StateRetried') transitions++;
    if (event.lambda) {
      invocations++;
      gbSeconds += (event.lambda.memoryMb / 1024) * (event.lambda.billedMs / 1000);
    }
    if (event.type !== 'TaskSucceeded' || !isFinishState(event.state?.name)) continue;
    const result = event.state?.output as Partial<StepResult> | undefined;
    if (result?.s3) {
      s3.puts += result.s3.puts;
      s3.gets += result.s3.gets;
      s3.bytesWritten += result.s3.bytes;
    }
    if (result?.pod) pods.push(result.pod);
  }
  pods.push(...unfinished);
  return { transitions, lambda: { invocations, gbSeconds, architecture }, s3, pods };
}

export const executionCost = (history: readonly ExecutionEvent[], architecture: LambdaArchitecture, prices?: Prices, unfinished: readonly PodUsage[] = []): BuildCost =>
  buildCost(executionUsage(history, architecture, unfinished), prices);
