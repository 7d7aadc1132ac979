/**
 * A GitHub delivery (event name + payload) -> what to do about it. Pure, so every event and action
 * is tested on GitHub's own example payloads.
 */
import * as z from 'zod';
import { Triggers, type BuildRequest } from './build-request.js';
import { pushChangeQuery, type ChangeQuery } from './changed-files.js';
import { InvalidPayload } from './errors.js';
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
    };

const MODULE = 'github-event';
const ZERO_SHA = /^0{40}$/;
const sha = z.string().regex(/^[0-9a-f]{40}$/, 'a 40-character commit sha');
// clone_url: GitHub's https URL of the repository (on GitHub Enterprise, the server's own).
const repository = z.object({
  full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'owner/name'),
  clone_url: z.string().regex(/^https?:\/\/[^\s@]+$/, 'an http(s) URL without credentials').optional(),
  // Whose cache entries a build falls back on (BuildRef.defaultBranch).
  default_branch: z.string().min(1).optional(),
});

// Present on the deliveries of a GitHub App (absent on a repository's own webhook): which
// installation of the App the repository belongs to, so the build can get a token of it.
const installation = z.object({ id: z.number().int().positive() }).nullish();

const paths = z.array(z.string()).optional();

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
  }),
  repository,
  installation,
});

export interface GitHubPolicy {
  /**
   * Build pull requests from forks. Off by default: a fork's pull request brings its own
   * `.step-runner.yml`, which would run on the cluster with the namespace's Secrets, so anyone able
   * to open a pull request could read them (GitHub Actions withholds secrets from forks likewise).
   */
  buildForkPullRequests?: boolean;
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
      cloneUrl: cloneUrlOf(push.repository),
      ...installationOf(push),
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
      cloneUrl: cloneUrlOf(pr.repository),
      ...installationOf(pr),
    },
  };
}

/** GitHub sends clone_url; github.com's form is the fallback for a payload without it. */
function cloneUrlOf(repo: z.infer<typeof repository>): string {
  return repo.clone_url ?? `https://github.com/${repo.full_name}.git`;
}

function defaultBranchOf(repo: z.infer<typeof repository>): { defaultBranch?: string } {
  return repo.default_branch ? { defaultBranch: repo.default_branch } : {};
}

function installationOf(payload: { installation?: { id: number } | null | undefined }): { installationId?: number } {
  return payload.installation ? { installationId: payload.installation.id } : {};
}

function parse<T>(schema: z.ZodType<T>, payload: unknown, event: string): T {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || '(root)';
  throw new InvalidPayload(`The ${event} payload is not what GitHub sends: ${field}: ${issue?.message ?? 'invalid'}.`, MODULE);
}
