/**
 * Commit statuses for a build: what they say (pure), whether a build gets one, and where they go
 * (a sink: GitHub's statuses API on AWS; lib/local prints them).
 */
import { ErrorNames, Outcomes, type BuildRef, type CaughtFailure, type Outcome, type StatusReport, type StatusRequest } from '../contract/index.js';
import { plainCause } from '../contract/lambda-error.js';
import { isGitHubTrigger } from './build-request.js';
import { consoleUrlFor } from './execution-name.js';
import { gitHubApi, type CommitStatus, type GitHubApi, type GitHubApiOptions } from './github-api.js';
import { gitHubTokenFor, STATUS_PERMISSIONS, type GitHubCredentials } from './github-app.js';

/** The status's name on the commit; one per runner, replaced as the build moves on. */
export const STATUS_CONTEXT = 'step-runner';
/** GitHub refuses longer descriptions (422). */
export const MAX_DESCRIPTION = 140;

export function commitStatusFor(outcome: Outcome, failure?: CaughtFailure, targetUrl?: string, skipped?: string): CommitStatus {
  // `error`, not `failure`: the build did not fail, it was stopped before it could say.
  const [state, description] =
    outcome === Outcomes.stopped && failure?.Error === ErrorNames.Superseded
      ? (['pending', supersededDescription(failure.Cause)] as const)
      : outcome === Outcomes.started
      ? (['pending', 'Build running'] as const)
      : outcome === Outcomes.succeeded
        ? (['success', skipped ?? 'Build succeeded'] as const)
        : outcome === Outcomes.stopped
          ? (['error', failureDescription(failure)] as const)
          : (['failure', failureDescription(failure)] as const);
  return { state, description: truncate(description, MAX_DESCRIPTION), context: STATUS_CONTEXT, ...(targetUrl ? { target_url: targetUrl } : {}) };
}

/**
 * A superseded build's status. Statuses have no neutral, and each of the four states says
 * something untrue of it: `error` and `failure` make the commit's combined state failure (a
 * failing commit it is not), `success` would vouch for a commit no step ran on (the combined
 * state is success when every context's latest status is; REST API endpoints for commit statuses,
 * docs.github.com/en/rest/commits/statuses). `pending` ("no verdict") is the one that claims
 * nothing: it blocks no other commit, and a required check on this very commit still waits for
 * a build that does run it. The description says which commit took its place.
 */
function supersededDescription(cause: string | undefined): string {
  const commit = /^Superseded by ([0-9a-f]{7,40})\b/.exec(cause ?? '')?.[1];
  return commit ? `superseded by ${commit.slice(0, 7)}` : 'superseded by a newer build';
}

/** `Error: Cause` on one line, as the console shows them. */
export function failureDescription(failure: CaughtFailure | undefined): string {
  const error = failure?.Error?.trim() || 'Build failed';
  const cause = causeText(failure?.Cause);
  return cause ? `${error}: ${cause}` : error;
}

/** The Cause as a person would read it (plainCause), on one line. */
export function causeText(cause: string | undefined): string {
  return plainCause(cause ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * At most `max` characters (code points, so an emoji is never cut in half), ending in "…" when
 * cut, at a word boundary when one is near the end so the last word is whole.
 */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  const kept = space >= cut.length - 20 && space > 0 ? cut.slice(0, space) : cut;
  return `${kept.replace(/[\s,;:.-]+$/, '')}…`;
}

/** The installation, when the build came through a GitHub App, picks the credentials. */
export type CommitRef = Required<Pick<BuildRef, 'repository' | 'commit'>> & Pick<BuildRef, 'installationId'>;

/** Whether a status reached the forge; one that did not says why. */
export type StatusDelivery = { posted: true } | { posted: false; reason: string };

export interface StatusSink {
  post(commit: CommitRef, status: CommitStatus): Promise<StatusDelivery>;
}

export function gitHubStatusSink(api: Pick<GitHubApi, 'createCommitStatus'>): StatusSink {
  return {
    async post(commit, status) {
      await api.createCommitStatus(commit.repository, commit.commit, status);
      return { posted: true };
    },
  };
}

/**
 * GitHub's statuses API with the credentials each commit allows: an installation token of the App
 * the build came through (statuses: write on that repository only), else the deployment's token.
 * An App that cannot give a token throws, and ReportStatus reports the status as not posted.
 */
export function gitHubStatusSinkFor(credentials: GitHubCredentials, api: Omit<GitHubApiOptions, 'token'> = {}): StatusSink {
  return {
    async post(commit, status) {
      const chosen = await gitHubTokenFor(credentials, commit, STATUS_PERMISSIONS);
      if (!chosen) {
        return {
          posted: false,
          reason: `no GitHub credentials for ${commit.repository}: the build did not come through a GitHub App installation, and the deployment has no GitHub token`,
        };
      }
      return gitHubStatusSink(gitHubApi({ ...api, token: chosen.token })).post(commit, status);
    },
  };
}

/** Commit statuses for GitHub builds only: another trigger has no commit to put one on. */
export function commitStatusReporter(sink: StatusSink): { report(request: StatusRequest): Promise<StatusReport> } {
  return {
    async report({ build, outcome, failure, executionArn, skipped }) {
      if (outcome === Outcomes.progress) return { posted: false, reason: 'a commit status says nothing between the start and the end: only a check run shows the steps as they end' };
      if (!isGitHubTrigger(build.trigger) || !build.repository || !build.commit) {
        return { posted: false, reason: `not a GitHub build (${build.trigger ?? 'no trigger'}): no commit status` };
      }
      const status = commitStatusFor(outcome, failure, targetUrl(executionArn), skipped);
      const commit = { repository: build.repository, commit: build.commit, ...(build.installationId !== undefined ? { installationId: build.installationId } : {}) };
      const delivery = await sink.post(commit, status);
      return { ...delivery, state: status.state, description: status.description };
    },
  };
}

/** The console page, for executions that have one (a local execution's ARN names no real region). */
export function targetUrl(executionArn: string | undefined): string | undefined {
  const region = executionArn?.startsWith('arn:aws:states:') ? executionArn.split(':')[3] : undefined;
  return region && /^[a-z]{2}(-[a-z]+)+-\d+$/.test(region) ? consoleUrlFor(executionArn!) : undefined;
}
