import type { MiddlewareObj } from '@middy/core';
import { commitStatusReporter, gitHubStatusSink } from '../forge/commit-status.js';
import { gitHubApi } from '../forge/github-api.js';
import { secretText } from '../forge/secret-text.js';
import { reportStatusHandler } from '../workflow/handlers.js';
import { logger } from '../workflow/lambda-task.js';
import { secretIds, secretsMiddleware } from './secrets.js';
import { EnvNames, reader } from './settings.js';

/**
 * ReportStarted / ReportSucceeded / ReportFailed on AWS: commit statuses posted to GitHub with the
 * token from Secrets Manager. Its secret id is required at start: without it no status could ever
 * be posted, and a build would look "pending" on GitHub forever.
 */
export function createReportStatusHandler(env: NodeJS.ProcessEnv = process.env) {
  const read = reader(env);
  read.required(EnvNames.githubTokenSecretId);
  read.check();
  const ids = secretIds(env, ['githubToken']);
  const apiUrl = env[EnvNames.githubApiUrl];
  const handler = reportStatusHandler((context) => {
    const token = secretText((context as { githubToken?: unknown }).githubToken);
    return commitStatusReporter(gitHubStatusSink(gitHubApi({ ...(apiUrl ? { baseUrl: apiUrl } : {}), ...(token ? { token } : {}) })));
  });
  handler.use(secretsMiddleware(ids) as MiddlewareObj);
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
