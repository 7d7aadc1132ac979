/**
 * A Task state's timeout as Step Functions has it. aws-local-stepfunctions gives a Task without
 * TimeoutSeconds (or TimeoutSecondsPath) 60 s (TaskStateAction's DEFAULT_TIMEOUT_SECONDS, the
 * States Language specification's default) and fails it with States.Timeout past them; Step
 * Functions gives it none: "By default, the Amazon States Language doesn't specify timeouts ...
 * If ... the TimeoutSeconds field isn't specified for an Activity or Task state, an execution is
 * stuck waiting for a response that will never come"
 * (https://docs.aws.amazon.com/step-functions/latest/dg/sfn-stuck-execution.html). A Lambda
 * task is bounded by its function's timeout instead (lambda-binding.ts cuts it there).
 */
import type { AslDefinition } from '../../workflow/definition.js';

/**
 * Longer than any execution of the definition lasts (its own TimeoutSeconds), so never reached,
 * and within what a Node timer holds (2^31 - 1 ms: a longer one fires at once).
 */
function unreachedSeconds(definition: AslDefinition): number {
  const timerMax = Math.floor((2 ** 31 - 1) / 1000);
  const execution = (definition as { TimeoutSeconds?: number }).TimeoutSeconds;
  return execution !== undefined ? Math.min(execution + 1, timerMax) : timerMax;
}

/** The definition with each Task state that names no timeout given one it never reaches, nested ones included. */
export function withServiceTaskTimeouts(definition: AslDefinition): AslDefinition {
  const seconds = unreachedSeconds(definition);
  const copy = structuredClone(definition);
  const visit = (machine: AslDefinition) => {
    for (const state of Object.values(machine.States)) {
      const task = state as { Type: string; TimeoutSeconds?: number; TimeoutSecondsPath?: string };
      if (task.Type === 'Task' && task.TimeoutSeconds === undefined && task.TimeoutSecondsPath === undefined) task.TimeoutSeconds = seconds;
      if (state.ItemProcessor) visit(state.ItemProcessor);
    }
  };
  visit(copy);
  return copy;
}
