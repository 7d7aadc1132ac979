/**
 * Who may decide an approval step, by the rules of its `approval:` and what GitHub says of the
 * person; and the check run's buttons for it, held to GitHub's REST description of "Update a
 * check run" (@octokit/openapi), as the check runs' bodies are.
 */
import { requestBodyProblems } from '../../test/fixtures/webhooks/github-openapi.js';
import type { Approval } from '../pipeline/index.js';
import { approvalActions, approvalDecidedUpdate, approvalRefusedUpdate, approvalWaitingUpdate, approversText, requestedApproval, type WaitingStep } from './approval-actions.js';
import { checkRunProgress } from './check-run.js';
import { approverVerdict, type Decider } from './approver-rule.js';

const rules = (approvers?: Approval['approvers'], selfApproval = true) => ({ ...(approvers ? { approvers } : {}), selfApproval });
const person = (role: string, teams: string[] = [], login = 'octocat'): Decider => ({ login, role, teams });

describe('who may decide', () => {
  it.each<[string, ReturnType<typeof rules>, Decider, string | undefined, boolean | string]>([
    ['no approvers named: write access, as stopping the build asks', rules(), person('write'), undefined, true],
    ['no approvers named: triage is not enough', rules(), person('triage'), undefined, 'octocat may not stop this build (write access to the repository is needed)'],
    ['a named user, whatever their case', rules({ users: ['OctoCat'], teams: [] }), person('read'), undefined, true],
    ['a member of a listed team', rules({ users: [], teams: ['acme/release'] }), person('read', ['acme/release']), undefined, true],
    ['at least the permission: admin over maintain', rules({ users: [], teams: [], permission: 'maintain' }), person('admin'), undefined, true],
    ['below the permission', rules({ users: ['hubot'], teams: ['acme/release'], permission: 'maintain' }), person('write'), undefined, 'octocat is not among the approvers: the users hubot; the teams acme/release; anyone with maintain access'],
    ['the pusher, with self-approval false', rules({ users: ['octocat'], teams: [] }, false), person('admin'), 'octocat', 'octocat pushed this change, and this approval asks for someone else (self-approval: false)'],
    ['the pusher, with self-approval (the default)', rules({ users: ['octocat'], teams: [] }), person('admin'), 'octocat', true],
    ['someone else than the pusher, with self-approval false', rules(undefined, false), person('write'), 'hubot', true],
  ])('%s', (_, approval, decider, pushedBy, expected) => {
    const verdict = approverVerdict(approval, decider, pushedBy);
    expect(verdict).toEqual(expected === true ? { allowed: true } : { allowed: false, why: expected });
  });
});

describe("the check run's buttons", () => {
  it.each([
    ['a short name', { name: 'production', index: 2 }],
    ['a name of 63 characters, cut to the limits', { name: 'p'.repeat(63), index: 49 }],
  ])('%s: two buttons GitHub accepts, whose identifiers name the step back', (_, step) => {
    const actions = approvalActions(step);
    expect(requestBodyProblems('checks/update', { status: 'in_progress', actions })).toEqual([]);
    expect(actions.map((action) => requestedApproval(action.identifier))).toEqual([
      { action: 'approve', index: step.index },
      { action: 'reject', index: step.index },
    ]);
  });

  it.each([['rerun'], ['approve:'], ['approve:x'], [42], [undefined]])('an identifier of no approval: %p', (identifier) => {
    expect(requestedApproval(identifier)).toBeUndefined();
  });
});

describe("the check run's words", () => {
  const approval = (approvers?: Approval['approvers'], selfApproval = true) => ({ message: 'Deploy to production?', ...(approvers ? { approvers } : {}), selfApproval, timeoutSeconds: 86_400 });

  it.each<[string, ReturnType<typeof approval>, string]>([
    ['nobody named: who may stop the build', approval(), 'anyone with write access to the repository'],
    ['users, teams and a permission', approval({ users: ['octocat'], teams: ['acme/release'], permission: 'maintain' }), '@octocat, the team @acme/release, anyone with maintain access or more'],
    ['not the pusher', approval({ users: ['octocat'], teams: [] }, false), '@octocat; not the person who pushed this change'],
  ])('who may decide: %s', (_, rules, expected) => {
    expect(approversText(rules)).toBe(expected);
  });

  it('while it waits: the steps as they stand, what it waits for, who may decide, two buttons; a body GitHub accepts', () => {
    const progress = checkRunProgress([{ name: 'build', status: 'succeeded', durationSeconds: 3 }]);
    const update = approvalWaitingUpdate(progress, [{ name: 'production', index: 1, approval: approval({ users: ['octocat'], teams: [] }) }]);
    expect(update).toMatchObject({ status: 'in_progress', output: { title: 'Waiting for an approval of step "production"', summary: progress.output!.summary } });
    expect(update.output!.text).toBe(
      '### Step `production` waits for an approval\n\nDeploy to production?\n\n**Who may approve or reject:** @octocat.\n\nNobody deciding within 24 h ends the build ApprovalTimedOut.\n\nUse the Approve or Reject button above.',
    );
    expect(update.actions!.map((a) => a.identifier)).toEqual(['approve:1', 'reject:1']);
    expect(requestBodyProblems('checks/update', update)).toEqual([]);
  });

  it('refused twice: one line says why, the last refusal, and the buttons named again; decided: the buttons go', () => {
    const output = { title: 'Waiting', summary: 'Build running.', text: 'What it waits for.' };
    const production = { name: 'production', index: 1, approval: approval() };
    const once = approvalRefusedUpdate(output, 'mallory is not among the approvers', [production]);
    const twice = approvalRefusedUpdate({ ...output, text: once.output!.text! }, 'eve is not among the approvers', [production]);
    expect(twice.output!.text).toBe('What it waits for.\n\n> **Refused:** eve is not among the approvers.');
    expect(twice.actions!.map((a) => a.identifier)).toEqual(['approve:1', 'reject:1']);
    const decided = approvalDecidedUpdate(output, 'production', { action: 'reject', by: 'hubot', at: '2026-12-06T09:00:00.000Z' });
    expect(decided).toEqual({ output: { title: 'Step "production" rejected by hubot', summary: 'Build running.', text: 'Step `production` was rejected by @hubot at 2026-12-06T09:00:00.000Z.' }, actions: [] });
    for (const body of [once, twice, decided]) expect(requestBodyProblems('checks/update', body)).toEqual([]);
  });
});

describe('the buttons while approvals wait side by side: named on every update, never left out', () => {
  // Steps side by side (needs): `docs` and `production` may wait at once; GitHub takes three buttons at most.
  const staging = { name: 'staging', index: 2, approval: { message: 'Deploy to staging?', selfApproval: true, timeoutSeconds: 3600 } };
  const production = { name: 'production', index: 4, approval: { selfApproval: false, timeoutSeconds: 86_400 } };
  const docs = { name: 'docs', index: 5, approval: { selfApproval: true, timeoutSeconds: 7200 } };
  const progress = checkRunProgress([{ name: 'test', status: 'succeeded', durationSeconds: 3 }]);

  it.each<[string, WaitingStep[], string, string[]]>([
    ['none waits: no buttons, said outright', [], 'Build running: 1 step done', []],
    ['one waits: its Approve and Reject', [staging], 'Waiting for an approval of step "staging"', ['approve:2', 'reject:2']],
    ['two wait: the one waiting longest decides by the buttons', [staging, production], 'Waiting for approvals of 2 steps: "staging", "production"', ['approve:2', 'reject:2']],
    ['three wait: still two buttons, of the first', [production, docs, staging], 'Waiting for approvals of 3 steps: "production", "docs", "staging"', ['approve:4', 'reject:4']],
  ])('%s', (_, waiting, title, identifiers) => {
    const update = approvalWaitingUpdate(progress, waiting, 'gh-app-abc123');
    expect(update.actions!.map((a) => a.identifier)).toEqual(identifiers);
    expect(update.output!.title).toBe(waiting.length === 0 ? progress.output!.title : title);
    expect(requestBodyProblems('checks/update', update)).toEqual([]);
  });

  it('two wait: the text shows both and how to decide the second first', () => {
    const text = approvalWaitingUpdate(progress, [staging, production], 'gh-app-abc123').output!.text!;
    expect(text).toContain('### Step `staging` waits for an approval\n\nDeploy to staging?');
    expect(text).toContain('### Step `production` waits for an approval\n\n**Who may approve or reject:** anyone with write access to the repository; not the person who pushed this change.');
    expect(text).toContain('The Approve and Reject buttons above decide `staging`, which has waited longest');
    expect(text).toContain('To decide `production` first:');
    expect(text).toContain('`step-runner approve gh-app-abc123 production`');
  });

  it('one of two approved: the text says who, and the buttons go to the other', () => {
    const output = { title: 'Waiting for approvals of 2 steps', summary: 'Build running.' };
    const decided = approvalDecidedUpdate(output, 'staging', { action: 'approve', by: 'hubot', at: '2026-12-06T09:00:00.000Z' }, [production], 'gh-app-abc123');
    expect(decided.actions!.map((a) => a.identifier)).toEqual(['approve:4', 'reject:4']);
    expect(decided.output).toMatchObject({ title: 'Waiting for an approval of step "production"', summary: 'Build running.' });
    expect(decided.output!.text).toMatch(/^Step `staging` was approved by @hubot at 2026-12-06T09:00:00.000Z\.\n\n### Step `production` waits/);
    expect(requestBodyProblems('checks/update', decided)).toEqual([]);
  });
});
