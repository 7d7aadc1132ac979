/**
 * A waiting approval step on its check run (issue 40): GitHub's requested actions, the buttons a
 * check run shows ("A maximum of three actions are accepted"; label at most 20 characters,
 * description 40, identifier 20: the `actions` of "Update a check run" in GitHub's REST
 * description), and the step a `check_run.requested_action` delivery's identifier names. The
 * identifier carries the step's iteration, not its name (a name may be 63 characters). Pure.
 */
import type { Approval } from '../pipeline/index.js';
import type { ApprovalAction } from './approver-rule.js';
import type { CheckRunAction, CheckRunOutput, CheckRunUpdate } from './github-api.js';
import { truncateUtf8 } from './utf8-text.js';

export type { CheckRunAction } from './github-api.js';

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

/** The approval a check run shows while its step waits. */
export interface WaitingStep {
  name: string;
  index: number;
  approval: Pick<Approval, 'message' | 'approvers' | 'selfApproval' | 'timeoutSeconds'>;
}

/** "Maximum length: 65535", counted in bytes (check-run.ts, MAX_OUTPUT_BYTES). */
const MAX_TEXT_BYTES = 65_535;

/** Who may decide, in words: the rule approver-rule.ts applies. */
export function approversText(approval: WaitingStep['approval']): string {
  const approvers = approval.approvers;
  const who = !approvers
    ? 'anyone with write access to the repository'
    : [
        ...approvers.users.map((user) => `@${user}`),
        ...approvers.teams.map((team) => `the team @${team}`),
        ...(approvers.permission ? [`anyone with ${approvers.permission} access or more`] : []),
      ].join(', ');
  return approval.selfApproval ? who : `${who}; not the person who pushed this change`;
}

/**
 * The check run while the step waits: the progress report's status and summary, a title that says
 * what it waits for, the message and who may decide as `text`, and the two buttons. No token: the
 * buttons name the step's iteration, and the runner finds the token itself.
 */
export function approvalWaitingUpdate(progress: CheckRunUpdate, step: WaitingStep): CheckRunUpdate {
  const summary = progress.output?.summary ?? '';
  const hours = Math.round((step.approval.timeoutSeconds / 3600) * 10) / 10;
  const text = [
    `### Step \`${step.name.replace(/`/g, "'")}\` waits for an approval`,
    '',
    ...(step.approval.message ? [step.approval.message, ''] : []),
    `**Who may approve or reject:** ${approversText(step.approval)}.`,
    '',
    `Use the Approve or Reject button above. Nobody deciding within ${hours} h ends the build ApprovalTimedOut.`,
  ].join('\n');
  return {
    ...progress,
    output: { title: cut(`Waiting for an approval of step "${step.name}"`, 200), summary, text: truncateUtf8(text, MAX_TEXT_BYTES) },
    actions: approvalActions(step),
  };
}

/**
 * After a decision: the buttons go (the step waits no more) and the text says who decided; the
 * summary is the run's own (the delivery's check_run.output), as GitHub asks for one with a title.
 */
export function approvalDecidedUpdate(output: Pick<CheckRunOutput, 'title' | 'summary'>, step: string, decision: { action: ApprovalAction; by: string; at: string }): CheckRunUpdate {
  const words = decision.action === 'approve' ? 'approved' : 'rejected';
  return {
    output: {
      title: cut(`Step "${step}" ${words} by ${decision.by}`, 200),
      summary: output.summary,
      text: `Step \`${step.replace(/`/g, "'")}\` was ${words} by @${decision.by} at ${decision.at}.`,
    },
    actions: [],
  };
}

/** A person who may not decide clicked: the wait goes on, buttons kept, and the text says why. */
export function approvalRefusedUpdate(output: Pick<CheckRunOutput, 'title' | 'summary' | 'text'>, why: string): CheckRunUpdate {
  const previous = (output.text ?? '').replace(/\n\n> \*\*Refused:\*\*[^\n]*$/, '');
  return { output: { title: output.title, summary: output.summary, text: truncateUtf8(`${previous}\n\n> **Refused:** ${why}.`, MAX_TEXT_BYTES) } };
}
