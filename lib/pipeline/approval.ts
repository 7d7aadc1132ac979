/**
 * A step's `approval:` (issue 40): a step that runs nothing and waits for a person instead of an
 * image and commands. The message shown, who may approve (GitHub users, teams `org/team`, or a
 * minimum repository permission), whether the person who pushed may approve their own change, and
 * how long the wait may last (default 24 h, at most 7 days). The build waits in Step Functions'
 * callback pattern (`.waitForTaskToken`): no Lambda and no pod while it does. Pure, like schema.ts:
 * schema.ts hands in how a wrong value is named.
 */
import * as z from 'zod';
import { parseDuration } from './duration.js';
import { BUILD_TIME_LIMIT_SECONDS, type Approval, type ApprovalPermission } from './types.js';

export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 24 * 60 * 60;
/** At most a week: a build holds its workspace claim while it waits. */
export const MAX_APPROVAL_TIMEOUT_SECONDS = 7 * 24 * 60 * 60;

/**
 * The definition's TimeoutSeconds: the steps' 24 h and the approvals' 7 days, each bound when the
 * file is read (cross-step-rules.ts), so no build that obeys both meets it.
 */
export const EXECUTION_TIME_LIMIT_SECONDS = BUILD_TIME_LIMIT_SECONDS + MAX_APPROVAL_TIMEOUT_SECONDS;

/** GitHub's repository permission levels a person may need at least, lowest first (the collaborators API's role names). */
export const APPROVAL_PERMISSIONS = ['write', 'maintain', 'admin'] as const satisfies readonly ApprovalPermission[];

/** The step keys an approval step may have beside `approval`: it has no pod, so nothing of a pod's. */
export const APPROVAL_STEP_KEYS = ['name', 'approval', 'needs', 'when'] as const;

// GitHub's login rules: alphanumerics and single hyphens, not at either end, at most 39 characters.
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
// A team is named by its organization and its slug, as GitHub's CODEOWNERS and reviewers write it (`@` optional).
const TEAM = /^@?([A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38})\/([a-z0-9][a-z0-9_-]*)$/;

export function approvalSchema(describe: (value: unknown) => string) {
  const login = z
    .string({ error: (issue) => `each user must be a GitHub login, not ${describe(issue.input)}` })
    .refine((value) => LOGIN.test(value.replace(/^@/, '')), { error: (issue) => `${describe(issue.input)} is not a GitHub login (letters, digits and single hyphens, at most 39)` });
  const team = z
    .string({ error: (issue) => `each team must be written org/team-slug, not ${describe(issue.input)}` })
    .refine((value) => TEAM.test(value), { error: (issue) => `${describe(issue.input)} is not a team: write it as org/team-slug (e.g. acme/release)` });
  const approvers = z.strictObject(
    {
      users: z.array(login, { error: (issue) => `must be a list of GitHub logins, not ${describe(issue.input)}` }).optional(),
      teams: z.array(team, { error: (issue) => `must be a list of teams (org/team-slug), not ${describe(issue.input)}` }).optional(),
      permission: z
        .enum(APPROVAL_PERMISSIONS, { error: (issue) => `must be one of ${APPROVAL_PERMISSIONS.join(', ')} (the least repository permission an approver needs), not ${describe(issue.input)}` })
        .optional(),
    },
    { error: (issue) => `must be a map with users, teams and/or permission, not ${describe(issue.input)}` },
  );
  const timeout = z.unknown().transform((value, ctx) => {
    const result = parseDuration(value, MAX_APPROVAL_TIMEOUT_SECONDS);
    if (result.ok) return result.seconds;
    ctx.addIssue({ code: 'custom', message: `${result.reason} (an approval waits at most 7 days)` });
    return z.NEVER;
  });
  const map = z.strictObject(
    {
      message: z.string({ error: (issue) => `must be text (what the approver is shown), not ${describe(issue.input)}` }).optional(),
      approvers: approvers.optional(),
      'self-approval': z.boolean({ error: (issue) => `must be true or false (whether the person who pushed may approve), not ${describe(issue.input)}` }).optional(),
      timeout: timeout.optional(),
    },
    { error: (issue) => `must be a map with message, approvers, self-approval and/or timeout (or {} for the defaults), not ${describe(issue.input)}` },
  );
  return { map, approvers };
}

export type ApprovalInput = z.output<ReturnType<typeof approvalSchema>['map']>;

/** The normal form: defaults filled in, teams without their `@`. */
export function normalApproval(given: ApprovalInput): Approval {
  const approvers = given.approvers;
  const users = approvers?.users?.map((user) => user.replace(/^@/, '')) ?? [];
  const teams = approvers?.teams?.map((team) => team.replace(/^@/, '')) ?? [];
  return {
    ...(given.message !== undefined ? { message: given.message } : {}),
    ...(users.length > 0 || teams.length > 0 || approvers?.permission
      ? { approvers: { users, teams, ...(approvers?.permission ? { permission: approvers.permission } : {}) } }
      : {}),
    selfApproval: given['self-approval'] ?? true,
    timeoutSeconds: given.timeout ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  };
}

/**
 * On the raw data, so they are said along with any other problem: an approval step runs no pod, so
 * it takes none of a pod's keys; any other step needs an image and commands. And a pipeline whose
 * steps wait for an approval has no matrix with `fail-fast: false`: a combination of one that
 * fails ends no build until every step has ended, while the approval it keeps from being asked
 * (its needs never met) leaves the steps waiting for it waiting for ever.
 */
export function approvalStepProblems(data: unknown): ApprovalStepProblem[] {
  if (!isMap(data) || !Array.isArray(data['steps'])) return [];
  const steps: unknown[] = data['steps'];
  const gates = steps.some((step, index) => isMap(step) && step['approval'] !== undefined && stepsAfter(steps, index));
  return steps.flatMap((step: unknown, index: number): ApprovalStepProblem[] => {
    if (!isMap(step)) return [];
    const at = (key: string): (string | number)[] => ['steps', index, key];
    const keepsGoing =
      gates && step['matrix'] !== undefined && step['fail-fast'] === false
        ? [{ path: at('fail-fast'), message: 'steps here wait for an approval, which a failed combination could keep from being asked while the build waits for every step: leave fail-fast out' }]
        : [];
    // A step that is no approval and lacks image or commands: build.ts's rule says so (or it is a build).
    if (step['approval'] === undefined) return keepsGoing;
    const when = step['when'];
    const status = isMap(when) ? when['status'] : undefined;
    const afterFailure = status === 'failure' || (Array.isArray(status) && status.includes('failure'));
    return [
      ...(afterFailure ? [{ path: ['steps', index, 'when', 'status'], message: 'an approval step waits before the steps after it; once the build has failed there is nothing left to approve' }] : []),
      ...Object.keys(step)
        .filter((key) => !(APPROVAL_STEP_KEYS as readonly string[]).includes(key))
        .map((key) => ({
          path: at(key),
          message:
            key === 'timeout'
              ? 'an approval step has no timeout of its own: write it in the approval ("approval: {timeout: 48h}")'
              : `an approval step waits for a person and runs no pod, so it takes no ${key} (only ${APPROVAL_STEP_KEYS.join(', ')})`,
        })),
    ];
  });
}

/** Whether any step waits for the approval step at `index`: one that names it in `needs`, or, without `needs`, the step below it. */
function stepsAfter(steps: readonly unknown[], index: number): boolean {
  const name = (steps[index] as Record<string, unknown>)['name'];
  return steps.some((step, at) => {
    if (!isMap(step)) return false;
    const needs = step['needs'];
    return Array.isArray(needs) ? needs.includes(name) : needs === undefined && at === index + 1;
  });
}

export interface ApprovalStepProblem {
  path: (string | number)[];
  message: string;
  /** A required key is absent (schema.ts drops it when a misspelt key beside it explains it). */
  missing?: true;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
