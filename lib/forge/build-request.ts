import type { BuildInput } from '../contract/index.js';
import { buildIdFor } from './execution-name.js';

/** `build.trigger` values. ReportStatus posts commit statuses only for the GitHub ones. */
export const Triggers = {
  githubPush: 'github push',
  githubPullRequest: 'github pull_request',
  generic: 'generic',
} as const;
export type Trigger = (typeof Triggers)[keyof typeof Triggers];

/** What a webhook asks to build, before the pipeline is loaded. */
export interface BuildRequest {
  trigger: Trigger;
  /** `owner/name`. */
  repository: string;
  commit: string;
  ref: string;
  /** CI_EVENT: push, pull_request or generic. */
  event: string;
  /** Where the clone step fetches the commit from; absent: the build has no source. */
  cloneUrl?: string;
}

export function isGitHubTrigger(trigger: string | undefined): boolean {
  return trigger === Triggers.githubPush || trigger === Triggers.githubPullRequest;
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
    },
    pipeline,
    ...(request.cloneUrl ? { source: { url: request.cloneUrl, commit: request.commit, ref: request.ref } } : {}),
    ...(namespace ? { namespace } : {}),
  };
}
