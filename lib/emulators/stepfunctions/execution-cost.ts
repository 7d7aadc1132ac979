import { buildCost, type BuildCost, type BuildUsage, type LambdaArchitecture, type PodUsage, type Prices } from '../../workflow/cost-model.js';
import type { PollState, StepResult } from '../../workflow/state-data.js';
import type { ExecutionEvent } from './execution-history.js';
import { isFinishState } from './states.js';

/**
 * What an execution used, counted from its history (docs/cost.md, "Locally"):
 * - transitions: every state entered, and every retry, which Step Functions bills as one more
 *   (aws.amazon.com/step-functions/pricing: "including retries");
 * - Lambda: one request per invocation, its billed time at its function's memory (the Lambda*
 *   events, lambda-invocations.ts);
 * - S3: one PUT per log kept (the step's, each service's, each live-log part), per step record and
 *   per artifact; the bytes of the artifacts and the live log's parts;
 * - pods: every attempt's pod, as its FinishStep measured it (StepResult.pod).
 * A redriven execution's history holds its earlier runs, which were billed too.
 */
export function executionUsage(history: readonly ExecutionEvent[], architecture: LambdaArchitecture): BuildUsage {
  let transitions = 0;
  let invocations = 0;
  let gbSeconds = 0;
  let puts = 0;
  let bytesWritten = 0;
  const pods: PodUsage[] = [];
  const liveLogs = new Map<string, { parts: number; bytes: number }>();
  for (const event of history) {
    if (event.type === 'StateEntered' || event.type === 'StateRetried') transitions++;
    if (event.lambda) {
      invocations++;
      gbSeconds += (event.lambda.memoryMb / 1024) * (event.lambda.billedMs / 1000);
    }
    if (event.type !== 'TaskSucceeded') continue;
    const output = event.state?.output;
    if (isFinishState(event.state?.name)) {
      const result = output as Partial<StepResult> | undefined;
      puts += 1 + (result?.log ? 1 : 0) + (result?.services ?? []).filter((service) => service.log).length;
      for (const artifact of result?.artifacts ?? []) {
        puts++;
        bytesWritten += artifact.size;
      }
      if (result?.pod) pods.push(result.pod);
    }
    const poll = output as Partial<PollState> | undefined;
    // A poll's live log so far (the last poll's is the whole of it), by the pod it is of.
    if (poll?.podName && poll.log) liveLogs.set(poll.podName, { parts: poll.log.parts, bytes: poll.log.bytes });
  }
  for (const log of liveLogs.values()) {
    puts += log.parts;
    bytesWritten += log.bytes;
  }
  return { transitions, lambda: { invocations, gbSeconds, architecture }, s3: { puts, gets: 0, bytesWritten }, pods };
}

export const executionCost = (history: readonly ExecutionEvent[], architecture: LambdaArchitecture, prices?: Prices): BuildCost =>
  buildCost(executionUsage(history, architecture), prices);
