import { prepareBuildHandler } from '../workflow/handlers.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import { withCloneCredentials } from './clone-credentials.js';
import type { LambdaGitHubAppOptions } from './github-app.js';
import { lambdaTaskRuntime } from './task-runtime.js';

/**
 * PrepareBuild on AWS: the task runtime, and the clone's credentials for private repositories
 * (clone-credentials.ts). `runtime` and `app` are for tests: EKS is not theirs to reach.
 */
export function createPrepareBuildHandler(env: NodeJS.ProcessEnv = process.env, runtime: TaskRuntime = lambdaTaskRuntime(env), app: LambdaGitHubAppOptions = {}) {
  return withCloneCredentials(prepareBuildHandler, env, runtime, app);
}
