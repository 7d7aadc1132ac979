/**
 * One webhook request, from the raw API Gateway event to the answer: which endpoint, is it signed,
 * is it JSON, what does it ask for, is its pipeline valid, then start (at most once per delivery).
 * A check run's Approve or Reject (approval-delivery.ts), or a generic `{"approval": ...}`
 * (generic-approval.ts), starts nothing: it answers a waiting step.
 * The order matters: nothing that costs anything (the GitHub API, StartExecution) happens before
 * the signature is verified, a delivery whose head commit asks for no build reads nothing more,
 * and nothing starts before the pipeline is known to be valid, or known to be left to the build.
 *
 * GitHub gives a delivery 10 s, and its API may take seconds a call. So the GitHub calls of one
 * delivery share one budget (`lookupBudgetMs`): whatever has answered by then is used as before
 * (a missing pipeline file is still a 422, a refused one a 400, GitHub's failure a 502); whatever
 * has not is left to PrepareBuild (DeferredLookup), and the build starts with the rest. Deferring
 * only past the budget, rather than always, keeps the answers a person reads on GitHub's
 * "Recent deliveries" page for every delivery GitHub answers promptly, and keeps repositories
 * without a pipeline file from starting executions at all; the budget keeps the answer within
 * GitHub's limit when it does not.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Logger } from '@aws-lambda-powertools/logger';
import { InvalidImage, InvalidPipeline, inputsProblemMessage, parsePipeline, pipelineSizeProblem, problemReports, resolveInputs } from '../pipeline/index.js';
import type { DeferredLookup } from '../contract/index.js';
import { answerRequestedAction, isRequestedAction, type ApprovalDeliveryDeps } from './approval-delivery.js';
import { buildInputFor, pendingInputFor, type BuildRequest } from './build-request.js';
import { noChangeSource, type ChangeSource } from './change-source.js';
import { InputsRejected, MethodNotAllowed, PipelineRejected, PipelineTooLarge, RouteNotFound, WebhookNotConfigured } from './errors.js';
import { executionName, rerunExecutionName } from './execution-name.js';
import type { ExecutionStarter } from './execution-starter.js';
import { decideGenericDelivery } from './generic-event.js';
import { answerGenericApproval, isGenericApproval } from './generic-approval.js';
import { decideGitHubDelivery, type RerunOf } from './github-event.js';
import { PIPELINE_FILE, type PipelineSource, type PipelineText } from './pipeline-source.js';
import type { RefHeadSource } from './ref-head.js';
import { bodyText, header, MAX_BODY_BYTES, parseJson, printable, rawBody, requireJson } from './request.js';
import { verifySignature } from './signature.js';
import { skipInstruction, skipReason } from './skip-ci.js';

export const WebhookRoutes = { github: '/webhook', generic: '/webhook/generic' } as const;
export type WebhookKind = keyof typeof WebhookRoutes;

export const SignatureHeaders = { github: 'x-hub-signature-256', generic: 'x-signature-256' } as const;

/** The secrets a request may need; a kind of webhook without its secret is not served. */
export interface WebhookSecrets {
  githubWebhookSecret?: string;
  genericWebhookSecret?: string;
  githubToken?: string;
}

export type WebhookLog = Pick<Logger, 'info' | 'warn'>;

export interface WebhookDeps {
  starter: ExecutionStarter;
  /** Where a GitHub delivery's pipeline comes from; it may need the GitHub token. */
  pipelines(secrets: WebhookSecrets): PipelineSource;
  /**
   * Where a GitHub delivery's changed files (when the payload cannot list them) and a pull
   * request's head commit message come from (change-source.ts). Absent: nothing is asked, those
   * changes are `known: false`, and a pull request's head commit is not checked for [skip ci].
   */
  changes?(secrets: WebhookSecrets): ChangeSource;
  /**
   * Where a manual run's ref is resolved to its commit, when the generic payload names none (ref-head.ts):
   * GitHub on AWS, the --source repository locally. Absent: such a payload is refused.
   */
  refHeads?(secrets: WebhookSecrets): RefHeadSource;
  log: WebhookLog;
  /** Overrides the deployment's namespace in the execution input. */
  namespace?: string;
  /**
   * Where a GitHub delivery's commit is fetched from, instead of the repository's clone URL: the
   * local server points deliveries at a repository on this machine.
   */
  gitHubCloneUrl?: (request: BuildRequest) => string;
  /** See GitHubPolicy: off unless the deployment says so. */
  buildForkPullRequests?: boolean;
  /** The deployment's GitHub App id (GITHUB_APP_ID): only its own check runs are re-run (GitHubPolicy.appId). */
  gitHubAppId?: string;
  maxBodyBytes?: number;
  /**
   * Answers a check run's Approve and Reject buttons (a `check_run` delivery with action
   * `requested_action`, approval-delivery.ts; only with `gitHubAppId`) and a signed generic
   * `{"approval": ...}` (generic-approval.ts). Absent: the former are ignored, as before.
   */
  approvals?: Omit<ApprovalDeliveryDeps, 'appId' | 'log'>;
  /**
   * How long a GitHub delivery's calls to GitHub (head commit message, pipeline file, changed
   * files) may hold the answer, all of them together; what has not answered by then is left to
   * PrepareBuild. Absent: the answer waits for them (their own timeouts bound them).
   */
  lookupBudgetMs?: number;
}

type Answer = APIGatewayProxyStructuredResultV2;

export function jsonAnswer(statusCode: number, body: unknown): Answer {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

const MODULE = 'webhook';

export async function handleWebhook(event: APIGatewayProxyEventV2, secrets: WebhookSecrets, deps: WebhookDeps): Promise<Answer> {
  const kind = routeOf(event);
  const secret = kind === 'github' ? secrets.githubWebhookSecret : secrets.genericWebhookSecret;
  if (!secret) throw new WebhookNotConfigured(`${kind === 'github' ? 'GitHub' : 'Generic'} webhooks are not configured on this endpoint.`, MODULE);

  const bytes = rawBody(event, deps.maxBodyBytes ?? MAX_BODY_BYTES);
  requireJson(event);
  const text = bodyText(bytes);
  await verifySignature(secret, text, header(event, SignatureHeaders[kind]), SignatureHeaders[kind]);
  const payload = parseJson(text);

  if (kind === 'generic') {
    if (deps.approvals && isGenericApproval(payload)) {
      const answer = await answerGenericApproval(payload, deps.approvals.desk, deps.approvals.now);
      deps.log.info('Approval decided through the generic webhook', { ...answer.body });
      return jsonAnswer(answer.statusCode, answer.body);
    }
    const delivery = decideGenericDelivery(payload);
    const id = header(event, 'x-delivery-id') ?? `body-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`;
    if (delivery.pipeline) return start('generic', id, delivery.request, delivery.pipeline, deps);
    return startManual(id, delivery.request, secrets, deps);
  }

  const eventName = header(event, 'x-github-event');
  const delivery = header(event, 'x-github-delivery') ?? `body-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`;
  if (deps.approvals && isRequestedAction(eventName, payload)) {
    const answer = await answerRequestedAction(payload, delivery, { ...deps.approvals, log: deps.log, ...(deps.gitHubAppId ? { appId: deps.gitHubAppId } : {}) });
    return jsonAnswer(answer.statusCode, answer.body);
  }
  const decision = decideGitHubDelivery(eventName, payload, {
    buildForkPullRequests: deps.buildForkPullRequests === true,
    ...(deps.gitHubAppId ? { appId: deps.gitHubAppId } : {}),
  });
  if (decision.kind === 'ping') {
    deps.log.info('GitHub ping answered', { delivery: printable(delivery) });
    return jsonAnswer(200, { ok: true, zen: decision.zen });
  }
  if (decision.kind === 'ignored') {
    deps.log.info('GitHub delivery ignored', { delivery: printable(delivery), event: eventName, reason: decision.reason });
    return jsonAnswer(202, { ignored: decision.reason });
  }
  if (decision.kind === 'skipped') return skipped(delivery, eventName, decision.reason, deps);
  const request = deps.gitHubCloneUrl ? { ...decision.request, cloneUrl: deps.gitHubCloneUrl(decision.request) } : decision.request;
  const changeSource = deps.changes?.(secrets) ?? noChangeSource;
  const budget = lookupBudget(deps.lookupBudgetMs);
  try {
    const left: Omit<DeferredLookup, 'why'> = {};
    if (decision.checkHeadCommitMessage) {
      const head = await budget.until(() => changeSource.headCommitMessage(request));
      if (head === PENDING) {
        left.headCommitMessage = true;
      } else {
        const instruction = head.known ? skipInstruction(head.message) : undefined;
        if (instruction) return skipped(delivery, eventName, skipReason(instruction, request.commit), deps);
        if (!head.known && deps.changes) {
          deps.log.warn('The head commit message could not be read: a skip instruction in it is not honoured', { delivery: printable(delivery), why: head.why });
        }
      }
    }
    // The change source never rejects, so the pipeline's refusal is the one answer.
    const [pipeline, changes] = await Promise.all([
      budget.until(() => deps.pipelines(secrets).load(request)),
      decision.changes.kind === 'known' ? decision.changes.changes : budget.until(() => changeSource.changes(request, decision.changes)),
    ]);
    if (pipeline === PENDING) left.pipelineFile = PIPELINE_FILE;
    if (changes === PENDING && decision.changes.kind !== 'known') left.changes = decision.changes;
    const known = { ...request, ...(changes !== PENDING ? { changes } : {}) };
    if (Object.keys(left).length === 0) return start('gh', delivery, known, pipeline as PipelineText, deps, undefined, decision.rerun);
    const lookup = { why: `GitHub did not answer within ${deps.lookupBudgetMs} ms`, ...left };
    return start('gh', delivery, known, pipeline === PENDING ? undefined : pipeline, deps, lookup, decision.rerun);
  } finally {
    budget.clear();
  }
}

/**
 * A manual run of a GitHub repository's own pipeline (`step-runner trigger`): the ref's head
 * commit, then the pipeline file at it, both read now, so that bad inputs are refused (422) before
 * anything starts. Cloned from GitHub (the local server: its --source repository).
 */
async function startManual(delivery: string, given: BuildRequest, secrets: WebhookSecrets, deps: WebhookDeps): Promise<Answer> {
  if (!deps.refHeads && !given.commit) {
    throw new WebhookNotConfigured('This endpoint cannot resolve a ref to its commit: send "commit" with the manual run.', MODULE);
  }
  const commit = given.commit || (await deps.refHeads!(secrets).headCommit(given));
  const withCommit = { ...given, commit };
  const cloneUrl = deps.gitHubCloneUrl?.(withCommit) ?? `https://github.com/${given.repository}.git`;
  const request = { ...withCommit, cloneUrl };
  return start('manual', delivery, request, await deps.pipelines(secrets).load(request), deps);
}

const PENDING = Symbol('pending');

/**
 * One deadline for a delivery's GitHub calls. A call still running when it passes is not waited
 * for; it ends by its own timeout (github-api.ts), its answer unused. Once it has passed, no new
 * call is made.
 */
function lookupBudget(ms: number | undefined) {
  let timer: NodeJS.Timeout | undefined;
  let spent = false;
  const expired =
    ms === undefined
      ? new Promise<typeof PENDING>(() => undefined)
      : new Promise<typeof PENDING>((resolve) => {
          timer = setTimeout(() => {
            spent = true;
            resolve(PENDING);
          }, ms);
        });
  return {
    async until<T>(work: () => Promise<T>): Promise<T | typeof PENDING> {
      if (spent) return PENDING;
      return Promise.race([work(), expired]);
    },
    clear: () => clearTimeout(timer),
  };
}

/** Answered as an ignored delivery is: a 202 that says why, and nothing started. */
function skipped(delivery: string, event: string | undefined, reason: string, deps: WebhookDeps): Answer {
  deps.log.info('GitHub delivery skipped', { delivery: printable(delivery), event, reason });
  return jsonAnswer(202, { skipped: reason });
}

async function start(source: string, delivery: string, request: BuildRequest, pipeline: PipelineText | undefined, deps: WebhookDeps, lookup?: DeferredLookup, rerun?: RerunOf): Promise<Answer> {
  if (pipeline) validatePipeline(pipeline, request);
  const identity = { source, delivery, repository: request.repository, commit: request.commit };
  const name = rerun ? rerunExecutionName({ ...identity, earlier: rerun.earlier }) : executionName(identity);
  const started = await deps.starter.start(name, lookup ? pendingInputFor(name, request, pipeline, lookup, deps.namespace) : buildInputFor(name, request, pipeline!, deps.namespace));
  deps.log.info(started.alreadyStarted ? 'Redelivery: the build was already started' : 'Build started', {
    delivery: printable(delivery),
    trigger: request.trigger,
    repository: request.repository,
    commit: request.commit,
    executionName: name,
    ...(rerun ? { rerunOf: rerun.earlier ?? 'an execution the delivery does not name' } : {}),
    ...(request.changes ? { changedFiles: request.changes.known ? request.changes.files.length : `unknown: ${request.changes.why}` } : {}),
    ...(lookup ? { leftToTheBuild: deferredText(lookup) } : {}),
  });
  return jsonAnswer(202, {
    executionArn: started.executionArn,
    executionName: started.executionName,
    consoleUrl: started.consoleUrl,
    ...(started.alreadyStarted ? { alreadyStarted: true } : {}),
    ...(lookup ? { deferred: deferredText(lookup) } : {}),
  });
}

/** For the answer and the log: what the build reads itself, and what it does without a pipeline file. */
function deferredText(lookup: DeferredLookup): string {
  const what = [
    ...(lookup.pipelineFile ? [lookup.pipelineFile] : []),
    ...(lookup.headCommitMessage ? ['the head commit message'] : []),
    ...(lookup.changes ? ['the changed files'] : []),
  ].join(', ');
  const ends = lookup.pipelineFile ? `; without ${lookup.pipelineFile} at the commit it ends with no step run and no commit status` : '';
  return `${lookup.why}: the build reads ${what} itself${ends}`;
}

/** The same validation PrepareBuild does, so a bad pipeline is refused before anything starts. */
function validatePipeline(pipeline: PipelineText, request: BuildRequest): void {
  const tooLarge = pipelineSizeProblem(pipeline.text);
  if (tooLarge) {
    const message = `${pipeline.file}: ${tooLarge}.`;
    throw new PipelineTooLarge(message, MODULE, 'InvalidPipeline', [{ message, file: pipeline.file, line: null, column: null, step: null, field: null }]);
  }
  let parsed;
  try {
    parsed = parsePipeline(pipeline.text, pipeline.file);
  } catch (error) {
    if (error instanceof InvalidPipeline || error instanceof InvalidImage) {
      throw new PipelineRejected(error.message, MODULE, error.name, problemReports(error));
    }
    throw error;
  }
  const inputs = resolveInputs(parsed.inputs, request.inputs);
  if (!inputs.ok) throw new InputsRejected(`${inputsProblemMessage(pipeline.file, inputs.problems)}.`, MODULE, inputs.problems);
  if (parsed.checkout !== false && !request.cloneUrl) {
    const message = `${pipeline.file}: the pipeline checks out its source, but this delivery names no repository to clone: send "cloneUrl", or set "checkout: false" in the pipeline.`;
    throw new PipelineRejected(message, MODULE, 'InvalidPipeline', [{ message, file: pipeline.file, line: null, column: null, step: null, field: 'checkout' }]);
  }
}

/** Routes by path, whatever API Gateway stage prefix is in front of it. */
function routeOf(event: APIGatewayProxyEventV2): WebhookKind {
  const stage = event.requestContext?.stage;
  let path = event.rawPath ?? event.requestContext?.http?.path ?? '';
  if (stage && stage !== '$default' && path.startsWith(`/${stage}/`)) path = path.slice(stage.length + 1);
  path = path.replace(/\/+$/, '') || '/';
  const kind = (Object.keys(WebhookRoutes) as WebhookKind[]).find((k) => WebhookRoutes[k] === path);
  if (!kind) throw new RouteNotFound(`No webhook at ${printable(path)}: use POST ${WebhookRoutes.github} or POST ${WebhookRoutes.generic}.`, MODULE);
  const method = event.requestContext?.http?.method ?? 'POST';
  if (method !== 'POST') throw new MethodNotAllowed(`${printable(method)} ${path}: webhooks are POST requests.`, MODULE);
  return kind;
}
