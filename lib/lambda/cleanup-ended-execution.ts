import type { MiddlewareObj } from '@middy/core';
import { cleanupEndedExecutionHandler } from '../workflow/handlers.js';
import { logger } from '../workflow/lambda-task.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import type { LambdaGitHubAppOptions } from './github-app.js';
import { lambdaBuildTraces } from './build-traces.js';
import { deploymentCostReader } from './execution-cost-reader.js';
import { gitHubStatusReporting } from './status-reporting.js';
import { lambdaTaskRuntime } from './task-runtime.js';

/**
 * The EventBridge cleanup of an execution that ended outside the definition (aborted, timed out,
 * failed where no Catch runs): its build's objects deleted, its commit an `error` status when
 * the deployment can post one, with its cost, and its trace sent when it names an OTLP endpoint (as
 * ReportStatus sends the others). `runtime` and `app` are for tests.
 */
export function createCleanupEndedExecutionHandler(
  env: NodeJS.ProcessEnv = process.env,
  runtime: TaskRuntime = lambdaTaskRuntime(env),
  app: LambdaGitHubAppOptions = {},
) {
  const { reporterFor, middleware } = gitHubStatusReporting(env, app);
  const exportTrace = runtime.deps.exportTrace ?? lambdaBuildTraces(env);
  const handler = cleanupEndedExecutionHandler(exportTrace ? { ...runtime, deps: { ...runtime.deps, exportTrace } } : runtime, reporterFor, deploymentCostReader(env));
  if (middleware) handler.use(bestEffort(middleware));
  return handler;
}

/**
 * The cleanup must happen whatever becomes of the status: a token that cannot be read leaves the
 * status unposted (the reporter says why), never the pods running.
 */
function bestEffort(middleware: MiddlewareObj): MiddlewareObj {
  return {
    before: async (request) => {
      try {
        await middleware.before?.(request);
      } catch (error) {
        logger.warn('The GitHub token could not be read; the cleanup goes on without a commit status', { reason: (error as Error).message });
      }
    },
  };
}
