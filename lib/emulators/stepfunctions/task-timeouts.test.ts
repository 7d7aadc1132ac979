import { loadDefinition, type AslDefinition } from '../../workflow/definition.js';
import { withServiceTaskTimeouts } from './task-timeouts.js';

function taskTimeouts(machine: AslDefinition): Record<string, number | undefined> {
  return Object.fromEntries(
    Object.entries(machine.States).flatMap(([name, state]) => [
      ...(state.Type === 'Task' ? [[name, (state as { TimeoutSeconds?: number }).TimeoutSeconds]] : []),
      ...(state.ItemProcessor ? Object.entries(taskTimeouts(state.ItemProcessor)) : []),
    ]),
  );
}

describe('Task timeouts as Step Functions has them', () => {
  const definition = loadDefinition();
  const given = taskTimeouts(definition);
  const run = taskTimeouts(withServiceTaskTimeouts(definition));

  test.each(Object.keys(given))('%s: its own TimeoutSeconds, else one past the execution’s 24 h (none, in effect)', (state) => {
    expect(run[state]).toBe(given[state] ?? 86_401);
  });

  test('the definition read is left as it is', () => {
    expect(taskTimeouts(definition)).toEqual(given);
    expect(Object.values(given)).toContain(undefined);
  });
});
