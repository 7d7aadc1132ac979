/**
 * A person clicked Approve or Reject on a build's check run: GitHub sends the App that created the
 * run a `check_run` delivery with action `requested_action` and the button's identifier
 * (docs.github.com, "Webhook events and payloads": check_run; "Using the REST API to interact with
 * checks": check runs and requested actions). The webhook has verified its signature already; here
 * the step it names is found waiting, GitHub is asked who the sender is (their role on the
 * repository, and the listed teams they are an active member of) with an installation token of the
 * App, approver-rule.ts decides, and only then does the desk read the step's task token and answer
 * it. A refusal leaves the wait as it is and says why on the check run, as does a rejection; an
 * approval is said by the build itself (ReportDecision in state-machine.asl.yml), whoever decided
 * and however. Nothing here starts a build.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import * as z from 'zod';
import type { Approval } from '../pipeline/index.js';
import { approvalDecidedUpdate, approvalRefusedUpdate, requestedApproval, type WaitingStep } from './approval-actions.js';
import { approverVerdict, type ApprovalAction, type Decider } from './approver-rule.js';
import { ApprovalNotWaitingHere, ApproverRefused, ForgeUnavailable, InvalidPayload } from './errors.js';
import { executionNameIn } from './execution-name.js';
import { gitHubApi, GitHubApiError, type CheckRunUpdate, type GitHubApiOptions, type InstallationPermissions } from './github-api.js';
import { CredentialsUnavailable, gitHubTokenFor, type GitHubCredentials } from './github-app.js';
import { printable } from './request.js';

const MODULE = 'approval-delivery';

/** What a decision is, for the desk to answer the task with. */
export interface ApprovalDecisionRequest {
  action: ApprovalAction;
  /** The GitHub login of who decided. */
  by: string;
  at: Date;
  comment?: string;
}

/** An approval step waiting in an execution, as the desk found it. */
export interface WaitingApproval {
  step: string;
  approval: Pick<Approval, 'approvers' | 'selfApproval'>;
  /** Who pushed the change, when the build knows (a self-approval's). */
  pushedBy?: string;
  /**
   * Every approval step of the execution waiting now, the one waiting longest first, this one among
   * them: the buttons the check run shows after a refusal.
   */
  waiting: readonly WaitingStep[];
  /**
   * Reads the step's task token and answers it (SendTaskSuccess with the step's result, or
   * SendTaskFailure with ApprovalRejected); false when the step no longer waits.
   */
  decide(decision: ApprovalDecisionRequest): Promise<boolean>;
}

/** Where waiting approvals are found and answered: Step Functions on AWS, the local executor locally. */
export interface ApprovalDesk {
  /**
   * The approval step the execution waits on, named by its iteration (a check run's button) or its
   * name (the signed generic webhook); undefined when it waits on none such.
   */
  waiting(executionName: string, which: { index: number } | { step: string }): Promise<WaitingApproval | undefined>;
}

export interface ApprovalDeliveryDeps {
  desk: ApprovalDesk;
  /** The deployment's GitHub App: only it receives requested actions, and its token asks GitHub. */
  credentials: GitHubCredentials;
  api?: Omit<GitHubApiOptions, 'token'>;
  /** GITHUB_APP_ID (its id or client id): a check run of another App is not ours to decide. */
  appId?: string;
  now?: () => Date;
  log: Pick<Logger, 'info' | 'warn'>;
}

export const REQUESTED_ACTION = 'requested_action';

const payloadSchema = z.object({
  action: z.literal(REQUESTED_ACTION),
  requested_action: z.object({ identifier: z.string() }),
  check_run: z.object({
    id: z.number().int().positive(),
    external_id: z.string().nullish(),
    app: z.object({ id: z.number().int(), client_id: z.string().nullish() }).nullish(),
    output: z.object({ title: z.string().nullish(), summary: z.string().nullish(), text: z.string().nullish() }).nullish(),
  }),
  repository: z.object({ full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/) }),
  sender: z.object({ login: z.string().min(1) }),
  installation: z.object({ id: z.number().int().positive() }).nullish(),
});

/** Whether a delivery is a check run's requested action (the rest of check_run is github-event.ts's). */
export function isRequestedAction(event: string | undefined, payload: unknown): boolean {
  return event === 'check_run' && (payload as { action?: unknown } | null)?.action === REQUESTED_ACTION;
}

type Answer = { statusCode: number; body: Record<string, unknown> };

/** Reading the collaborator permission needs metadata: read; team membership, the organization's members: read. */
function permissionsFor(approval: WaitingApproval['approval']): InstallationPermissions {
  return { checks: 'write', metadata: 'read', ...((approval.approvers?.teams.length ?? 0) > 0 ? { members: 'read' } : {}) };
}

export async function answerRequestedAction(payload: unknown, delivery: string, deps: ApprovalDeliveryDeps): Promise<Answer> {
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidPayload(`The check_run payload is not what GitHub sends: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}.`, MODULE);
  }
  const { check_run: run, requested_action: requested, repository, sender, installation } = parsed.data;
  const ignored = (reason: string) => {
    deps.log.info('GitHub delivery ignored', { delivery: printable(delivery), event: 'check_run', reason });
    return { statusCode: 202, body: { ignored: reason } };
  };
  const asked = requestedApproval(requested.identifier);
  if (!asked) return ignored(`the requested action ${JSON.stringify(printable(requested.identifier))} is none of the runner's`);
  const ours = deps.appId !== undefined && run.app !== null && run.app !== undefined && (String(run.app.id) === deps.appId || run.app.client_id === deps.appId);
  if (!ours) return ignored(`the check run is not this deployment's App's${deps.appId ? ` (${deps.appId})` : ''}`);
  const execution = executionNameIn(run.external_id);
  if (!execution) return ignored('the check run names no execution (external_id)');

  const waiting = await deps.desk.waiting(execution, { index: asked.index });
  if (!waiting) throw new ApprovalNotWaitingHere(`Execution ${execution} waits for no approval at step ${asked.index + 1}: it was decided, timed out, or the build has ended.`, MODULE);

  const target = { repository: repository.full_name, ...(installation ? { installationId: installation.id } : {}) };
  const github = await gitHubCall('an installation token', async () => {
    const chosen = await gitHubTokenFor({ ...(deps.credentials.app ? { app: deps.credentials.app } : {}) }, target, permissionsFor(waiting.approval));
    if (!chosen) throw new ForgeUnavailable(`${repository.full_name}: the delivery came through no GitHub App installation, so who clicked cannot be asked.`, MODULE);
    return gitHubApi({ ...deps.api, token: chosen.token });
  });
  const decider = await gitHubCall(`what GitHub says of ${sender.login}`, () => deciderOf(github, repository.full_name, sender.login, waiting.approval));
  const verdict = approverVerdict(waiting.approval, decider, waiting.pushedBy);
  const output = { title: run.output?.title ?? 'Waiting for an approval', summary: run.output?.summary ?? '', text: run.output?.text ?? '' };
  if (!verdict.allowed) {
    await updateQuietly(github, repository.full_name, run.id, approvalRefusedUpdate(output, verdict.why, waiting.waiting), deps);
    deps.log.info('Approval refused', { delivery: printable(delivery), execution, step: waiting.step, sender: sender.login, why: verdict.why });
    throw new ApproverRefused(`${verdict.why}; step "${waiting.step}" still waits.`, MODULE);
  }
  const at = (deps.now ?? (() => new Date()))();
  const decided = await waiting.decide({ action: asked.action, by: sender.login, at });
  if (!decided) throw new ApprovalNotWaitingHere(`Step "${waiting.step}" of execution ${execution} no longer waits for an approval.`, MODULE);
  // Approved, the build's own ReportDecision says so, as for every other way of deciding, in its
  // order with the build's other reports (a write here could land after the next approval's
  // ReportWaiting and take its buttons). Rejected, the build ends and its end report takes every
  // button, after the steps that run after a failure: until then the run says who rejected it.
  if (asked.action === 'reject') await updateQuietly(github, repository.full_name, run.id, approvalDecidedUpdate(output, waiting.step, { action: 'reject', by: sender.login, at: at.toISOString() }), deps);
  const words = asked.action === 'approve' ? 'approved' : 'rejected';
  deps.log.info(`Approval step ${words}`, { delivery: printable(delivery), execution, step: waiting.step, by: sender.login });
  return { statusCode: 200, body: { [words]: waiting.step, by: sender.login, executionName: execution } };
}

/** Their role, and the listed teams they are an active member of (asked only when their role and name do not already let them). */
async function deciderOf(api: ReturnType<typeof gitHubApi>, repository: string, login: string, approval: WaitingApproval['approval']): Promise<Decider> {
  const role = await api.repositoryRole(repository, login);
  const without: Decider = { login, role, teams: [] };
  const teams = approval.approvers?.teams ?? [];
  if (teams.length === 0 || approverVerdict({ ...approval, selfApproval: true }, without).allowed) return without;
  const member = await Promise.all(
    teams.map(async (team) => {
      const [org, slug] = team.split('/');
      return org && slug && (await api.activeTeamMember(org, slug, login)) ? [team] : [];
    }),
  );
  return { ...without, teams: member.flat() };
}

/** GitHub failing or refusing: a 502 the App's delivery page shows, so that a redelivery may be tried; the wait goes on. */
async function gitHubCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof GitHubApiError || error instanceof CredentialsUnavailable) {
      throw new ForgeUnavailable(`GitHub could not tell ${what}: ${error.message}. Nothing was decided; redeliver, or click again.`, MODULE);
    }
    throw error;
  }
}

/** The check run's words are a courtesy: the decision stands (or the refusal holds) whatever GitHub answers. */
async function updateQuietly(api: ReturnType<typeof gitHubApi>, repository: string, id: number, update: CheckRunUpdate, deps: ApprovalDeliveryDeps): Promise<void> {
  try {
    await api.updateCheckRun(repository, id, update);
  } catch (error) {
    deps.log.warn('The check run could not be updated', { repository, checkRun: id, reason: (error as Error).message });
  }
}
