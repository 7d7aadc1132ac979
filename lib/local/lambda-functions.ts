import { handler as prepareBuild } from '../../functions/prepare-build.js';
import { handler as launchStep } from '../../functions/launch-step.js';
import { handler as pollStep } from '../../functions/poll-step.js';
import { handler as finishStep } from '../../functions/finish-step.js';
import { handler as cleanupBuild } from '../../functions/cleanup-build.js';
import { handler as reportStatus } from '../../functions/report-status.js';
import type { Context } from 'aws-lambda';

export type LambdaHandler = (event: never, context: Context) => Promise<unknown>;

/**
 * The Lambda functions of serverless.yml by their CloudFormation logical id (what the definition's
 * `Fn::GetAtt` names), so the local executor calls the very handlers that are deployed.
 */
export const lambdaFunctions: Record<string, { name: string; handler: LambdaHandler }> = {
  PrepareBuildLambdaFunction: { name: 'prepareBuild', handler: prepareBuild as LambdaHandler },
  LaunchStepLambdaFunction: { name: 'launchStep', handler: launchStep as LambdaHandler },
  PollStepLambdaFunction: { name: 'pollStep', handler: pollStep as LambdaHandler },
  FinishStepLambdaFunction: { name: 'finishStep', handler: finishStep as LambdaHandler },
  CleanupBuildLambdaFunction: { name: 'cleanupBuild', handler: cleanupBuild as LambdaHandler },
  ReportStatusLambdaFunction: { name: 'reportStatus', handler: reportStatus as LambdaHandler },
};
