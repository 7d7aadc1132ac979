/**
 * What a check run's requested action that the runner does not decide is answered with (GitHub's
 * own example payload, @octokit/webhooks-examples): nothing is asked of GitHub and no desk is read.
 */
import { checkRun } from '../../test/fixtures/webhooks/examples.js';
import { answerRequestedAction, isRequestedAction, type ApprovalDesk } from './approval-delivery.js';

const APP_ID = '25811';
const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:build:gh-web-1a2b3c4-d1-0123456789';

function click(change: { identifier?: string; appId?: number; externalId?: string | null }) {
  const payload = checkRun('requested_action') as Record<string, unknown> & { check_run: Record<string, unknown> & { app: Record<string, unknown> } };
  return {
    ...payload,
    check_run: { ...payload.check_run, external_id: change.externalId === undefined ? EXECUTION_ARN : change.externalId, app: { ...payload.check_run.app, id: change.appId ?? Number(APP_ID) } },
    requested_action: { identifier: change.identifier ?? 'approve:1' },
  };
}

describe("a check run's requested action the runner does not decide", () => {
  const asked: string[] = [];
  const desk: ApprovalDesk = {
    waiting: async (execution, which) => {
      asked.push(`${execution}#${'index' in which ? which.index : which.step}`);
      return undefined;
    },
  };
  const deps = { desk, credentials: {}, appId: APP_ID, log: { info: () => undefined, warn: () => undefined } as never };

  it.each<[string, ReturnType<typeof click>, string]>([
    ["another tool's button (GitHub's example: lgtm|26764)", click({ identifier: 'lgtm|26764' }), 'the requested action "lgtm|26764" is none of the runner\'s'],
    ["another App's check run", click({ appId: 99 }), "the check run is not this deployment's App's (25811)"],
    ['a run that names no execution', click({ externalId: '' }), 'the check run names no execution (external_id)'],
  ])('%s: 202 ignored, the desk not read', async (_, payload, reason) => {
    asked.length = 0;
    expect(await answerRequestedAction(payload, 'd-1', deps)).toEqual({ statusCode: 202, body: { ignored: reason } });
    expect(asked).toEqual([]);
  });

  it('a button of a step that waits no more: ApprovalNotWaiting (409), before GitHub is asked anything', async () => {
    await expect(answerRequestedAction(click({}), 'd-2', deps)).rejects.toMatchObject({ name: 'ApprovalNotWaiting', statusCode: 409 });
    expect(asked).toEqual(['gh-web-1a2b3c4-d1-0123456789#1']);
  });

  it('is told apart from the re-runs and the other check_run actions', () => {
    expect(['requested_action', 'rerequested', 'created', 'completed'].map((action) => isRequestedAction('check_run', checkRun(action)))).toEqual([true, false, false, false]);
    expect(isRequestedAction('check_suite', { action: 'requested_action' })).toBe(false);
  });
});
