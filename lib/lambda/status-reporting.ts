/**
 * Commit statuses on AWS, for ReportStatus and for the cleanup of executions that ended outside
 * the definition: posted to GitHub with an installation token of the deployment's GitHub App
 * (statuses: write on the build's repository) for builds that came through it, else with the
 * deployment's token from Secrets Manager.
 */
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { gitHubReporter } from '../forge/check-run-reporter.js';
import type { GitHubCredentials } from '../forge/github-app.js';
import { secretText } from '../forge/secret-text.js';
import type { StatusReporter } from '../workflow/tasks/report-status.js';
import { lambdaGitHubApp, type LambdaGitHubAppOptions } from './github-app.js';
import { secretIds, secretsMiddleware, secretsWithOptionalToken } from './secrets.js';
import { EnvNames, reader } from './settings.js';

/**
 * Statuses are posted within seconds of the token's creation, so one token serves a warm function's
 * statuses for the same repository until it has this little left of its hour.
 */
const STATUS_TOKEN_REUSE_SECONDS = 5 * 60;

export interface StatusReporting {
  /** The invocation's reporter; the deployment's token is on the context once `middleware` ran. */
  reporterFor(context: Context): StatusReporter;
  /** Reads the deployment's token, when one is configured. */
  middleware?: MiddlewareObj;
}

/** `requireCredentials`: stop at start (DeploymentSettingsError) when neither the App nor a token is set. */
export function gitHubStatusReporting(env: NodeJS.ProcessEnv, app: LambdaGitHubAppOptions = {}, requireCredentials = false): StatusReporting {
  const read = reader(env);
  const appSettings = read.gitHubApp();
  if (requireCredentials) read.requiredUnless(EnvNames.githubTokenSecretId, EnvNames.githubAppId, 'commit statuses need the GitHub token or the GitHub App');
  read.check();
  const ids = secretIds(env, ['githubToken']);
  const apiUrl = env[EnvNames.githubApiUrl];
  const api = apiUrl ? { baseUrl: apiUrl } : {};
  const credentials: GitHubCredentials = appSettings
    ? { app: lambdaGitHubApp(appSettings, { ...api, reuseSeconds: STATUS_TOKEN_REUSE_SECONDS, ...app }) }
    : {};
  return {
    reporterFor(context) {
      const token = secretText((context as { githubToken?: unknown }).githubToken);
      // A check run for a build that came through the App (only an App may write them), else a commit status.
      return gitHubReporter({ ...credentials, ...(token ? { token } : {}) }, api);
    },
    ...(ids.githubToken ? { middleware: appSettings ? secretsWithOptionalToken(ids) : (secretsMiddleware(ids) as MiddlewareObj) } : {}),
  };
}
