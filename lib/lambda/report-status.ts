import type { WaitingStepReport } from '../contract/index.js';
import { reportStatusHandler } from '../workflow/handlers.js';
import { logger } from '../workflow/lambda-task.js';
import { lambdaBuildTraces } from './build-traces.js';
import type { LambdaGitHubAppOptions } from './github-app.js';
import { s3LogStore } from './s3-log-store.js';
import { deploymentPrices, EnvNames } from './settings.js';
import { gitHubStatusReporting } from './status-reporting.js';
import { emfMetricsSink } from './emf-metrics.js';
import { sfnExecutionCostReader, type ExecutionCostReader } from './execution-cost-reader.js';
import type { FunctionSizes } from '../workflow/history-usage.js';

/**
 * ReportStarted / ReportSucceeded / ReportFailed on AWS: commit statuses (status-reporting.ts), and
 * the build's trace once it ends when the deployment names an OTLP endpoint (build-traces.ts). The
 * App or the token is required at start: without either no status could ever be posted, and a
 * build would look "pending" on GitHub forever. `app` is for tests.
 */
export function createReportStatusHandler(env: NodeJS.ProcessEnv = process.env, app: LambdaGitHubAppOptions = {}) {
  const { reporterFor, middleware } = gitHubStatusReporting(env, app, true);
  // A check run's summary reads how each step ended from where FinishStep kept it, beside its log.
  const bucket = env[EnvNames.logsBucket];
  // ReportSucceeded and ReportFailed end the build: its cost, its metric record and its trace are worked out and sent there.
  const cost = costReader(env);
  const waitingApprovals = historyApprovals();
  const handler = reportStatusHandler((context) => ({ ...reporterFor(context), waitingApprovals }), bucket ? s3LogStore(bucket, env[EnvNames.logsPrefix] ?? '') : undefined, { ...(cost ? { cost } : {}), metrics: emfMetricsSink(env), exportTrace: lambdaBuildTraces(env) });
  if (middleware) handler.use(middleware);
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

/**
 * A progress report's waiting approvals (a build with approval steps only), for its check run's
 * buttons: its execution's history, which the role may read already for the cost. The SDK is
 * loaded on first use, as the cost reader loads it.
 */
function historyApprovals(): (executionArn: string) => Promise<WaitingStepReport[]> {
  let read: ((executionArn: string) => Promise<WaitingStepReport[]>) | undefined;
  return async (executionArn) => {
    if (!read) {
      const [{ SFNClient }, { stepFunctionsWaitingApprovals }] = await Promise.all([import('@aws-sdk/client-sfn'), import('./approval-desk.js')]);
      read = stepFunctionsWaitingApprovals(new SFNClient({}));
    }
    return read(executionArn);
  };
}

/**
 * The build's cost at its end, from the functions' sizes and the prices the deployment sets; none
 * (the report goes without its cost line, and says why in the log) when they are missing or wrong.
 */
function costReader(env: NodeJS.ProcessEnv): ExecutionCostReader | undefined {
  try {
    const text = env[EnvNames.costFunctions];
    if (!text) return undefined;
    const sizes = JSON.parse(text) as FunctionSizes;
    return sfnExecutionCostReader(sizes, deploymentPrices(env));
  } catch (error) {
    logger.warn("No build's cost is reported: the deployment's COST_FUNCTIONS or COST_PRICES is wrong", { reason: (error as Error).message });
    return undefined;
  }
}
