import middy from '@middy/core';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import type { BuildRef } from '../contract/index.js';

export const logger = new Logger({ serviceName: 'serverless-step-runner' });

/**
 * Wraps a task in the Lambda plumbing every task shares: Powertools context in each log line, and
 * the build and step as keys, so one build's lines can be found across all its invocations.
 * Errors are not caught: the error's name is the Error Step Functions sees.
 */
// A scheduled execution's input names no build id yet (DeferredLookup.commit): PrepareBuild derives it.
export function lambdaTask<In extends { build?: Pick<BuildRef, 'trigger'> & { id?: string | undefined }; step?: { name: string } }, Out>(
  task: (input: In, context: Context) => Promise<Out>,
) {
  return middy<In, Out>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({
      before: function appendBuildKeys(request) {
        const { build, step } = request.event ?? {};
        logger.appendKeys({ build: build?.id, step: step?.name });
      },
    })
    .handler(task);
}

/** An EventBridge target: the Powertools context in each line, and no build keys to append. */
export function lambdaEventHandler<In, Out>(handle: (event: In, context: Context) => Promise<Out>) {
  return middy<In, Out>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(handle);
}
