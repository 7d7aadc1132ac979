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
 * Approve and Reject for one waiting step: two of the three buttons a check run may have. With two
 * approvals waiting at once (steps side by side), four would be needed: the check run shows the
 * first's (approvalWaitingUpdate).
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
 * The check run while approvals wait: the progress report's status and summary, and `actions`
 * always, never left out. GitHub's description of "Update a check run" does not say whether an
 * update without `actions` keeps the buttons a run has, nor does its response show them (the
 * check-run object has no `actions`: @octokit/openapi, api.github.com.json, PATCH
 * /repos/{owner}/{repo}/check-runs/{check_run_id} and components.schemas.check-run), and nothing
 * found says either way (docs.github.com's "Using the REST API to interact with checks" and the
 * 2018-05-23 changelog "Request further actions from a check run" describe only setting them). So
 * every update made while the build runs names its buttons: those of the approval waiting longest,
 * or none (`[]`) when none waits. No token: the buttons name the step's iteration, and the runner
 * finds the token itself.
 */
export function approvalWaitingUpdate(progress: CheckRunUpdate, waiting: readonly WaitingStep[], execution?: string): CheckRunUpdate {
  const [first, ...others] = waiting;
  if (!first) return { ...progress, actions: [] };
  const summary = progress.output?.summary ?? '';
  const title = others.length === 0 ? `Waiting for an approval of step "${first.name}"` : `Waiting for approvals of ${waiting.length} steps: ${waiting.map((step) => `"${step.name}"`).join(', ')}`;
  const text = [...waiting.flatMap((step) => [...waitingText(step), '']), ...buttonsText(first, others, execution)].join('\n');
  return { ...progress, output: { title: cut(title, 200), summary, text: truncateUtf8(text, MAX_TEXT_BYTES) }, actions: approvalActions(first) };
}

function waitingText(step: WaitingStep): string[] {
  const hours = Math.round((step.approval.timeoutSeconds / 3600) * 10) / 10;
  return [
    `### Step \`${quoted(step.name)}\` waits for an approval`,
    '',
    ...(step.approval.message ? [step.approval.message, ''] : []),
    `**Who may approve or reject:** ${approversText(step.approval)}.`,
    '',
    `Nobody deciding within ${hours} h ends the build ApprovalTimedOut.`,
  ];
}

/** Which step the buttons decide; with more waiting, how to decide the others (the docs' approvals section says the same). */
function buttonsText(first: WaitingStep, others: readonly WaitingStep[], execution: string | undefined): string[] {
  if (others.length === 0) return ['Use the Approve or Reject button above.'];
  const names = others.map((step) => `\`${quoted(step.name)}\``).join(', ');
  const command = `step-runner approve ${execution ?? 'EXECUTION'} ${others[0]!.name}`;
  return [
    `The Approve and Reject buttons above decide \`${quoted(first.name)}\`, which has waited longest: a check run shows at most three buttons. Once it is decided they decide the next one.`,
    `To decide ${names} first: a signed generic approval to the deployment's webhook (\`{"approval": {"execution", "step", "decision", "by"}}\`), or, on a local server, its console page or \`${quoted(command)}\` (or \`reject\`).`,
  ];
}

const quoted = (name: string) => name.replace(/`/g, "'");

/**
 * After a decision: the text says who decided, when, and their comment, and the buttons go to the
 * approval waiting longest of those `still` waiting (none left: `[]`, the buttons go). The summary
 * is the one given: the build's steps (ReportDecision, check-run-reporter.ts), or the run's own (a
 * rejection's click, the delivery's check_run.output), as GitHub asks for one with a title.
 */
export function approvalDecidedUpdate(
  output: Pick<CheckRunOutput, 'title' | 'summary'>,
  step: string,
  decision: { action: ApprovalAction; by: string; at: string; comment?: string | null },
  still: readonly WaitingStep[] = [],
  execution?: string,
): CheckRunUpdate {
  const words = decision.action === 'approve' ? 'approved' : 'rejected';
  const said = decision.comment ? `\n\n${decision.comment.split('\n').map((line) => `> ${line}`).join('\n')}` : '';
  const decided = `Step \`${quoted(step)}\` was ${words} by @${decision.by} at ${decision.at}.${said}`;
  if (still.length > 0) {
    const waiting = approvalWaitingUpdate({ output: { title: output.title, summary: output.summary } }, still, execution);
    return { ...waiting, output: { ...waiting.output!, text: truncateUtf8(`${decided}\n\n${waiting.output!.text}`, MAX_TEXT_BYTES) } };
  }
  return {
    output: { title: cut(`Step "${step}" ${words} by ${decision.by}`, 200), summary: output.summary, text: decided },
    actions: [],
  };
}

/**
 * A person who may not decide clicked: the wait goes on and the text says why; the buttons are
 * named again (those of the approval waiting longest of `waiting`), as every update while approvals
 * wait names them (approvalWaitingUpdate).
 */
export function approvalRefusedUpdate(output: Pick<CheckRunOutput, 'title' | 'summary' | 'text'>, why: string, waiting: readonly WaitingStep[]): CheckRunUpdate {
  const previous = (output.text ?? '').replace(/\n\n> \*\*Refused:\*\*[^\n]*$/, '');
  return {
    output: { title: output.title, summary: output.summary, text: truncateUtf8(`${previous}\n\n> **Refused:** ${why}.`, MAX_TEXT_BYTES) },
    actions: waiting[0] ? approvalActions(waiting[0]) : [],
  };
}
