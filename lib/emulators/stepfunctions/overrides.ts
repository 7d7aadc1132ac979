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
  /**
   * Every Task invocation answered, in the order they come, by the next entry of this script
   * instead of by its function's handler (test/definition-moto.integration.test.ts runs the same
   * script through moto's interpreter). An invocation of another state than its entry names, or
   * past the script's end, throws ScriptedTaskMismatch.
   */
  scriptedTasks?: readonly ScriptedTask[];
  /**
   * The definition's top-level TimeoutSeconds (the execution's time limit, 8 days) instead: a
   * build that times out in seconds, through the same ExecutionTimeout aws-local-stepfunctions
   * fires at the definition's own limit and the same cleanup after it.
   */
  executionTimeoutSeconds?: number;
}

/**
 * One answer of a script: what the function returns, or the error it throws (its `name` the
 * Error Step Functions sees, as for any handler's error: lambda-binding.ts).
 */
export type ScriptedTask = { state: string; result: unknown } | { state: string; error: { name: string; message: string } };

/** An invocation the script did not expect: the test's script and the path taken part ways. */
export class ScriptedTaskMismatch extends Error {
  override readonly name = 'ScriptedTaskMismatch';
}

/** What the overrides change about one invocation of a Task state (lambda-binding.ts). */
export interface InvocationOverrides {
  timeoutMs(state: string): number | undefined;
  /** Asked once the handler has answered. */
  failureAfterAnswer(state: string): string | undefined;
  /** The scripted answer of this invocation (scriptedTasks), in place of the handler's; undefined: the handler answers. */
  scripted(state: string): (() => Promise<unknown>) | undefined;
}

/** aws-local-stepfunctions' own overrides (its RunOptions), in milliseconds. */
export interface MachineOverrides {
  waitTimeOverrides?: Record<string, number>;
  retryIntervalOverrides?: Record<string, number>;
}

export const NO_INVOCATION_OVERRIDES: InvocationOverrides = { timeoutMs: () => undefined, failureAfterAnswer: () => undefined, scripted: () => undefined };

export interface AppliedOverrides {
  /** The definition the execution runs: the one given, or a copy with the overridden time limit. */
  definition: AslDefinition;
  machine: MachineOverrides;
  invocations: InvocationOverrides;
}

export function applyOverrides(overrides: ExecutionOverrides | undefined, definition: AslDefinition): AppliedOverrides {
  if (!overrides) return { definition, machine: {}, invocations: NO_INVOCATION_OVERRIDES };
  const { waitMs, retryMs, invocationFailure, invocationTimeoutMs, scriptedTasks, executionTimeoutSeconds } = overrides;
  const script = scriptedTasks && scriptedAnswers(scriptedTasks);
  const every = (names: string[], ms: number) => Object.fromEntries(names.map((name) => [name, ms]));
  return {
    definition: executionTimeoutSeconds !== undefined ? { ...definition, TimeoutSeconds: executionTimeoutSeconds } : definition,
    machine: {
      ...(waitMs !== undefined ? { waitTimeOverrides: every(waitStates(definition), waitMs) } : {}),
      ...(retryMs !== undefined ? { retryIntervalOverrides: every(taskStates(definition).map((task) => task.state), retryMs) } : {}),
    },
    invocations: {
      timeoutMs: (state) => invocationTimeoutMs?.[state],
      failureAfterAnswer: (state) => invocationFailure?.(state),
      scripted: (state) => script && (async () => script(state)),
    },
  };
}

/** Each invocation takes the script's next entry, which must be scripted for its state. */
function scriptedAnswers(script: readonly ScriptedTask[]): (state: string) => unknown {
  let next = 0;
  return (state) => {
    const entry = script[next];
    if (!entry) throw new ScriptedTaskMismatch(`invocation ${next + 1} (${state}) comes after the script's ${script.length} answers`);
    if (entry.state !== state) throw new ScriptedTaskMismatch(`invocation ${next + 1} is of ${state}; the script answers ${entry.state}`);
    next++;
    if ('result' in entry) return structuredClone(entry.result);
    const error = new Error(entry.error.message);
    error.name = entry.error.name;
    // The trace Lambda hands on in the Cause (lambda-binding.ts): only its first line, which a
    // second interpreter given the same script can write too.
    error.stack = `${entry.error.name}: ${entry.error.message}`;
    throw error;
  };
}

/** Every Wait state, nested ones included (state names are unique in a definition). */
function waitStates(machine: AslDefinition): string[] {
  return Object.entries(machine.States).flatMap(([name, state]) => [
    ...(state.Type === 'Wait' ? [name] : []),
    ...(state.ItemProcessor ? waitStates(state.ItemProcessor) : []),
  ]);
}
