import type { ExecutionEvent } from './execution-history.js';
import type { TaskInvocation } from './lambda-binding.js';

/**
 * Step Functions' history of a Lambda Task has LambdaFunctionSucceeded (or LambdaFunctionFailed,
 * LambdaFunctionTimedOut) after each invocation, before the state is exited
 * (docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html); the local history
 * has them too, with what the invocation was billed for: the function's memory and its duration
 * rounded up to the millisecond, as Lambda bills it (aws.amazon.com/lambda/pricing). A callback
 * Task's wait for its token is not the function's time, and is not in it.
 */
export const LambdaEventTypes = { succeeded: 'LambdaFunctionSucceeded', failed: 'LambdaFunctionFailed', timedOut: 'LambdaFunctionTimedOut' } as const;

const TIMED_OUT = 'Sandbox.Timedout';

/** `invoke`, timed: each invocation's event goes to `record` when it has answered or thrown. */
export function timedInvocation(
  invoke: TaskInvocation,
  fn: { name: string; memoryMb: number },
  at: { state: string; index: number | undefined },
  record: (event: ExecutionEvent) => void,
): TaskInvocation {
  return async (event) => {
    const started = performance.now();
    let type: string = LambdaEventTypes.failed;
    try {
      const output = await invoke(event);
      type = LambdaEventTypes.succeeded;
      return output;
    } catch (error) {
      if ((error as Error).name === TIMED_OUT) type = LambdaEventTypes.timedOut;
      throw error;
    } finally {
      record({
        type,
        timestamp: Date.now(),
        state: { name: at.state, type: 'Task' },
        ...(at.index !== undefined ? { index: at.index } : {}),
        lambda: { function: fn.name, memoryMb: fn.memoryMb, billedMs: Math.ceil(performance.now() - started) },
      });
    }
  };
}
