import { GetExecutionHistoryCommand, type GetExecutionHistoryCommandInput, type HistoryEvent } from '@aws-sdk/client-sfn';
import { stepFunctionsWaitingApprovals } from './approval-desk.js';

/** AwaitApproval's TaskScheduled as Step Functions writes it: the Parameters resolved, as JSON text. */
const scheduled = (id: number, index: number, name: string): HistoryEvent => ({
  id,
  previousEventId: id - 1,
  timestamp: new Date(0),
  type: 'TaskScheduled',
  taskScheduledEventDetails: {
    resourceType: 'lambda',
    resource: 'invoke.waitForTaskToken',
    region: 'us-east-1',
    parameters: JSON.stringify({ FunctionName: 'await', Payload: { build: { id: 'b' }, index, step: { name, approval: { selfApproval: true, timeoutSeconds: 60 } }, taskToken: `token-${id}` } }),
  },
});
const event = (id: number, type: HistoryEvent['type']): HistoryEvent => ({ id, previousEventId: id - 1, timestamp: new Date(0), type });

/** GetExecutionHistory answering `pages` (newest first, as reverseOrder asks) and counting the calls. */
function history(pages: HistoryEvent[][]) {
  const asked: GetExecutionHistoryCommandInput[] = [];
  const sfn = {
    send: async (command: unknown) => {
      if (!(command instanceof GetExecutionHistoryCommand)) throw new Error('only GetExecutionHistory is expected');
      asked.push(command.input);
      const page = command.input.nextToken ? Number(command.input.nextToken) : 0;
      return { events: pages[page], ...(page + 1 < pages.length ? { nextToken: String(page + 1) } : {}), $metadata: {} };
    },
  };
  return { sfn: sfn as never, asked };
}

describe("ReportStatus's read of the approvals an execution waits on (GetExecutionHistory, newest first)", () => {
  it('reads every page of a run: an approval asked for long ago is on the last one', async () => {
    const { sfn, asked } = history([
      // A step beside it ending (its task's thread is not the approval's).
      [event(9, 'TaskStateExited'), { ...event(8, 'TaskSucceeded'), previousEventId: 5 }],
      [scheduled(7, 2, 'staging'), event(6, 'MapIterationStarted'), event(1, 'ExecutionStarted')],
    ]);
    expect(await stepFunctionsWaitingApprovals(sfn)('arn:aws:states:us-east-1:1:execution:build:gh-x')).toEqual([
      { index: 2, step: { name: 'staging', approval: { selfApproval: true, timeoutSeconds: 60 } } },
    ]);
    expect(asked.map((input) => [input.reverseOrder, input.nextToken])).toEqual([
      [true, undefined],
      [true, '1'],
    ]);
  });

  it('stops at the end of the run before a redrive: what its end closed is never read', async () => {
    // "re-run failed steps": the redrive's events follow the first run's end in the same history.
    const { sfn, asked } = history([
      [scheduled(12, 4, 'docs'), event(11, 'ExecutionRedriven'), event(10, 'ExecutionFailed'), event(9, 'MapStateFailed')],
      [scheduled(7, 2, 'staging'), event(6, 'MapIterationStarted'), event(1, 'ExecutionStarted')],
    ]);
    expect((await stepFunctionsWaitingApprovals(sfn)('arn:aws:states:us-east-1:1:execution:build:gh-x')).map(({ step }) => step.name)).toEqual(['docs']);
    expect(asked).toHaveLength(1);
  });
});
