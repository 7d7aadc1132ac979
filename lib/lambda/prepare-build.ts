import { gitHubChangeSource } from '../forge/change-source.js';
import type { LookupSources } from '../forge/deferred-lookup.js';
import type { GitHubCredentials } from '../forge/github-app.js';
import { gitHubRefHeadSource } from '../forge/ref-head.js';
import { gitHubPipelineSource, gitHubRepositoryFiles } from '../forge/pipeline-source.js';
import { isGitHubTrigger } from '../forge/build-request.js';
import type { BuildInput } from '../contract/index.js';
import { prepareBuildHandler } from '../workflow/handlers.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import { withCloneCredentials } from './clone-credentials.js';
import type { LambdaGitHubAppOptions } from './github-app.js';
import { lambdaTaskRuntime } from './task-runtime.js';
import { EnvNames } from './settings.js';

/**
 * What the webhook left to the build is read with the webhook's rules but not its hurry:
 * PrepareBuild has its function's timeout (serverless.yml), not GitHub's 10 s, and the definition
 * retries GitHubUnavailable.
 */
export const PREPARE_BUILD_GITHUB_CALL_MS = { pipelineFile: 10_000, changes: 10_000, refHead: 10_000 } as const;

/**
 * PrepareBuild on AWS: the task runtime, the clone's credentials for private repositories
 * (clone-credentials.ts), and the same credentials for what the webhook left to the build
 * (DeferredLookup). `runtime` and `app` are for tests: EKS is not theirs to reach.
 */
export function createPrepareBuildHandler(env: NodeJS.ProcessEnv = process.env, runtime: TaskRuntime = lambdaTaskRuntime(env), app: LambdaGitHubAppOptions = {}) {
  const apiUrl = env[EnvNames.githubApiUrl];
  const base = apiUrl ? { baseUrl: apiUrl } : {};
  const sources = (credentials: GitHubCredentials): LookupSources => ({
    pipelines: gitHubPipelineSource(credentials, { ...base, timeoutMs: PREPARE_BUILD_GITHUB_CALL_MS.pipelineFile }),
    changes: gitHubChangeSource(credentials, { ...base, budgetMs: PREPARE_BUILD_GITHUB_CALL_MS.changes }),
    // A schedule names a ref: the commit at its head when it fires.
    refHeads: gitHubRefHeadSource(credentials, { ...base, timeoutMs: PREPARE_BUILD_GITHUB_CALL_MS.refHead }),
  });
  // A build step's Dockerfile, from the pushed commit through GitHub's contents API (a GitHub build only).
  const files = (credentials: GitHubCredentials) => (input: BuildInput) =>
    isGitHubTrigger(input.build.trigger) && input.build.repository && input.build.commit
      ? gitHubRepositoryFiles(credentials, { repository: input.build.repository, commit: input.build.commit, ...(input.build.installationId !== undefined ? { installationId: input.build.installationId } : {}) }, { ...base, timeoutMs: PREPARE_BUILD_GITHUB_CALL_MS.pipelineFile })
      : undefined;
  return withCloneCredentials(
    (rt, credentialsFor, gitHubFor) => prepareBuildHandler(rt, credentialsFor, (context) => sources(gitHubFor(context)), (context) => files(gitHubFor(context))),
    env,
    runtime,
    app,
  );
}
