/**
 * A waiting approval step on its check run (issue 40): GitHub's requested actions, the buttons a
 * check run shows ("A maximum of three actions are accepted"; label at most 20 characters,
 * description 40, identifier 20: the `actions` of "Update a check run" in GitHub's REST
 * description), and the step a `check_run.requested_action` delivery's identifier names. The
 * identifier carries the step's iteration, not its name (a name may be 63 characters). Pure.
 */
import type { ApprovalAction } from './approver-rule.js';

export interface CheckRunAction {
  label: string;
  description: string;
  identifier: string;
}

/** GitHub's limits on one action (the REST description's maxLength). */
const LIMITS = { label: 20, description: 40, identifier: 20 } as const;

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * Approve and Reject for the step waiting (a pipeline with an approval runs one step at a time, so
 * one waits at most): two of the three buttons a check run may have.
 */
export function approvalActions(step: { name: string; index: number }): CheckRunAction[] {
  return [
    { label: cut(`Approve ${step.name}`, LIMITS.label), description: cut(`Let the build go on past ${step.name}`, LIMITS.description), identifier: `approve:${step.index}` },
    { label: cut(`Reject ${step.name}`, LIMITS.label), description: cut(`Fail the build at ${step.name}`, LIMITS.description), identifier: `reject:${step.index}` },
  ];
}

/** The decision and the step's iteration a requested action's identifier names; undefined for any other. */
export function requestedApproval(identifier: unknown): { action: ApprovalAction; index: number } | undefined {
  const match = typeof identifier === 'string' ? /^(approve|reject):(\d{1,3})$/.exec(identifier) : null;
  return match ? { action: match[1] as ApprovalAction, index: Number(match[2]) } : undefined;
}
