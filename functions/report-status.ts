import secretsManager from '@middy/secrets-manager';
import type { MiddlewareObj } from '@middy/core';
import { ForgeEnvNames, SECRETS_CACHE_MS, secretIds, secretsCacheKey, secretText } from '../lib/forge/config.js';
import { gitHubStatusSink, printedStatusSink, type StatusSink } from '../lib/forge/commit-status.js';
import { gitHubApi } from '../lib/forge/github-api.js';
import { lambdaTask, logger } from '../lib/workflow/lambda-task.js';
import { reportStatus, type ReportStatusInput, type ReportStatusResult } from '../lib/workflow/tasks/report-status.js';

/**
 * ReportStarted / ReportSucceeded / ReportFailed. With GITHUB_TOKEN_SECRET_ID set (on AWS) the
 * status is posted to GitHub; without it (the local executor) it is printed.
 */
export function createReportStatusHandler(
  env: NodeJS.ProcessEnv = process.env,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
) {
  const ids = secretIds(env, ['githubToken']);
  const apiUrl = env[ForgeEnvNames.githubApiUrl];
  const sinkFor = (token: unknown): StatusSink =>
    ids.githubToken
      ? gitHubStatusSink(gitHubApi({ ...(apiUrl ? { baseUrl: apiUrl } : {}), ...(secretText(token) ? { token: secretText(token)! } : {}) }))
      : printedStatusSink(print);

  const handler = lambdaTask<ReportStatusInput, ReportStatusResult>(async (input, context) =>
    reportStatus(input, { sink: sinkFor((context as { githubToken?: unknown }).githubToken), log: logger }),
  );
  if (ids.githubToken) {
    handler.use(
      secretsManager({ fetchData: ids, setToContext: true, cacheKey: secretsCacheKey(ids), cacheExpiry: SECRETS_CACHE_MS }) as MiddlewareObj,
    );
  }
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

export const handler = createReportStatusHandler();
