import type { Context } from 'aws-lambda';
import {
  awaitApprovalHandler,
  approvalWaitsHandler,
  awaitRerunHandler,
  cleanupBuildHandler,
  finishStepHandler,
  launchStepHandler,
  pollStepHandler,
  waitForNeedsHandler,
  prepareBuildHandler,
  reportStatusHandler,
} from '../../workflow/handlers.js';
import type { TaskRuntime } from '../../workflow/task-deps.js';
import type { StatusReporter } from '../../workflow/tasks/report-status.js';
import { deployedFunction } from './deployed-functions.js';

export type LambdaHandler = (event: never, context: Context) => Promise<unknown>;

type Create = (runtime: TaskRuntime, statuses: StatusReporter) => unknown;

interface LocalFunction {
  /** serverless.yml's name for it, which its memory and timeout are read by. */
  name: string;
  create: Create;
}

/**
 * The Lambda functions the definition calls, by CloudFormation logical id (what its `Fn::GetAtt`
 * names): the serverless.yml name, and the same factory functions/ builds the deployed handler with.
 */
const FUNCTIONS: Record<string, LocalFunction> = {
  PrepareBuildLambdaFunction: { name: 'prepareBuild', create: (runtime) => prepareBuildHandler(runtime) },
  LaunchStepLambdaFunction: { name: 'launchStep', create: (runtime) => launchStepHandler(runtime) },
  PollStepLambdaFunction: { name: 'pollStep', create: pollStepHandler },
  WaitForNeedsLambdaFunction: { name: 'waitForNeeds', create: waitForNeedsHandler },
  FinishStepLambdaFunction: { name: 'finishStep', create: finishStepHandler },
  CleanupBuildLambdaFunction: { name: 'cleanupBuild', create: cleanupBuildHandler },
  ReportStatusLambdaFunction: { name: 'reportStatus', create: (runtime, statuses) => reportStatusHandler(() => statuses, runtime.deps.logs, runtime.deps.exportTrace ? { exportTrace: runtime.deps.exportTrace } : {}) },
  AwaitRerunLambdaFunction: { name: 'awaitRerun', create: () => awaitRerunHandler() },
  AwaitApprovalLambdaFunction: { name: 'awaitApproval', create: (runtime) => awaitApprovalHandler(runtime) },
  ApprovalWaitsLambdaFunction: { name: 'approvalWaits', create: (runtime) => approvalWaitsHandler(runtime) },
};

/** serverless.yml's function name for each logical id the local executor can bind. */
export const lambdaFunctionNames: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(FUNCTIONS).map(([id, fn]) => [id, fn.name]),
);

/** serverless.yml's timeout for each function the local executor can bind, by name. */
export const lambdaFunctionTimeouts: Readonly<Record<string, number>> = Object.fromEntries(
  Object.values(FUNCTIONS).map((fn) => [fn.name, deployedFunction(fn.name).timeoutSeconds]),
);

/** The handlers over the local runtime, so the local executor runs the very code that is deployed. */
export function localLambdaFunctions(
  runtime: TaskRuntime,
  statuses: StatusReporter,
): Record<string, { name: string; timeoutSeconds: number; handler: LambdaHandler }> {
  return Object.fromEntries(
    Object.entries(FUNCTIONS).map(([id, fn]) => [
      id,
      { name: fn.name, timeoutSeconds: deployedFunction(fn.name).timeoutSeconds, handler: fn.create(runtime, statuses) as LambdaHandler },
    ]),
  );
}
