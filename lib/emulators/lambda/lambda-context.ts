import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { deployedFunction } from './deployed-functions.js';

/**
 * What a handler can see of its invocation, without AWS: the name, a request id, the function's
 * deployed memory, and a deadline its deployed timeout away (`timeoutMs` instead: tests only,
 * through the executor's overrides).
 */
export function localLambdaContext(functionName: string, timeoutMs?: number): Context {
  const deployed = deployedFunction(functionName);
  const deadline = Date.now() + (timeoutMs ?? deployed.timeoutSeconds * 1000);
  const fail = () => {
    throw new Error('Lambda callbacks are not used by these handlers');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(deployed.memorySize),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: fail,
    fail,
    succeed: fail,
  };
}
