import { GetExecutionHistoryCommand, SFNClient, type HistoryEvent } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { DEFAULT_PRICES } from '../workflow/cost-model.js';
import { MAX_PAGES, sfnExecutionCostReader } from './execution-cost-reader.js';

const ARN = 'arn:aws:states:us-east-1:123456789012:execution:serverless-step-runner-dev-build:gh-app-aaaaaaa-1';
const SIZES = { architecture: 'arm64' as const, memoryMb: { pollStep: 192 } };

/** One page of GetExecutionHistory: a state entered, and one PollStep invocation of a second. */
const page = (first: number): HistoryEvent[] => [
  { id: first, type: 'TaskStateEntered', timestamp: new Date(0) },
  { id: first + 1, previousEventId: first, type: 'LambdaFunctionScheduled', timestamp: new Date(0), lambdaFunctionScheduledEventDetails: { resource: 'arn:aws:lambda:us-east-1:123456789012:function:serverless-step-runner-dev-pollStep' } },
  { id: first + 2, previousEventId: first + 1, type: 'LambdaFunctionStarted', timestamp: new Date(0) },
  { id: first + 3, previousEventId: first + 2, type: 'LambdaFunctionSucceeded', timestamp: new Date(1000) },
];

describe("a build's cost from its execution's history, on AWS", () => {
  const sfn = mockClient(SFNClient);
  afterEach(() => sfn.reset());

  it('reads every page, without the execution data, and prices what they count', async () => {
    sfn.on(GetExecutionHistoryCommand).resolvesOnce({ events: page(1), nextToken: 'two' }).resolvesOnce({ events: page(5) });
    const cost = await sfnExecutionCostReader(SIZES, DEFAULT_PRICES, new SFNClient({ region: 'us-east-1' }))(ARN, []);
    expect(sfn.commandCalls(GetExecutionHistoryCommand).map((call) => call.args[0].input)).toEqual([
      { executionArn: ARN, maxResults: 1000, includeExecutionData: false },
      { executionArn: ARN, maxResults: 1000, includeExecutionData: false, nextToken: 'two' },
    ]);
    // Two transitions, two invocations of a second at 192 MB.
    expect(cost.parts.stepFunctions).toBeCloseTo(2 * 0.000025, 12);
    expect(cost.parts.lambda).toBeCloseTo(2 * 0.0000002 + 2 * 0.1875 * 0.0000133334, 12);
    expect(cost).toMatchObject({ complete: true, prices: { region: 'us-east-1', asOf: DEFAULT_PRICES.asOf } });
  });

  it(`stops after ${MAX_PAGES} pages and says the count is of those only`, async () => {
    sfn.on(GetExecutionHistoryCommand).resolves({ events: page(1), nextToken: 'more' });
    const cost = await sfnExecutionCostReader(SIZES, DEFAULT_PRICES, new SFNClient({ region: 'us-east-1' }))(ARN, []);
    expect(sfn.commandCalls(GetExecutionHistoryCommand)).toHaveLength(MAX_PAGES);
    expect(cost.complete).toBe(false);
  });
});
