/**
 * What tests and benches change about a local execution so that it runs in milliseconds or fails
 * on purpose. `run` and `serve` never pass any: their builds keep the definition's schedule and
 * each function's deployed limits. Everything an override changes is decided here.
 */
import { taskStates, type AslDefinition } from '../../workflow/definition.js';

export interface ExecutionOverrides {
  /** Wait this many ms in the definition's Wait states (the step loops) instead of the scheduled seconds. */
  waitMs?: number;
  /** Pause this many ms between retries instead of the definition's intervals. */
  retryMs?: number;
  /**
   * The Error (e.g. `Lambda.Unknown`) an invocation of this Task state ends with after its handler
   * answered, as Step Functions reports an invocation whose answer was lost: the work done, the
   * answer gone. Undefined: the invocation answers.
   */
  invocationFailure?: (state: string) => string | undefined;
  /** By Task state: the timeout (ms) of its invocations instead of its function's deployed one. */
  invocationTimeoutMs?: Readonly<Record<string, number>>;
}

/** What the overrides change about one invocation of a Task state (lambda-binding.ts). */
export interface InvocationOverrides {
  timeoutMs(state: string): number | undefined;
  /** Asked once the handler has answered. */
  failureAfterAnswer(state: string): string | undefined;
}

/** aws-local-stepfunctions' own overrides (its RunOptions), in milliseconds. */
export interface MachineOverrides {
  waitTimeOverrides?: Record<string, number>;
  retryIntervalOverrides?: Record<string, number>;
}

export const NO_INVOCATION_OVERRIDES: InvocationOverrides = { timeoutMs: () => undefined, failureAfterAnswer: () => undefined };

export function applyOverrides(overrides: ExecutionOverrides | undefined, definition: AslDefinition): { machine: MachineOverrides; invocations: InvocationOverrides } {
  if (!overrides) return { machine: {}, invocations: NO_INVOCATION_OVERRIDES };
  const { waitMs, retryMs, invocationFailure, invocationTimeoutMs } = overrides;
  const every = (names: string[], ms: number) => Object.fromEntries(names.map((name) => [name, ms]));
  return {
    machine: {
      ...(waitMs !== undefined ? { waitTimeOverrides: every(waitStates(definition), waitMs) } : {}),
      ...(retryMs !== undefined ? { retryIntervalOverrides: every(taskStates(definition).map((task) => task.state), retryMs) } : {}),
    },
    invocations: {
      timeoutMs: (state) => invocationTimeoutMs?.[state],
      failureAfterAnswer: (state) => invocationFailure?.(state),
    },
  };
}

/** Every Wait state, nested ones included (state names are unique in a definition). */
function waitStates(machine: AslDefinition): string[] {
  return Object.entries(machine.States).flatMap(([name, state]) => [
    ...(state.Type === 'Wait' ? [name] : []),
    ...(state.ItemProcessor ? waitStates(state.ItemProcessor) : []),
  ]);
}
