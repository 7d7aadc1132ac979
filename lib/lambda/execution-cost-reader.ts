/**
 * A build's cost on AWS, at its end (ReportStatus): its execution's history so far, read with
 * GetExecutionHistory a page of 1,000 events at a time (at most MAX_PAGES: a call each, within
 * the API's rate), counted by lib/workflow/history-usage.ts with the steps' records, priced by the
 * one cost model. The SDK is loaded on first use, as execution-stopper.ts loads it.
 */
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { CostSummary } from '../contract/index.js';
import { buildCost, type PodUsage, type Prices } from '../workflow/cost-model.js';
import { logger } from '../workflow/lambda-task.js';
import { deploymentPrices, EnvNames } from './settings.js';
import { historyUsage, type AwsHistoryEvent, type FunctionSizes } from '../workflow/history-usage.js';
import type { StepRecord } from '../workflow/step-log-store.js';

/** 20,000 events: a build of many long steps; past it the count is of the first 20,000 (the log says so). */
export const MAX_PAGES = 20;

export type ExecutionCostReader = (executionArn: string, records: readonly StepRecord[], unfinished?: readonly PodUsage[]) => Promise<CostSummary & { complete: boolean }>;

export function sfnExecutionCostReader(sizes: FunctionSizes, prices: Prices, client?: SFNClient): ExecutionCostReader {
  let sfn: SFNClient | undefined = client;
  return async (executionArn, records, unfinished = []) => {
    const { SFNClient: Client, GetExecutionHistoryCommand } = await import('@aws-sdk/client-sfn');
    sfn ??= new Client({});
    const events: AwsHistoryEvent[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const page = await sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000, includeExecutionData: false, ...(nextToken ? { nextToken } : {}) }));
      events.push(...((page.events ?? []) as AwsHistoryEvent[]));
      nextToken = page.nextToken;
      pages++;
    } while (nextToken && pages < MAX_PAGES);
    const { usd, parts, prices: at } = buildCost(historyUsage(events, sizes, records, unfinished), prices);
    return { usd, parts, prices: at, complete: !nextToken };
  };
}

/**
 * The reader a deployment's settings give (COST_FUNCTIONS, COST_PRICES), for ReportStatus and the
 * ended-execution cleanup alike; none (the build's reports go without a cost, and the log says
 * why) when they are missing or wrong.
 */
export function deploymentCostReader(env: NodeJS.ProcessEnv): ExecutionCostReader | undefined {
  try {
    const text = env[EnvNames.costFunctions];
    if (!text) return undefined;
    const sizes = JSON.parse(text) as FunctionSizes;
    return sfnExecutionCostReader(sizes, deploymentPrices(env));
  } catch (error) {
    logger.warn("No build's cost is reported: the deployment's COST_FUNCTIONS or COST_PRICES is wrong", { reason: (error as Error).message });
    return undefined;
  }
}
