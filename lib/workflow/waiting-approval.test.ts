import { waitingApprovalIn, type ApprovalHistoryEvent } from './waiting-approval.js';

/** AwaitApproval's TaskScheduled as Step Functions (and moto) writes it: the Parameters resolved, as JSON text. */
const scheduled = (id: number, index: number, token = `token-${id}`): ApprovalHistoryEvent => ({
  id,
  type: 'TaskScheduled',
  taskScheduledEventDetails: {
    resource: 'invoke.waitForTaskToken',
    parameters: JSON.stringify({
      FunctionName: 'arn:aws:lambda:us-east-1:123456789012:function:AwaitApprovalLambdaFunction',
      Payload: { build: { id: 'b' }, namespace: 'ci', index, step: { name: 'production', approval: { selfApproval: true, timeoutSeconds: 60 } }, taskToken: token },
    }),
  },
});
const event = (id: number, type: string): ApprovalHistoryEvent => ({ id, type });
const after = (id: number, type: string, previousEventId: number): ApprovalHistoryEvent => ({ id, type, previousEventId });
/** AwaitApprovedNeeds' TaskScheduled: a callback too, its Payload with `task`. */
const awaiting = (id: number, index: number): ApprovalHistoryEvent => {
  const made = scheduled(id, index);
  made.taskScheduledEventDetails!.parameters = made.taskScheduledEventDetails!.parameters!.replace('"Payload":{', '"Payload":{"task":"await-approved-needs",');
  return made;
};
const started = [event(1, 'ExecutionStarted'), event(2, 'MapIterationStarted'), event(3, 'TaskStateEntered')];

describe('the approval an execution waits on, from its history', () => {
  it.each<[string, ApprovalHistoryEvent[], number, string | undefined]>([
    ['scheduled, started and submitted: waits', [...started, scheduled(4, 1), event(5, 'TaskStarted'), event(6, 'TaskSubmitted')], 1, 'token-4'],
    ['newest first (reverseOrder): the same', [event(6, 'TaskSubmitted'), event(5, 'TaskStarted'), scheduled(4, 1), ...[...started].reverse()], 1, 'token-4'],
    ["another iteration's button", [...started, scheduled(4, 1), event(5, 'TaskStarted')], 2, undefined],
    ['decided (TaskSucceeded after it)', [...started, scheduled(4, 1), event(5, 'TaskStarted'), event(6, 'TaskSucceeded')], 1, undefined],
    ['timed out', [...started, scheduled(4, 1), event(5, 'TaskTimedOut')], 1, undefined],
    ['the execution ended (stopped while waiting)', [...started, scheduled(4, 1), event(5, 'TaskStarted'), event(6, 'ExecutionAborted')], 1, undefined],
    ['an invocation failed and was retried: the newest attempt', [...started, scheduled(4, 1), event(5, 'TaskFailed'), scheduled(6, 1), event(7, 'TaskStarted')], 1, 'token-6'],
    ['no approval scheduled yet', started, 1, undefined],
    // Steps side by side: each event names the one before it in its own thread (previousEventId).
    [
      "another step's task closing while it waits",
      [...started, scheduled(4, 1), after(5, 'TaskStarted', 4), after(6, 'TaskScheduled', 3), after(7, 'TaskSubmitted', 5), after(8, 'TaskStarted', 6), after(9, 'TaskSucceeded', 8)],
      1,
      'token-4',
    ],
    ['its own task closing, through its started and submitted', [...started, scheduled(4, 1), after(5, 'TaskStarted', 4), after(6, 'TaskSubmitted', 5), after(7, 'TaskSucceeded', 6)], 1, undefined],
    ['a step waiting for the approvals it needs, which no person answers', [...started, awaiting(4, 1)], 1, undefined],
  ])('%s', (_, events, index, token) => {
    expect(waitingApprovalIn(events, { index })?.taskToken).toBe(token);
  });

  it('gives the step and its approval rules with the token, and who pushed when the build knows', () => {
    expect(waitingApprovalIn([scheduled(4, 1)], { index: 1 })).toEqual({ taskToken: 'token-4', step: { name: 'production', approval: { selfApproval: true, timeoutSeconds: 60 } } });
    const pushed = scheduled(4, 1);
    pushed.taskScheduledEventDetails!.parameters = pushed.taskScheduledEventDetails!.parameters!.replace('"build":{"id":"b"}', '"build":{"id":"b","pushedBy":"octocat"}');
    expect(waitingApprovalIn([pushed], { index: 1 })?.pushedBy).toBe('octocat');
  });

  it('reads nothing from a Task of another resource, or Parameters that are not JSON', () => {
    const report = { id: 4, type: 'TaskScheduled', taskScheduledEventDetails: { resource: 'invoke', parameters: '{"Payload":{"index":1}}' } };
    expect(waitingApprovalIn([report, { ...scheduled(5, 1), taskScheduledEventDetails: { resource: 'invoke.waitForTaskToken', parameters: '{' } }], { index: 1 })).toBeUndefined();
  });

  it('finds the step by its name too (the signed generic webhook names it so)', () => {
    expect([waitingApprovalIn([scheduled(4, 1)], { step: 'production' })?.taskToken, waitingApprovalIn([scheduled(4, 1)], { step: 'staging' })]).toEqual(['token-4', undefined]);
  });
});
