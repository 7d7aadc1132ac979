import type { MiddlewareObj } from '@middy/core';
import type { BuildInput } from '../contract/index.js';
import { CLONE_PERMISSIONS, gitHubTokenFor, type GitHubCredentials } from '../forge/github-app.js';
import { secretText } from '../forge/secret-text.js';
import { prepareBuildHandler } from '../workflow/handlers.js';
import type { TaskLog, TaskRuntime } from '../workflow/task-deps.js';
import { lambdaGitHubApp, type LambdaGitHubAppOptions } from './github-app.js';
import { secretIds, secretsMiddleware } from './secrets.js';
import { EnvNames, reader } from './settings.js';
import { lambdaTaskRuntime } from './task-runtime.js';

/**
 * PrepareBuild on AWS: the task runtime, and the clone's credentials for private repositories. A
 * build that came through the deployment's GitHub App (GITHUB_APP_ID) gets an installation token
 * that can read its repository only, for an hour; others get the deployment's token
 * (GITHUB_TOKEN_SECRET_ID) when there is one; without either, clones go without credentials
 * (public repositories only). `runtime` and `app` are for tests: EKS is not theirs to reach.
 */
export function createPrepareBuildHandler(
  env: NodeJS.ProcessEnv = process.env,
  runtime: TaskRuntime = lambdaTaskRuntime(env),
  app: LambdaGitHubAppOptions = {},
) {
  const read = reader(env);
  const appSettings = read.gitHubApp();
  read.check();
  const apiUrl = env[EnvNames.githubApiUrl];
  const credentials: GitHubCredentials = appSettings
    ? { app: lambdaGitHubApp(appSettings, { ...(apiUrl ? { baseUrl: apiUrl } : {}), ...app }) }
    : {};
  const ids = secretIds(env, ['githubToken']);
  const handler = prepareBuildHandler(runtime, (context) => {
    const githubToken = secretText((context as { githubToken?: unknown }).githubToken);
    const available = { ...credentials, ...(githubToken ? { token: githubToken } : {}) };
    return available.app || available.token ? { githubToken: (input) => cloneToken(available, input, runtime.deps.log) } : {};
  });
  if (ids.githubToken) handler.use(secretsMiddleware(ids) as MiddlewareObj);
  return handler;
}

async function cloneToken(credentials: GitHubCredentials, input: BuildInput, log: TaskLog): Promise<string | undefined> {
  const chosen = await gitHubTokenFor(credentials, input.build, CLONE_PERMISSIONS);
  if (chosen) {
    log.info(`The clone authenticates with ${chosen.description}`);
  } else {
    log.warn(
      'The build did not come through a GitHub App installation, and the deployment has no GitHub token: the clone goes without credentials (public repositories only)',
    );
  }
  return chosen?.token;
}
