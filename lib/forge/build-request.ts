import type { BuildChanges, BuildInput, BuildSource, DeferredLookup, PendingBuildInput } from '../contract/index.js';
import { buildIdFor } from './execution-name.js';

/** `build.trigger` values. ReportStatus posts commit statuses only for the GitHub ones. */
export const Triggers = {
  githubPush: 'github push',
  githubPullRequest: 'github pull_request',
  generic: 'generic',
  /** A manual run of a GitHub repository's own pipeline file (`step-runner trigger`, the generic webhook without a pipeline). */
  githubManual: 'github manual',
  /** A deployment's schedule (lib/deploy/schedules.cjs): EventBridge Scheduler starts the execution itself. */
  githubSchedule: 'github schedule',
} as const;
export type Trigger = (typeof Triggers)[keyof typeof Triggers];

/** What a webhook asks to build, before the pipeline is loaded. */
export interface BuildRequest {
  trigger: Trigger;
  /** `owner/name`. */
  repository: string;
  commit: string;
  ref: string;
  /** CI_EVENT: push, pull_request, generic, manual or schedule. */
  event: string;
  /** A pull request's base branch ref (`refs/heads/main`), for the steps' `when.branch`. */
  baseRef?: string;
  /** The repository's default branch (BuildRef.defaultBranch), when the delivery names it. */
  defaultBranch?: string;
  /** The pull request that started it (BuildRef.pullRequest). */
  pullRequest?: { number: number; fork: boolean };
  /** Where the clone step fetches the commit from; absent: the build has no source. */
  cloneUrl?: string;
  /** The GitHub App installation the delivery came through (BuildRef.installationId). */
  installationId?: number;
  /** When the forge took the push (BuildRef.pushedAt), which orders the builds of a concurrency group. */
  pushedAt?: string;
  /** The files the change touches (BuildInput.changes); absent: the delivery says nothing of them. */
  changes?: BuildChanges;
  /** The values of the pipeline's `inputs:` the run gives (BuildRef.inputs). */
  inputs?: Record<string, string>;
  /** Who pushed the change (BuildRef.pushedBy). */
  pushedBy?: string;
}

/** GitHub's own https URLs get GitHub credentials, so private repositories check out too. */
function sourceOf(request: BuildRequest, url: string): BuildSource {
  const github = isGitHubTrigger(request.trigger) && url.startsWith('https://');
  return { url, commit: request.commit, ref: request.ref, ...(github ? { credentials: 'github' as const } : {}) };
}

export function isGitHubTrigger(trigger: string | undefined): boolean {
  return trigger === Triggers.githubPush || trigger === Triggers.githubPullRequest || trigger === Triggers.githubManual || trigger === Triggers.githubSchedule;
}

/** The execution input: the build id derives from the execution name, so it is as stable as the name. */
export function buildInputFor(
  executionName: string,
  request: BuildRequest,
  pipeline: { file: string; text: string },
  namespace?: string,
): BuildInput {
  return {
    build: {
      id: buildIdFor(executionName),
      trigger: request.trigger,
      repository: request.repository,
      commit: request.commit,
      ref: request.ref,
      event: request.event,
      ...(request.baseRef !== undefined ? { baseRef: request.baseRef } : {}),
      ...(request.installationId !== undefined ? { installationId: request.installationId } : {}),
      ...(request.defaultBranch !== undefined ? { defaultBranch: request.defaultBranch } : {}),
      ...(request.pullRequest !== undefined ? { pullRequest: request.pullRequest } : {}),
      ...(request.pushedAt !== undefined ? { pushedAt: request.pushedAt } : {}),
      ...(request.inputs !== undefined ? { inputs: request.inputs } : {}),
      ...(request.pushedBy !== undefined ? { pushedBy: request.pushedBy } : {}),
    },
    pipeline,
    ...(request.cloneUrl ? { source: sourceOf(request, request.cloneUrl) } : {}),
    ...(namespace ? { namespace } : {}),
    ...(request.changes ? { changes: request.changes } : {}),
  };
}

/** The execution input of a delivery whose GitHub lookups are left to PrepareBuild (DeferredLookup). */
export function pendingInputFor(
  executionName: string,
  request: BuildRequest,
  pipeline: { file: string; text: string } | undefined,
  lookup: DeferredLookup,
  namespace?: string,
): PendingBuildInput {
  const { pipeline: _none, ...input } = buildInputFor(executionName, request, pipeline ?? { file: '', text: '' }, namespace);
  return { ...input, ...(pipeline ? { pipeline } : {}), lookup };
}
