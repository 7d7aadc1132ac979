import { requestBodyProblems } from '../../test/fixtures/webhooks/github-openapi.js';
import type { StatusRequest, WaitingStepReport } from '../contract/index.js';
import { progressUpdate } from '../forge/check-run-reporter.js';
import type { StepRecord } from './step-log-store.js';
import { approvedResult } from './approval-decision.js';
import { reportStatus, type ReportInput } from './tasks/report-status.js';
import { waitingApprovalIn, waitingApprovalsIn, type ApprovalHistoryEvent } from './waiting-approval.js';

/** AwaitApproval's TaskScheduled as Step Functions (and moto) writes it: the Parameters resolved, as JSON text. */
const scheduled = (id: number, index: number, token = `token-${id}`, name = 'production'): ApprovalHistoryEvent => ({
  id,
  type: 'TaskScheduled',
  taskScheduledEventDetails: {
    resource: 'invoke.waitForTaskToken',
    parameters: JSON.stringify({
      FunctionName: 'arn:aws:lambda:us-east-1:123456789012:function:AwaitApprovalLambdaFunction',
      Payload: { build: { id: 'b' }, namespace: 'ci', index, step: { name, approval: { selfApproval: true, timeoutSeconds: 60 } }, taskToken: token },
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
    ['asked for again in a redrive of the failed execution', [...started, scheduled(4, 1), event(5, 'ExecutionFailed'), event(6, 'ExecutionRedriven'), scheduled(7, 1)], 1, 'token-7'],
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

describe('every approval an execution waits on, for the check run that shows them', () => {
  // Steps side by side (needs): two approvals asked for while a test step runs; every event names the one before it in its thread.
  const staging = (id: number) => scheduled(id, 2, `token-${id}`, 'staging');
  const docs = (id: number) => scheduled(id, 4, `token-${id}`, 'docs');
  it.each<[string, ApprovalHistoryEvent[], string[]]>([
    ['none asked for yet', started, []],
    ['one waiting', [...started, after(4, 'TaskScheduled', 3), staging(5), after(6, 'TaskStarted', 5), after(7, 'TaskSubmitted', 6)], ['staging']],
    [
      'two waiting, the one asked for first first, whatever order the history is read in',
      [docs(9), after(10, 'TaskStarted', 9), after(11, 'TaskSubmitted', 10), ...started, staging(5), after(6, 'TaskStarted', 5), after(7, 'TaskSubmitted', 6), after(8, 'TaskSucceeded', 3)].reverse(),
      ['staging', 'docs'],
    ],
    ['the first decided, the second still waiting', [...started, staging(5), after(6, 'TaskStarted', 5), docs(7), after(8, 'TaskStarted', 7), after(9, 'TaskSucceeded', 6)], ['docs']],
    ['both decided', [...started, staging(5), after(6, 'TaskStarted', 5), docs(7), after(8, 'TaskStarted', 7), after(9, 'TaskSucceeded', 6), after(10, 'TaskSucceeded', 8)], []],
    ['an attempt that failed and was retried counts once, as its newest', [...started, staging(5), after(6, 'TaskFailed', 5), staging(7), after(8, 'TaskStarted', 7)], ['staging']],
    ['a step waiting for the approvals it needs is none of them', [...started, staging(5), awaiting(6, 5)], ['staging']],
    ['the execution ended', [...started, staging(5), docs(6), event(7, 'ExecutionFailed')], []],
    ['a redrive since (re-run failed steps): its waits, not those its end closed', [...started, staging(5), event(6, 'ExecutionFailed'), event(7, 'ExecutionRedriven'), docs(8), after(9, 'TaskStarted', 8)], ['docs']],
  ])('%s', (_, events, names) => {
    expect(waitingApprovalsIn(events).map((waiting) => waiting.step.name)).toEqual(names);
  });

  it('gives each its iteration, which the buttons name', () => {
    expect(waitingApprovalsIn([...started, staging(5), docs(6)]).map(({ index, taskToken }) => ({ index, taskToken }))).toEqual([
      { index: 2, taskToken: 'token-5' },
      { index: 4, taskToken: 'token-6' },
    ]);
  });
});

describe("a step's end while approvals wait (ReportProgress): the check run's buttons from the build's records and history", () => {
  // A side-by-side build: `test` ends while `staging`, then `docs`, wait.
  const records: StepRecord[] = [
    { step: 'clone', status: 'succeeded', exitCode: 0, error: null, startedAt: '2026-12-06T09:00:00Z', endedAt: '2026-12-06T09:00:05Z' },
    { step: 'test', status: 'succeeded', exitCode: 0, error: null, startedAt: '2026-12-06T09:00:06Z', endedAt: '2026-12-06T09:03:00Z' },
  ];
  const history = [...started, scheduled(5, 2, 'token-5', 'staging'), after(6, 'TaskStarted', 5), scheduled(7, 4, 'token-7', 'docs'), after(8, 'TaskStarted', 7)];
  const log = { info: () => undefined, warn: () => undefined } as never;

  async function reported(settings: ReportInput['settings'], read: (arn: string) => Promise<WaitingStepReport[]>, build: ReportInput['build'] = { id: 'b', installationId: 7 }) {
    const requests: StatusRequest[] = [];
    const reporter = { report: async (request: StatusRequest) => (requests.push(request), { posted: true as const, state: 'in_progress', description: '' }), waitingApprovals: read };
    const input: ReportInput = { build, outcome: 'progress', executionArn: 'arn:aws:states:us-east-1:1:execution:build:gh-x', ...(settings ? { settings } : {}) };
    await reportStatus(input, { reporter, log, results: async () => records });
    const request = requests[0]!;
    return progressUpdate(request.steps ?? [], request);
  }
  const fromHistory = async () => waitingApprovalsIn(history).map(({ index, step }) => ({ index, step }));

  it.each<[string, ReportInput['settings'], (arn: string) => Promise<WaitingStepReport[]>, string[] | undefined]>([
    ['a build with approval steps: the one waiting longest, named again', { approvals: true }, fromHistory, ['approve:2', 'reject:2']],
    ['a build without: none, said outright (nothing read)', {}, () => Promise.reject(new Error('not to be read')), []],
    ['the history cannot be read: not known, the run left as it is', { approvals: true }, () => Promise.reject(new Error('ThrottlingException')), undefined],
    ['a definition that passes no settings: not known', undefined, fromHistory, undefined],
  ])('%s', async (_, settings, read, identifiers) => {
    const update = await reported(settings, read);
    expect(update?.actions?.map((action) => action.identifier)).toEqual(identifiers);
    if (update) expect(requestBodyProblems('checks/update', update)).toEqual([]);
  });

  // Buttons exist only on a check run, which only a build that came through a GitHub App gets
  // (gitHubReporter): a generic delivery's, a manual run's or a commit status's build reads nothing.
  it('a build with approval steps that has no check run (not through a GitHub App) reads no history', async () => {
    const update = await reported({ approvals: true }, () => Promise.reject(new Error('not to be read')), { id: 'b', trigger: 'generic' });
    expect(update?.actions).toEqual([]);
  });
});

describe('an approval given (ReportDecision): the check run says who approved it, and the buttons go to the next waiting, or go', () => {
  // `staging` and `docs` waited side by side; `staging` is approved (its task closed), `docs` waits on.
  const history = [...started, scheduled(5, 2, 'token-5', 'staging'), after(6, 'TaskStarted', 5), scheduled(7, 4, 'token-7', 'docs'), after(8, 'TaskStarted', 7), after(9, 'TaskSucceeded', 6)];
  const log = { info: () => undefined, warn: () => undefined } as never;
  const AT = new Date('2026-12-06T09:05:00.000Z');

  async function reported(decided: unknown, events: ApprovalHistoryEvent[]) {
    const requests: StatusRequest[] = [];
    const read = async () => waitingApprovalsIn(events).map(({ index, step }) => ({ index, step }));
    const reporter = { report: async (request: StatusRequest) => (requests.push(request), { posted: true as const, state: 'in_progress', description: '' }), waitingApprovals: read };
    const input: ReportInput = { build: { id: 'b', installationId: 7 }, outcome: 'progress', executionArn: 'arn:aws:states:us-east-1:1:execution:build:gh-x', settings: { approvals: true }, decided };
    await reportStatus(input, { reporter, log, results: async () => [] });
    const update = progressUpdate(requests[0]!.steps ?? [], { ...requests[0]!, execution: 'gh-x' })!;
    expect(requestBodyProblems('checks/update', update)).toEqual([]);
    return { title: update.output?.title, text: update.output?.text?.split('\n').slice(0, 3), buttons: update.actions?.map((action) => action.identifier), status: update.status };
  }

  it.each<[string, unknown, ApprovalHistoryEvent[], Awaited<ReturnType<typeof reported>>]>([
    [
      'another still waits: who approved, then what waits, its buttons',
      approvedResult('staging', 'hubot', AT),
      history,
      { title: 'Waiting for an approval of step "docs"', text: ['Step `staging` was approved by @hubot at 2026-12-06T09:05:00.000Z.', '', '### Step `docs` waits for an approval'], buttons: ['approve:4', 'reject:4'], status: 'in_progress' },
    ],
    [
      'none waits: who approved and their comment, and no buttons',
      approvedResult('docs', 'octocat', AT, 'ship it'),
      [...history, after(10, 'TaskSucceeded', 8)],
      { title: 'Step "docs" approved by octocat', text: ['Step `docs` was approved by @octocat at 2026-12-06T09:05:00.000Z.', '', '> ship it'], buttons: [], status: 'in_progress' },
    ],
    [
      'a result that is no approval: a plain progress report',
      { approved: true },
      history,
      { title: 'Waiting for an approval of step "docs"', text: ['### Step `docs` waits for an approval', '', '**Who may approve or reject:** anyone with write access to the repository.'], buttons: ['approve:4', 'reject:4'], status: 'in_progress' },
    ],
  ])('%s', async (_, decided, events, expected) => {
    expect(await reported(decided, events)).toEqual(expected);
  });
});
