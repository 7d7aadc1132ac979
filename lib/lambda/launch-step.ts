import { launchStepHandler } from '../workflow/handlers.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import { withCloneCredentials } from './clone-credentials.js';
import type { LambdaGitHubAppOptions } from './github-app.js';
import { lambdaTaskRuntime } from './task-runtime.js';

/**
 * LaunchStep on AWS: the task runtime, and the GitHub App, to renew an installation token that
 * expires before a step pod that checks out for itself (an ephemeral workspace) starts.
 * `runtime` and `app` are for tests.
 */
export function createLaunchStepHandler(env: NodeJS.ProcessEnv = process.env, runtime: TaskRuntime = lambdaTaskRuntime(env), app: LambdaGitHubAppOptions = {}) {
  return withCloneCredentials(launchStepHandler, env, runtime, app);
}
