import type { MiddlewareObj } from '@middy/core';
import { secretText } from '../forge/secret-text.js';
import { prepareBuildHandler } from '../workflow/handlers.js';
import { secretIds, secretsMiddleware } from './secrets.js';
import { lambdaTaskRuntime } from './task-runtime.js';

/**
 * PrepareBuild on AWS: the task runtime, and the GitHub token from Secrets Manager for the clones
 * of private repositories. Without GITHUB_TOKEN_SECRET_ID, clones go without credentials (public
 * repositories only).
 */
export function createPrepareBuildHandler(env: NodeJS.ProcessEnv = process.env) {
  const ids = secretIds(env, ['githubToken']);
  const handler = prepareBuildHandler(lambdaTaskRuntime(env), (context) => {
    const githubToken = secretText((context as { githubToken?: unknown }).githubToken);
    return githubToken ? { githubToken } : {};
  });
  if (ids.githubToken) handler.use(secretsMiddleware(ids) as MiddlewareObj);
  return handler;
}
