/**
 * A GitHub delivery (event name + payload) -> what to do about it. Pure, so every event and action
 * is tested on GitHub's own example payloads.
 */
import * as z from 'zod';
import { Triggers, type BuildRequest } from './build-request.js';
import { pushChangeQuery, unknownChanges, type ChangeQuery } from './changed-files.js';
import { InvalidPayload } from './errors.js';
import { executionNameIn } from './execution-name.js';
import { printable } from './request.js';
import { skipInstruction, skipReason } from './skip-ci.js';

export type GitHubDecision =
  | { kind: 'ping'; zen: string }
  | { kind: 'ignored'; reason: string }
  /** The head commit's message asks for no build (skip-ci.ts). */
  | { kind: 'skipped'; reason: string }
  | {
      kind: 'build';
      request: BuildRequest;
      /** How the change's files are found (changed-files.ts). */
      changes: ChangeQuery;
      /**
       * The head commit's message is not in the payload (a pull request's): a skip instruction in
       * it can only be seen through the API.
       */
      checkHeadCommitMessage: boolean;
      /** A "Re-run" from GitHub: the execution name says so (execution-name.ts, rerunExecutionName). */
      rerun?: RerunOf;
    };

/** What a re-run re-runs: the earlier execution's name, when the delivery names it. */
export interface RerunOf {
  earlier?: string;
}

const MODULE = 'github-event';
const ZERO_SHA = /^0{40}$/;
const sha = z.string().regex(/^[0-9a-f]{40}$/, 'a 40-character commit sha');
// clone_url: GitHub's https URL of the repository (on GitHub Enterprise, the server's own).
const repository = z.object({
  full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'owner/name'),
  clone_url: z.string().regex(/^https?:\/\/[^\s@]+$/, 'an http(s) URL without credentials').optional(),
  // Whose cache entries a build falls back on (BuildRef.defaultBranch).
  default_branch: z.string().min(1).optional(),
  // A push payload's is the push's time in seconds since the epoch; other payloads' is ISO 8601.
  pushed_at: z.union([z.number(), z.string()]).nullish(),
});

// Present on the deliveries of a GitHub App (absent on a repository's own webhook): which
// installation of the App the repository belongs to, so the build can get a token of it.
const installation = z.object({ id: z.number().int().positive() }).nullish();

const paths = z.array(z.string()).optional();

// Who the event is about: for a push, who pushed; for a pull request's opened or synchronize, who
// opened it or pushed its new head (docs.github.com, "Webhook events and payloads": `sender`).
const sender = z.object({ login: z.string().min(1) }).nullish();

const pushPayload = z.object({
  ref: z.string().min(1),
  before: z.string().optional(),
  after: z.string(),
  created: z.boolean().optional(),
  deleted: z.boolean().optional(),
  forced: z.boolean().optional(),
  // Every pushed commit, each with the paths it added, modified and removed.
  commits: z.array(z.object({ added: paths, modified: paths, removed: paths })).optional(),
  // The commit `after` names; null when the push deleted the ref.
  head_commit: z.object({ message: z.string() }).nullish(),
  repository,
  installation,
  sender,
});

/** The actions that put a new head commit in front of reviewers. */
export const BUILT_PULL_REQUEST_ACTIONS = ['opened', 'synchronize', 'reopened'] as const;

const pullRequestPayload = z.object({
  action: z.string(),
  number: z.number().int(),
  // head.repo is null when the fork it came from has been deleted.
  pull_request: z.object({
    head: z.object({ sha, repo: z.object({ full_name: z.string() }).nullable().optional() }),
    // The branch it merges into: a step's `when.branch` is matched with it, as GitHub Actions' `branches`.
    base: z.object({ ref: z.string().min(1) }).optional(),
    changed_files: z.number().int().nonnegative().optional(),
    // Set when the head moves (synchronize): the order of two pushes to one pull request.
    updated_at: z.string().optional(),
  }),
  repository,
  installation,
  sender,
});

export interface GitHubPolicy {
  /**
   * Build pull requests from forks. Off by default: a fork's pull request brings its own
   * `.step-runner.yml`, which would run on the cluster with the namespace's Secrets, so anyone able
   * to open a pull request could read them (GitHub Actions withholds secrets from forks likewise).
   */
  buildForkPullRequests?: boolean;
  /**
   * The deployment's GitHub App (GITHUB_APP_ID: its id, or its client id): only its own check
   * runs and suites are re-run. Absent: the deployment creates no check runs, so it re-runs none.
   */
  appId?: string;
}

const pingPayload = z.object({ zen: z.string().optional() });

export function decideGitHubDelivery(event: string | undefined, payload: unknown, policy: GitHubPolicy = {}): GitHubDecision {
  if (!event) throw new InvalidPayload('The X-GitHub-Event header is missing.', MODULE);
  switch (event) {
    case 'ping':
      return { kind: 'ping', zen: parse(pingPayload, payload, event).zen ?? '' };
    case 'push':
      return decidePush(parse(pushPayload, payload, event));
    case 'pull_request':
      return decidePullRequest(parse(pullRequestPayload, payload, event), policy);
    case 'check_run':
    case 'check_suite':
      return decideRerun(event, payload, policy);
    default:
      return { kind: 'ignored', reason: `"${printable(event)}" events do not start builds` };
  }
}

function decidePush(push: z.infer<typeof pushPayload>): GitHubDecision {
  if (push.deleted === true || ZERO_SHA.test(push.after)) {
    return { kind: 'ignored', reason: `${push.ref} was deleted; there is nothing to build` };
  }
  if (push.ref.startsWith('refs/tags/')) return { kind: 'ignored', reason: `tag pushes (${push.ref}) do not start builds` };
  if (!push.ref.startsWith('refs/heads/')) return { kind: 'ignored', reason: `${push.ref} is not a branch` };
  const after = sha.safeParse(push.after);
  if (!after.success) throw new InvalidPayload('The push payload\'s "after" is not a commit sha.', MODULE);
  const instruction = skipInstruction(push.head_commit?.message);
  if (instruction) return { kind: 'skipped', reason: skipReason(instruction, after.data) };
  return {
    kind: 'build',
    changes: pushChangeQuery(push),
    checkHeadCommitMessage: false,
    request: {
      trigger: Triggers.githubPush,
      event: 'push',
      repository: push.repository.full_name,
      commit: after.data,
      ref: push.ref,
      ...defaultBranchOf(push.repository),
      ...pushedAtOf(push.repository.pushed_at),
      cloneUrl: cloneUrlOf(push.repository),
      ...installationOf(push),
      ...pushedByOf(push),
    },
  };
}

function decidePullRequest(pr: z.infer<typeof pullRequestPayload>, policy: GitHubPolicy): GitHubDecision {
  if (!(BUILT_PULL_REQUEST_ACTIONS as readonly string[]).includes(pr.action)) {
    return { kind: 'ignored', reason: `pull_request "${printable(pr.action)}" does not start a build` };
  }
  const head = pr.pull_request.head.repo?.full_name;
  if (head !== pr.repository.full_name && !policy.buildForkPullRequests) {
    return {
      kind: 'ignored',
      reason: `pull request #${pr.number} comes from a fork (${printable(head ?? 'deleted')}): its pipeline would run with this repository's secrets; set BUILD_FORK_PULL_REQUESTS=true to build forks`,
    };
  }
  // The head commit is fetched and reported on in the base repository: GitHub keeps every pull
  // request's head there as refs/pull/N/head, forks included.
  const { changed_files: changedFiles } = pr.pull_request;
  return {
    kind: 'build',
    changes: { kind: 'pullRequest', number: pr.number, ...(changedFiles !== undefined ? { changedFiles } : {}) },
    checkHeadCommitMessage: true,
    request: {
      trigger: Triggers.githubPullRequest,
      event: 'pull_request',
      repository: pr.repository.full_name,
      commit: pr.pull_request.head.sha,
      ref: `refs/pull/${pr.number}/head`,
      ...(pr.pull_request.base ? { baseRef: `refs/heads/${pr.pull_request.base.ref}` } : {}),
      ...defaultBranchOf(pr.repository),
      // A fork's head (or one whose fork was deleted) is someone else's code: it saves no cache.
      pullRequest: { number: pr.number, fork: head !== pr.repository.full_name },
      ...pushedAtOf(pr.pull_request.updated_at),
      cloneUrl: cloneUrlOf(pr.repository),
      ...installationOf(pr),
      ...pushedByOf(pr),
    },
  };
}

// Re-runs: GitHub sends check_run "rerequested" when someone clicks "Re-run" on a check run, and
// check_suite "rerequested" for "Re-run all checks", each to the App that created the run or suite
// (docs.github.com, "Webhook events and payloads": check_run, check_suite). Its payload names the
// commit and branch, not the event that built it: a head with a pull request open is re-run as that
// pull request's build, any other as its branch's push build.
const RERUN_ACTION = 'rerequested';
const actionOnly = z.object({ action: z.string() });
const app = z.object({ id: z.number().int(), client_id: z.string().nullish() }).nullish();
// The pull requests whose head is this commit's branch. GitHub lists none, and names no branch,
// when the branch is in a fork.
const matchingPullRequests = z
  .array(
    z.object({
      number: z.number().int().positive(),
      head: z.object({ ref: z.string(), repo: z.object({ id: z.number() }).nullish() }),
      base: z.object({ ref: z.string().min(1), repo: z.object({ id: z.number() }).nullish() }),
    }),
  )
  .nullish();
const suiteFields = {
  head_branch: z.string().min(1).nullish(),
  // The push the suite was created for: `before` is what its changed files are compared with.
  before: z.string().nullish(),
  pull_requests: matchingPullRequests,
};
const checkRunPayload = z.object({
  check_run: z.object({
    head_sha: sha,
    external_id: z.string().nullish(),
    app,
    pull_requests: matchingPullRequests,
    check_suite: z.object(suiteFields),
  }),
  repository,
  installation,
});
const checkSuitePayload = z.object({
  check_suite: z.object({ head_sha: sha, app, ...suiteFields }),
  repository,
  installation,
});

interface RerunSubject {
  event: 'check_run' | 'check_suite';
  app: z.infer<typeof app>;
  headSha: string;
  headBranch: string | null | undefined;
  before: string | null | undefined;
  pullRequests: z.infer<typeof matchingPullRequests>;
  repository: z.infer<typeof repository>;
  installation?: z.infer<typeof installation>;
  earlier?: string | undefined;
}

function decideRerun(event: 'check_run' | 'check_suite', payload: unknown, policy: GitHubPolicy): GitHubDecision {
  const { action } = parse(actionOnly, payload, event);
  if (action !== RERUN_ACTION) return { kind: 'ignored', reason: `${event} "${printable(action)}" does not start a build; only "${RERUN_ACTION}" (a re-run) does` };
  if (event === 'check_run') {
    const { check_run: run, ...rest } = parse(checkRunPayload, payload, event);
    const { check_suite: suite } = run;
    return rerunOf(
      { event, app: run.app, headSha: run.head_sha, headBranch: suite.head_branch, before: suite.before, pullRequests: run.pull_requests ?? suite.pull_requests, earlier: executionNameIn(run.external_id), ...rest },
      policy,
    );
  }
  const { check_suite: suite, ...rest } = parse(checkSuitePayload, payload, event);
  return rerunOf({ event, app: suite.app, headSha: suite.head_sha, headBranch: suite.head_branch, before: suite.before, pullRequests: suite.pull_requests, ...rest }, policy);
}

function rerunOf(subject: RerunSubject, policy: GitHubPolicy): GitHubDecision {
  const notOurs = notOurApp(subject, policy.appId);
  if (notOurs) return { kind: 'ignored', reason: notOurs };
  const { headSha: commit, headBranch: branch } = subject;
  const pr = subject.pullRequests?.find((p) => p.head.ref === branch) ?? subject.pullRequests?.[0];
  const rerun = { rerun: subject.earlier ? { earlier: subject.earlier } : {} };
  const common = { repository: subject.repository.full_name, commit, ...defaultBranchOf(subject.repository), cloneUrl: cloneUrlOf(subject.repository), ...installationOf(subject) };
  if (pr) {
    const fork = pr.head.repo?.id !== undefined && pr.base.repo?.id !== undefined && pr.head.repo.id !== pr.base.repo.id;
    if (fork && !policy.buildForkPullRequests) {
      return { kind: 'ignored', reason: `pull request #${pr.number} comes from a fork: its pipeline would run with this repository's secrets; set BUILD_FORK_PULL_REQUESTS=true to build forks` };
    }
    return {
      kind: 'build',
      changes: { kind: 'pullRequest', number: pr.number },
      // Asked for by a person: a [skip ci] in the message does not refuse it.
      checkHeadCommitMessage: false,
      ...rerun,
      request: {
        trigger: Triggers.githubPullRequest,
        event: 'pull_request',
        ref: `refs/pull/${pr.number}/head`,
        baseRef: `refs/heads/${pr.base.ref}`,
        pullRequest: { number: pr.number, fork },
        ...common,
      },
    };
  }
  if (!branch) {
    return { kind: 'ignored', reason: `${subject.event} of ${commit.slice(0, 7)} names no branch of ${subject.repository.full_name} (GitHub names none for a fork's): there is nothing to re-run it as` };
  }
  const before = subject.before && sha.safeParse(subject.before).success && !ZERO_SHA.test(subject.before) ? subject.before : undefined;
  return {
    kind: 'build',
    changes: before
      ? { kind: 'compare', base: before, head: commit, why: `a ${subject.event} delivery lists no files` }
      : { kind: 'known', changes: unknownChanges(`the ${subject.event} delivery names no earlier commit to compare with`) },
    checkHeadCommitMessage: false,
    ...rerun,
    request: { trigger: Triggers.githubPush, event: 'push', ref: `refs/heads/${branch}`, ...common },
  };
}

/** Why the run or suite is not the deployment's own to re-run; undefined when it is. */
function notOurApp(subject: RerunSubject, appId: string | undefined): string | undefined {
  const theirs = subject.app ? `GitHub App ${subject.app.id}` : 'no GitHub App';
  if (!appId) return `this deployment has no GitHub App (GITHUB_APP_ID), so the ${subject.event} of ${theirs} is not one of its own to re-run`;
  // GITHUB_APP_ID is the App's id or its client id (settings.ts); payloads carry both, the client id only lately.
  const ours = subject.app !== null && subject.app !== undefined && (String(subject.app.id) === appId || subject.app.client_id === appId);
  return ours ? undefined : `the ${subject.event} belongs to ${theirs}, not to this deployment's App ${appId}: only its own are re-run`;
}

/** GitHub sends clone_url; github.com's form is the fallback for a payload without it. */
function cloneUrlOf(repo: z.infer<typeof repository>): string {
  return repo.clone_url ?? `https://github.com/${repo.full_name}.git`;
}

/**
 * When GitHub took the push, which orders two builds of one concurrency group (BuildRef.pushedAt).
 * GitHub does not promise to deliver webhooks in order, so the order is read from the payloads,
 * not from when they arrive: a push's `repository.pushed_at` (seconds since the epoch) and a pull
 * request's `pull_request.updated_at` (ISO 8601, moved by the push that a synchronize reports),
 * as the webhook events and payloads reference gives them
 * (docs.github.com/en/webhooks/webhook-events-and-payloads#push, #pull_request). Not a commit's
 * own timestamp: that is the author's clock, and a rebase keeps it.
 */
function pushedAtOf(value: string | number | null | undefined): { pushedAt?: string } {
  const at = typeof value === 'number' ? new Date(value * 1000) : typeof value === 'string' ? new Date(value) : undefined;
  return at && !Number.isNaN(at.getTime()) ? { pushedAt: at.toISOString() } : {};
}

function defaultBranchOf(repo: z.infer<typeof repository>): { defaultBranch?: string } {
  return repo.default_branch ? { defaultBranch: repo.default_branch } : {};
}

function installationOf(payload: { installation?: { id: number } | null | undefined }): { installationId?: number } {
  return payload.installation ? { installationId: payload.installation.id } : {};
}

/** A re-run's sender is who clicked, not who pushed: only pushes and pull requests name the pusher. */
function pushedByOf(payload: { sender?: { login: string } | null | undefined }): { pushedBy?: string } {
  return payload.sender ? { pushedBy: payload.sender.login } : {};
}

function parse<T>(schema: z.ZodType<T>, payload: unknown, event: string): T {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || '(root)';
  throw new InvalidPayload(`The ${event} payload is not what GitHub sends: ${field}: ${issue?.message ?? 'invalid'}.`, MODULE);
}
