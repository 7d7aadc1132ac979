/**
 * The callback pattern (`arn:aws:states:::lambda:invoke.waitForTaskToken`) in the local executor.
 * aws-local-stepfunctions has none: its Task state calls a handler and takes its answer. What Step
 * Functions does instead ("Wait for a Callback with Task Token",
 * https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token,
 * and "Invoke an AWS Lambda function with Step Functions",
 * https://docs.aws.amazon.com/step-functions/latest/dg/connect-lambda.html):
 * - the state's Parameters are evaluated, `$$.Task.Token` among them: a token of this task's own,
 *   new each time the state is entered (task-tokens.ts);
 * - the function named by Parameters.FunctionName is invoked with Parameters.Payload as its event;
 *   an invocation that fails fails the task (and its Retry applies), its answer is otherwise unused;
 * - the task then waits: SendTaskSuccess's output is its result, SendTaskFailure's error and cause
 *   its Error and Cause; past TimeoutSeconds (TimeoutSecondsPath) it fails with States.Timeout,
 *   which covers the invocation as well as the wait.
 * HeartbeatSeconds (SendTaskHeartbeat) is not emulated: a definition that sets it is refused.
 *
 * aws-local-stepfunctions evaluates Parameters itself but has no `$$.Task` in its context object,
 * so the definition it runs has the token's place marked (TOKEN_MARK), filled in here; the timeout
 * and the state's own input reach this module as two more Parameters it takes off again, and the
 * state's timeout is left to task-timeouts.ts (never reached), this module keeping the real one.
 */
import { LAMBDA_WAIT_FOR_TASK_TOKEN, type AslDefinition } from '../../workflow/definition.js';
import type { TaskInvocation } from './lambda-binding.js';
import type { TaskTokens } from './task-tokens.js';

const TOKEN_MARK = '$$.Task.Token (local executor: filled in when the task starts)';
const TIMEOUT_KEY = 'local-executor:timeout-seconds';
const INPUT_KEY = 'local-executor:state-input';

/** Refused: a field of the callback pattern this executor does not emulate. */
export class CallbackNotEmulated extends Error {
  override readonly name = 'CallbackNotEmulated';
}

/** The task's execution ended while it waited (stopped, say): nothing reads its outcome. */
class ExecutionEnded extends Error {
  override readonly name = 'ExecutionEnded';
}

/** States.Timeout, as Step Functions fails a task whose TimeoutSeconds have passed. */
class StatesTimeout extends Error {
  override readonly name = 'States.Timeout';
}

/** The definition as aws-local-stepfunctions runs it: each callback Task's token, timeout and input carried in its Parameters. */
export function withLocalCallbacks(definition: AslDefinition): AslDefinition {
  const copy = structuredClone(definition);
  const visit = (machine: AslDefinition) => {
    for (const [name, state] of Object.entries(machine.States)) {
      if (state.ItemProcessor) visit(state.ItemProcessor);
      if (state.Type !== 'Task' || state.Resource !== LAMBDA_WAIT_FOR_TASK_TOKEN) continue;
      if (state.HeartbeatSeconds !== undefined || state.HeartbeatSecondsPath !== undefined) {
        throw new CallbackNotEmulated(`Task state ${name}: HeartbeatSeconds is not emulated by the local executor`);
      }
      const parameters = markToken(state.Parameters) as Record<string, unknown>;
      const timeout = state.TimeoutSecondsPath !== undefined ? { [`${TIMEOUT_KEY}.$`]: state.TimeoutSecondsPath } : state.TimeoutSeconds !== undefined ? { [TIMEOUT_KEY]: state.TimeoutSeconds } : {};
      state.Parameters = { ...parameters, ...timeout, [`${INPUT_KEY}.$`]: '$' };
      delete state.TimeoutSeconds;
      delete state.TimeoutSecondsPath;
    }
  };
  visit(copy);
  return copy;
}

/** `key.$: $$.Task.Token` anywhere in the Parameters becomes `key: TOKEN_MARK`. */
function markToken(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(markToken);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => (key.endsWith('.$') && inner === '$$.Task.Token' ? [key.slice(0, -2), TOKEN_MARK] : [key, markToken(inner)])),
  );
}

function fillToken(value: unknown, token: string): unknown {
  if (value === TOKEN_MARK) return token;
  if (Array.isArray(value)) return value.map((inner) => fillToken(inner, token));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fillToken(inner, token)]));
}

/** What aws-local-stepfunctions hands a callback Task's handler: the state's own input, and the task to run. */
export function callbackTaskCall(parameters: unknown): { stateInput: unknown; run: (invoke: TaskInvocation, tokens: TaskTokens, executionArn: string) => Promise<unknown> } {
  const { [TIMEOUT_KEY]: timeoutSeconds, [INPUT_KEY]: stateInput, ...given } = parameters as Record<string, unknown>;
  return {
    stateInput,
    run: (invoke, tokens, executionArn) => waitForTaskToken(given, typeof timeoutSeconds === 'number' ? timeoutSeconds : undefined, invoke, tokens, executionArn),
  };
}

async function waitForTaskToken(parameters: Record<string, unknown>, timeoutSeconds: number | undefined, invoke: TaskInvocation, tokens: TaskTokens, executionArn: string): Promise<unknown> {
  const { token, outcome } = tokens.issue(executionArn);
  const { Payload: payload } = fillToken(parameters, token) as { Payload?: unknown };
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    if (timeoutSeconds === undefined) return;
    timer = setTimeout(() => reject(new StatesTimeout('')), timeoutSeconds * 1000);
  });
  try {
    // The function's answer is not the task's result; only its failure counts.
    await Promise.race([invoke(payload), timedOut]);
    const ended = await Promise.race([outcome, timedOut]);
    if ('output' in ended) return ended.output;
    if ('closed' in ended) throw new ExecutionEnded('the execution ended while the task waited');
    const failure = new Error(ended.cause);
    failure.name = ended.error;
    throw failure;
  } finally {
    clearTimeout(timer);
    // Answered, timed out, or failed to invoke: the token answers nothing any more.
    tokens.expire(token);
    timedOut.catch(() => undefined);
  }
}
