/**
 * Who may decide an approval step, by the rules of its `approval:` and what GitHub says of the
 * person; and the check run's buttons for it, held to GitHub's REST description of "Update a
 * check run" (@octokit/openapi), as the check runs' bodies are.
 */
import { requestBodyProblems } from '../../test/fixtures/webhooks/github-openapi.js';
import type { Approval } from '../pipeline/index.js';
import { approvalActions, requestedApproval } from './approval-actions.js';
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
