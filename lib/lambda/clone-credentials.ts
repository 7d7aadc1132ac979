/**
 * The clone's GitHub credentials on AWS, for PrepareBuild (the build's Secret) and LaunchStep (which
 * renews it): a build that came through the deployment's GitHub App (GITHUB_APP_ID) gets an
 * installation token that can read its repository only, for an hour; others get the deployment's
 * token (GITHUB_TOKEN_SECRET_ID) when there is one; without either, clones go without credentials
 * (public repositories only).
 */
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { BuildRef } from '../contract/index.js';
import { CLONE_PERMISSIONS, gitHubTokenFor, type GitHubCredentials } from '../forge/github-app.js';
import { secretText } from '../forge/secret-text.js';
import type { TaskLog, TaskRuntime } from '../workflow/task-deps.js';
import type { BuildCredentials, GitToken } from '../workflow/build-credentials.js';
import { lambdaGitHubApp, type LambdaGitHubAppOptions } from './github-app.js';
import { secretIds, secretsMiddleware, secretsWithOptionalToken } from './secrets.js';
import { EnvNames, reader } from './settings.js';

export interface CloneCredentials {
  /** The invocation's credentials; the deployment's token is on the context once `middleware` ran. */
  credentialsFor(context: Context): BuildCredentials;
  /** The same credentials for other GitHub calls of the invocation (PrepareBuild's deferred lookups). */
  gitHubFor(context: Context): GitHubCredentials;
  /** Reads the deployment's token, when one is configured. */
  middleware?: MiddlewareObj;
}

/** A task handler (PrepareBuild's, LaunchStep's) given the clone's credentials, their secret read before it runs. */
export function withCloneCredentials<H extends { use(middleware: MiddlewareObj): unknown }>(
  make: (runtime: TaskRuntime, credentialsFor: (context: Context) => BuildCredentials, gitHubFor: (context: Context) => GitHubCredentials) => H,
  env: NodeJS.ProcessEnv,
  runtime: TaskRuntime,
  app: LambdaGitHubAppOptions = {},
): H {
  const { credentialsFor, gitHubFor, middleware } = cloneCredentials(env, runtime.deps.log, app);
  const handler = make(runtime, credentialsFor, gitHubFor);
  if (middleware) handler.use(middleware);
  return handler;
}

export function cloneCredentials(env: NodeJS.ProcessEnv, log: TaskLog, app: LambdaGitHubAppOptions = {}): CloneCredentials {
  const read = reader(env);
  const appSettings = read.gitHubApp();
  read.check();
  const apiUrl = env[EnvNames.githubApiUrl];
  const credentials: GitHubCredentials = appSettings
    ? { app: lambdaGitHubApp(appSettings, { ...(apiUrl ? { baseUrl: apiUrl } : {}), ...app }) }
    : {};
  const ids = secretIds(env, ['githubToken']);
  const gitHubFor = (context: Context): GitHubCredentials => {
    const githubToken = secretText((context as { githubToken?: unknown }).githubToken);
    return { ...credentials, ...(githubToken ? { token: githubToken } : {}) };
  };
  return {
    credentialsFor(context) {
      const available = gitHubFor(context);
      return available.app || available.token ? { githubToken: (build) => cloneToken(available, build, log) } : {};
    },
    gitHubFor,
    ...(ids.githubToken ? { middleware: appSettings ? secretsWithOptionalToken(ids) : (secretsMiddleware(ids) as MiddlewareObj) } : {}),
  };
}

async function cloneToken(credentials: GitHubCredentials, build: BuildRef, log: TaskLog): Promise<GitToken | undefined> {
  const chosen = await gitHubTokenFor(credentials, build, CLONE_PERMISSIONS);
  if (chosen) {
    log.info(`The clone authenticates with ${chosen.description}`);
  } else {
    log.warn(
      'The build did not come through a GitHub App installation, and the deployment has no GitHub token: the clone goes without credentials (public repositories only)',
    );
  }
  return chosen ? { token: chosen.token, expiresAt: chosen.expiresAt } : undefined;
}
