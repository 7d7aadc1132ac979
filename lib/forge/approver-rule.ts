/**
 * Who may decide an approval step (`approval.approvers`, `self-approval`), from what GitHub says of
 * the person: their role on the repository ("Get repository permissions for a user",
 * `GET /repos/{owner}/{repo}/collaborators/{username}/permission`: `role_name` admin, maintain,
 * write, triage or read) and the listed teams they are a member of. With no approvers named,
 * whoever may stop the build: on GitHub, who may cancel a workflow run, write access. Refused: why,
 * in words for the person. Pure: the caller asks GitHub.
 */
import type { Approval, ApprovalPermission } from '../pipeline/index.js';

export type ApprovalAction = 'approve' | 'reject';

/** What GitHub says of the person who clicked. */
export interface Decider {
  login: string;
  /** `role_name` of their repository permission; `none` when they have none. */
  role: string;
  /** Of the approval's teams (`org/slug`), those they are an active member of. */
  teams: readonly string[];
}

export type ApproverVerdict = { allowed: true } | { allowed: false; why: string };

/** GitHub's repository roles, least first; triage and read may not approve under any rule. */
const RANKS: Readonly<Record<string, number>> = { none: 0, read: 1, triage: 2, write: 3, maintain: 4, admin: 5 };
const rank = (role: string) => RANKS[role] ?? 0;

/** `pushedBy`: the login of whoever pushed the change (a self-approval's). */
export function approverVerdict(approval: Pick<Approval, 'approvers' | 'selfApproval'>, decider: Decider, pushedBy?: string): ApproverVerdict {
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  if (!approval.selfApproval && pushedBy !== undefined && same(pushedBy, decider.login)) {
    return { allowed: false, why: `${decider.login} pushed this change, and this approval asks for someone else (self-approval: false)` };
  }
  const approvers = approval.approvers;
  if (!approvers) {
    return rank(decider.role) >= rank('write') ? { allowed: true } : { allowed: false, why: `${decider.login} may not stop this build (write access to the repository is needed)` };
  }
  const byName = approvers.users.some((user) => same(user, decider.login));
  const byTeam = approvers.teams.some((team) => decider.teams.some((member) => same(member, team)));
  const byRole = approvers.permission !== undefined && rank(decider.role) >= rank(approvers.permission satisfies ApprovalPermission);
  if (byName || byTeam || byRole) return { allowed: true };
  const named = [
    ...(approvers.users.length > 0 ? [`the users ${approvers.users.join(', ')}`] : []),
    ...(approvers.teams.length > 0 ? [`the teams ${approvers.teams.join(', ')}`] : []),
    ...(approvers.permission ? [`anyone with ${approvers.permission} access`] : []),
  ];
  return { allowed: false, why: `${decider.login} is not among the approvers: ${named.join('; ')}` };
}
