/**
 * Each Task state bound by its Lambda's logical id to the handler that function deploys, and
 * invoked as Lambda invokes it: a context of its own (the function's deployed memory and timeout),
 * cut at the timeout, and its errors handed to Step Functions under the names Lambda gives them.
 */
import { taskStates, type AslDefinition } from '../../workflow/definition.js';
import { inInvocationContext } from '../lambda/invocation-context.js';
import { localLambdaContext } from '../lambda/lambda-context.js';
import type { LambdaHandler } from '../lambda/lambda-functions.js';
import type { InvocationOverrides } from './overrides.js';

export type TaskInvocation = (event: unknown) => Promise<unknown>;

/**
 * A task's error as Lambda hands it to Step Functions: the Error is the error's name, and the Cause
 * the runtime's JSON payload, so what the definition does with it locally is what it does on AWS.
 */
class LambdaFunctionError extends Error {
  constructor(thrown: unknown) {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    super(JSON.stringify({ errorType: error.name, errorMessage: error.message, trace: (error.stack ?? '').split('\n') }));
    this.name = error.name;
  }
}

/**
 * An invocation Lambda cut at the function's timeout, as Step Functions reports it: the Error
 * `Sandbox.Timedout`, the Cause the payload Lambda answers with in place of the handler's.
 */
export class LambdaTimedOut extends Error {
  static readonly ERROR = 'Sandbox.Timedout';

  constructor(requestId: string, timeoutMs: number) {
    super(JSON.stringify({ errorMessage: `RequestId: ${requestId} Error: Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`, errorType: LambdaTimedOut.ERROR }));
    this.name = LambdaTimedOut.ERROR;
  }
}

/** An invocation whose answer was lost, under the name Step Functions gives it (overrides only). */
class LambdaInvocationFailure extends Error {
  constructor(errorName: string) {
    super(`${errorName}: the invocation did not complete (injected)`);
    this.name = errorName;
  }
}

/** Every Task state's invocation, by state name. */
export function bindTaskStates(
  definition: AslDefinition,
  functions: Readonly<Record<string, { name: string; timeoutSeconds: number; handler: LambdaHandler }>>,
  overrides: InvocationOverrides,
): Record<string, TaskInvocation> {
  const bound: Record<string, TaskInvocation> = {};
  for (const { state, functionId } of taskStates(definition)) {
    const fn = functions[functionId];
    if (!fn) throw new Error(`Task state ${state} calls ${functionId}, which serverless.yml does not define`);
    bound[state] = async (event) => {
      const timeoutMs = overrides.timeoutMs(state) ?? fn.timeoutSeconds * 1000;
      const context = localLambdaContext(fn.name, timeoutMs);
      const handler = overrides.scripted(state) ?? fn.handler;
      const answer = inInvocationContext(context.awsRequestId, () => handler(event as never, context)).catch((error: unknown) => {
        throw new LambdaFunctionError(error);
      });
      const output = await cutAt(timeoutMs, answer, () => context.getRemainingTimeInMillis() === 0, () => new LambdaTimedOut(context.awsRequestId, timeoutMs));
      const failure = overrides.failureAfterAnswer(state);
      if (failure) throw new LambdaInvocationFailure(failure);
      return output;
    };
  }
  return bound;
}

/**
 * The answer, unless the time is up first. Lambda ends the sandbox at the deadline, so an answer
 * given after it (the event loop was busy until then, and the handler's own early timeout, middy's
 * TimeoutError, came too late) is no answer either. A handler cannot be stopped inside this
 * process: past the cut it runs on, and what it answers or throws is discarded.
 */
async function cutAt<T>(timeoutMs: number, answer: Promise<T>, pastDeadline: () => boolean, timedOut: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), timeoutMs);
  });
  const late = answer.then(
    (output) => {
      if (pastDeadline()) throw timedOut();
      return output;
    },
    (error: unknown) => {
      throw pastDeadline() ? timedOut() : error;
    },
  );
  try {
    return await Promise.race([late, cut]);
  } finally {
    clearTimeout(timer);
    late.catch(() => undefined);
  }
}
