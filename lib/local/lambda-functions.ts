import type { Context } from 'aws-lambda';
import {
  cleanupBuildHandler,
  finishStepHandler,
  launchStepHandler,
  pollStepHandler,
  prepareBuildHandler,
  reportStatusHandler,
} from '../workflow/handlers.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import type { StatusReporter } from '../workflow/tasks/report-status.js';

export type LambdaHandler = (event: never, context: Context) => Promise<unknown>;

type Create = (runtime: TaskRuntime, statuses: StatusReporter) => unknown;

/**
 * The Lambda functions the definition calls, by CloudFormation logical id (what its `Fn::GetAtt`
 * names): the serverless.yml name, and the same factory functions/ builds the deployed handler with.
 */
const FUNCTIONS: Record<string, { name: string; create: Create }> = {
  PrepareBuildLambdaFunction: { name: 'prepareBuild', create: (runtime) => prepareBuildHandler(runtime) },
  LaunchStepLambdaFunction: { name: 'launchStep', create: (runtime) => launchStepHandler(runtime) },
  PollStepLambdaFunction: { name: 'pollStep', create: pollStepHandler },
  FinishStepLambdaFunction: { name: 'finishStep', create: finishStepHandler },
  CleanupBuildLambdaFunction: { name: 'cleanupBuild', create: cleanupBuildHandler },
  ReportStatusLambdaFunction: { name: 'reportStatus', create: (_, statuses) => reportStatusHandler(() => statuses) },
};

/** serverless.yml's function name for each logical id the local executor can bind. */
export const lambdaFunctionNames: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(FUNCTIONS).map(([id, fn]) => [id, fn.name]),
);

/** The handlers over the local runtime, so the local executor runs the very code that is deployed. */
export function localLambdaFunctions(runtime: TaskRuntime, statuses: StatusReporter): Record<string, { name: string; handler: LambdaHandler }> {
  return Object.fromEntries(
    Object.entries(FUNCTIONS).map(([id, fn]) => [id, { name: fn.name, handler: fn.create(runtime, statuses) as LambdaHandler }]),
  );
}
