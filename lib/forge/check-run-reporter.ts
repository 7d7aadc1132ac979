/**
 * Check runs on GitHub for builds that came through the deployment's GitHub App (only an App may
 * write them: docs.github.com, REST "Check runs"), commit statuses for the others, as before.
 *
 * The run is found again by its `external_id` (the execution) among the commit's runs of the
 * check's name, so nothing has to carry its id from the start report to the last: a ReportStatus
 * that Step Functions retries updates the run it created instead of creating a second, and a
 * build whose start report never reached GitHub still gets its run, completed, at the end.
 */
import { Outcomes, type StatusReport, type StatusRequest, type WaitingStepReport } from '../contract/index.js';
import { approvalDecidedUpdate, approvalWaitingUpdate, type WaitingStep } from './approval-actions.js';
import { isGitHubTrigger } from './build-request.js';
import { executionNameIn } from './execution-name.js';
import { checkRunCompletion, checkRunCreation, checkRunProgress, endingOf, type CheckStep } from './check-run.js';
import { commitStatusReporter, gitHubStatusSinkFor, targetUrl } from './commit-status.js';
import { gitHubApi, GitHubApiError, type CheckRunCreate, type CheckRunUpdate, type GitHubApi, type GitHubApiOptions } from './github-api.js';
import { CHECKS_PERMISSIONS, gitHubTokenFor, type GitHubCredentials } from './github-app.js';

/** As the App's token requests: attempts that a retry may cure wait this long, doubling. */
const RETRY_DELAY_MS = 500;

export interface CheckRunOptions {
  /** Attempts per call when GitHub fails in a way a retry may cure (no answer, 429, 5xx); default 3. */
  attempts?: number;
  sleep?: (ms: number) => Promise<void>;
  /** ISO 8601 now, for started_at and completed_at. */
  now?: () => string;
}

type CheckRunCalls = Pick<GitHubApi, 'createCheckRun' | 'updateCheckRun' | 'checkRunsNamed'>;

/**
 * Writes one execution's check run: `create` when the commit has none of it yet, then each of
 * `updates` in order (a created run gets the first update's fields at once). Returns its id.
 */
export async function writeCheckRun(
  api: CheckRunCalls,
  repository: string,
  create: CheckRunCreate,
  updates: readonly CheckRunUpdate[],
  options: CheckRunOptions = {},
): Promise<number> {
  const retried = retrying(options);
  const lookup = async () => (await api.checkRunsNamed(repository, create.head_sha, create.name)).find((run) => run.external_id === create.external_id)?.id;
  let id = await retried(lookup);
  let pending = [...updates];
  if (id === undefined) {
    const [first, ...rest] = pending;
    const body: CheckRunCreate = first ? { ...create, ...first } : create;
    let tried = false;
    id = await retried(async () => {
      // A create that got no answer (or a 5xx) may have been made all the same: look before making another.
      const made = tried ? await lookup() : undefined;
      tried = true;
      return made ?? (await api.createCheckRun(repository, body)).id;
    });
    if (first === undefined) return id;
    pending = rest;
  } else if (pending.length === 0) {
    // The start report again (Step Functions retried it): the run exists, say it runs.
    const { name: _name, head_sha: _sha, external_id: _external, ...again } = create;
    pending = [again];
  }
  for (const update of pending) await retried(() => api.updateCheckRun(repository, id, update));
  return id;
}

function retrying(options: CheckRunOptions) {
  const attempts = Math.max(1, options.attempts ?? 3);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return async function retried<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await call();
      } catch (error) {
        const status = error instanceof GitHubApiError ? error.status : undefined;
        if (status === undefined || !(status === 0 || status === 429 || status >= 500) || attempt >= attempts) throw error;
        await sleep(RETRY_DELAY_MS * 2 ** (attempt - 1));
      }
    }
  };
}

/** What a report knows of the build beyond the StatusRequest, when its caller has it. */
export interface CheckRunContext {
  steps?: readonly CheckStep[];
  pipelineFile?: string;
}

/**
 * The check run of a StatusRequest, written with an installation token (checks: write) of the
 * App the build came through. Throws when GitHub could not be reached or refused, as the status
 * sink does: ReportStatus logs it, and the build goes on.
 */
export function checkRunReporter(
  credentials: GitHubCredentials,
  api: Omit<GitHubApiOptions, 'token'> = {},
  options: CheckRunOptions = {},
): { report(request: StatusRequest, context?: CheckRunContext): Promise<StatusReport> } {
  const now = options.now ?? (() => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
  return {
    async report({ build, outcome, failure, executionArn, skipped, steps, pipelineFile, cost, waiting, approvals, approved }, given = {}) {
      const context: CheckRunContext = { ...(steps ? { steps } : {}), ...(pipelineFile ? { pipelineFile } : {}), ...given };
      if (!isGitHubTrigger(build.trigger) || !build.repository || !build.commit) {
        return { posted: false, reason: `not a GitHub build (${build.trigger ?? 'no trigger'}): no check run` };
      }
      const progress = outcome === Outcomes.progress ? progressUpdate(context.steps ?? [], { approvals, waiting, approved, execution: executionNameIn(executionArn ?? build.id) }) : undefined;
      // Not knowing which approvals wait, a progress update could only leave `actions` out, which GitHub
      // does not say keeps them (approval-actions.ts): the run stays as it is until a report that knows.
      if (outcome === Outcomes.progress && !progress) return { posted: false, reason: 'which approval steps wait is not known: the check run is left as it is' };
      const chosen = await gitHubTokenFor({ ...(credentials.app ? { app: credentials.app } : {}) }, build, CHECKS_PERMISSIONS);
      if (!chosen) return { posted: false, reason: `${build.repository}: only a GitHub App may write check runs, and the build did not come through one` };
      const detailsUrl = targetUrl(executionArn);
      const create = checkRunCreation({
        headSha: build.commit,
        execution: executionArn ?? build.id,
        startedAt: now(),
        ...(detailsUrl ? { detailsUrl } : {}),
        ...(context.steps ? { steps: context.steps } : {}),
      });
      const updates =
        outcome === Outcomes.started
          ? []
          : outcome === Outcomes.progress
            ? [progress!]
            : checkRunCompletion({
              ending: endingOf(outcome, failure, skipped),
              completedAt: now(),
              ...(failure ? { failure } : {}),
              ...(skipped ? { skipped } : {}),
              ...(context.steps ? { steps: context.steps } : {}),
              ...(context.pipelineFile ? { pipelineFile: context.pipelineFile } : {}),
              ...(cost ? { cost } : {}),
              mask: (text) => text.split(chosen.token).join('***'),
            });
      // An ended build waits for nobody: an approval's buttons (approval-actions.ts) go with its end.
      if (outcome !== Outcomes.started && outcome !== Outcomes.progress && updates[0]) updates[0] = { ...updates[0], actions: [] };
      await writeCheckRun(gitHubApi({ ...api, token: chosen.token }), build.repository, create, updates, options);
      const state = updates[0]?.conclusion ?? 'in_progress';
      return { posted: true, state, description: (updates[0]?.output ?? create.output)!.title };
    },
  };
}

/**
 * A progress report's update: the steps so far, and the buttons of the approvals waiting, named
 * every time (`[]` when none waits). After an approval (ReportDecision, `approved`), the text
 * says who approved it first, as approvalDecidedUpdate words it. Undefined when which approvals
 * wait is not known. Pure.
 */
export function progressUpdate(
  steps: readonly CheckStep[],
  known: Pick<StatusRequest, 'approvals' | 'waiting' | 'approved'> & { execution?: string | undefined },
): CheckRunUpdate | undefined {
  const waiting = approvalsWaiting(known.approvals, known.waiting);
  if (!waiting) return undefined;
  const progress = checkRunProgress(steps);
  if (!known.approved) return approvalWaitingUpdate(progress, waiting, known.execution);
  const { step, by, at, comment } = known.approved;
  const still = waiting.filter((other) => other.name !== step);
  return { status: progress.status, ...approvalDecidedUpdate({ title: progress.output!.title, summary: progress.output!.summary }, step, { action: 'approve', by, at, comment }, still, known.execution) };
}

/**
 * The approval steps a progress report's check run shows, the one waiting longest first: those the
 * execution's history says wait, and the one ReportWaiting reports (asked for just now, so not in
 * the history yet; last). Undefined: not known (an execution whose ReportProgress passed no
 * settings, or a history that could not be read).
 */
export function approvalsWaiting(approvals: readonly WaitingStepReport[] | undefined, waiting: WaitingStepReport | undefined): WaitingStep[] | undefined {
  const asked = waiting?.step.approval ? [waiting] : [];
  if (approvals === undefined && asked.length === 0) return undefined;
  const all = [...(approvals ?? []).filter((known) => known.index !== waiting?.index), ...asked];
  return all.flatMap(({ step, index }) => (step.approval ? [{ name: step.name, index, approval: step.approval }] : []));
}

/**
 * What ReportStatus reports to GitHub: a check run when the build came through the deployment's
 * App, else a commit status, as without an App.
 */
export function gitHubReporter(
  credentials: GitHubCredentials,
  api: Omit<GitHubApiOptions, 'token'> = {},
  options: CheckRunOptions = {},
): { report(request: StatusRequest): Promise<StatusReport> } {
  const checks = checkRunReporter(credentials, api, options);
  const statuses = commitStatusReporter(gitHubStatusSinkFor(credentials, api));
  return {
    report(request) {
      const viaApp = credentials.app !== undefined && request.build.installationId !== undefined;
      return viaApp ? checks.report(request) : statuses.report(request);
    },
  };
}
