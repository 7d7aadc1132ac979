import { buildCost, orchestrationDollars } from './cost-model.js';
import { historyUsage, type AwsHistoryEvent, type FunctionSizes } from './history-usage.js';
import type { StepRecord } from './step-log-store.js';

const SIZES: FunctionSizes = { architecture: 'arm64', memoryMb: { prepareBuild: 256, pollStep: 192, awaitApproval: 256 } };
const FN = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:serverless-step-runner-dev-${name}`;
const at = (seconds: number) => new Date(Date.UTC(2026, 11, 6, 9, 0, seconds));

/**
 * A history as GetExecutionHistory pages it (API_HistoryEvent: ids in order, previousEventId
 * linking an invocation's scheduling, start and end), made from a list of [type, seconds, details].
 */
function history(rows: [string, number, Partial<AwsHistoryEvent>?][]): AwsHistoryEvent[] {
  return rows.map(([type, seconds, details], i) => ({ id: i + 1, previousEventId: i, type, timestamp: at(seconds), ...details }));
}

const lambda = (name: string, from: number, to: number, end = 'LambdaFunctionSucceeded'): [string, number, Partial<AwsHistoryEvent>?][] => [
  ['LambdaFunctionScheduled', from, { lambdaFunctionScheduledEventDetails: { resource: FN(name) } }],
  ['LambdaFunctionStarted', from],
  [end, to],
];

const record = (step: string, pod?: StepRecord['pod']): StepRecord => ({ step, status: 'succeeded', exitCode: 0, error: null, startedAt: at(0).toISOString(), endedAt: at(60).toISOString(), ...(pod ? { pod } : {}) });

describe('historyUsage: what a build used, from its AWS execution history and its steps\' records', () => {
  it.each<[string, AwsHistoryEvent[], { transitions: number; invocations: number; gbSeconds: number }]>([
    ['nothing but the start', history([['ExecutionStarted', 0]]), { transitions: 0, invocations: 0, gbSeconds: 0 }],
    [
      'a Task (PrepareBuild, 256 MB for 2 s), a Choice and a Wait',
      history([['ExecutionStarted', 0], ['TaskStateEntered', 0], ...lambda('prepareBuild', 0, 2), ['TaskStateExited', 2], ['ChoiceStateEntered', 2], ['ChoiceStateExited', 2], ['WaitStateEntered', 2], ['WaitStateExited', 7]]),
      { transitions: 3, invocations: 1, gbSeconds: 0.25 * 2 },
    ],
    [
      'a retried Task: one more transition and one more invocation (PollStep, 192 MB)',
      history([['TaskStateEntered', 0], ...lambda('pollStep', 0, 4, 'LambdaFunctionFailed'), ...lambda('pollStep', 6, 10), ['TaskStateExited', 10]]),
      { transitions: 2, invocations: 2, gbSeconds: 0.1875 * 4 + 0.1875 * 4 },
    ],
    [
      'a timed-out invocation is billed to its end',
      history([['TaskStateEntered', 0], ...lambda('pollStep', 0, 300, 'LambdaFunctionTimedOut'), ['TaskStateExited', 300]]),
      { transitions: 1, invocations: 1, gbSeconds: 0.1875 * 300 },
    ],
    [
      "a callback Task's invocation, not its wait for the token (AwaitApproval)",
      history([
        ['TaskStateEntered', 0],
        ['TaskScheduled', 0, { taskScheduledEventDetails: { resourceType: 'lambda', resource: 'invoke.waitForTaskToken', parameters: JSON.stringify({ FunctionName: FN('awaitApproval') }) } }],
        ['TaskStarted', 0],
        ['TaskSubmitted', 1],
        ['TaskSucceeded', 3600],
        ['TaskStateExited', 3600],
      ]),
      { transitions: 1, invocations: 1, gbSeconds: 0.25 * 1 },
    ],
    ['a Map and its iteration', history([['MapStateEntered', 0], ['MapIterationStarted', 0], ['PassStateEntered', 0], ['MapIterationSucceeded', 0], ['MapStateExited', 0], ['SucceedStateEntered', 0]]), { transitions: 3, invocations: 0, gbSeconds: 0 }],
  ])('%s', (_, events, expected) => {
    const usage = historyUsage(events, SIZES, []);
    expect({ transitions: usage.transitions, invocations: usage.lambda.invocations }).toEqual({ transitions: expected.transitions, invocations: expected.invocations });
    expect(usage.lambda.gbSeconds).toBeCloseTo(expected.gbSeconds, 9);
    // Priced by the one model: what the bench gives for the same counts.
    const cost = buildCost(usage);
    expect(cost.parts.stepFunctions + cost.parts.lambda).toBeCloseTo(orchestrationDollars(expected.transitions, expected.invocations, expected.gbSeconds), 12);
  });

  it("takes the pods and the S3 writes from the steps' records, and counts this report's reads", () => {
    const pod = { step: 'test', cpu: 1, memoryBytes: 2 ** 31, seconds: 120, instanceType: 'm7g.large' };
    const usage = historyUsage([], SIZES, [{ ...record('clone'), s3: { puts: 2, gets: 0, bytes: 1200 } }, { ...record('test', pod), s3: { puts: 7, gets: 5, bytes: 3_000_000 } }, record('from-an-older-runner')]);
    expect(usage.pods).toEqual([pod]);
    expect(usage.s3).toEqual({ puts: 9, gets: 5 + 4, bytesWritten: 3_001_200 });
  });
});
