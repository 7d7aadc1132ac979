import type { MiddlewareObj } from '@middy/core';
import { commitStatusReporter, gitHubStatusSinkFor } from '../forge/commit-status.js';
import type { GitHubCredentials } from '../forge/github-app.js';
import { secretText } from '../forge/secret-text.js';
import { reportStatusHandler } from '../workflow/handlers.js';
import { logger } from '../workflow/lambda-task.js';
import { lambdaGitHubApp, type LambdaGitHubAppOptions } from './github-app.js';
import { secretIds, secretsMiddleware } from './secrets.js';
import { EnvNames, reader } from './settings.js';

/**
 * Statuses are posted within seconds of the token's creation, so one token serves a warm function's
 * statuses for the same repository until it has this little left of its hour.
 */
const STATUS_TOKEN_REUSE_SECONDS = 5 * 60;

/**
 * ReportStarted / ReportSucceeded / ReportFailed on AWS: commit statuses posted to GitHub, with an
 * installation token of the deployment's GitHub App (statuses: write on the build's repository)
 * for builds that came through it, else with the deployment's token from Secrets Manager. One of
 * the two is required at start: without either no status could ever be posted, and a build would
 * look "pending" on GitHub forever. `app` is for tests.
 */
export function createReportStatusHandler(env: NodeJS.ProcessEnv = process.env, app: LambdaGitHubAppOptions = {}) {
  const read = reader(env);
  const appSettings = read.gitHubApp();
  read.requiredUnless(EnvNames.githubTokenSecretId, EnvNames.githubAppId, 'commit statuses need the GitHub token or the GitHub App');
  read.check();
  const ids = secretIds(env, ['githubToken']);
  const apiUrl = env[EnvNames.githubApiUrl];
  const api = apiUrl ? { baseUrl: apiUrl } : {};
  const credentials: GitHubCredentials = appSettings
    ? { app: lambdaGitHubApp(appSettings, { ...api, reuseSeconds: STATUS_TOKEN_REUSE_SECONDS, ...app }) }
    : {};
  const handler = reportStatusHandler((context) => {
    const token = secretText((context as { githubToken?: unknown }).githubToken);
    return commitStatusReporter(gitHubStatusSinkFor({ ...credentials, ...(token ? { token } : {}) }, api));
  });
  if (ids.githubToken) handler.use(secretsMiddleware(ids) as MiddlewareObj);
  // A commit status is a courtesy: not even a failure to read the token may fail the build.
  handler.use({
    onError: (request) => {
      // @middy/util wraps a failed secret fetch; the AWS error inside says what went wrong.
      const wrapped = (request.error as Error & { cause?: { data?: unknown[] } }).cause?.data?.[0];
      const error = (wrapped instanceof Error ? wrapped : request.error) as Error;
      const reason = `${error.name}: ${error.message}`;
      logger.warn('Commit status not posted; the build goes on', { reason });
      request.response = { posted: false, reason };
    },
  });
  return handler;
}
