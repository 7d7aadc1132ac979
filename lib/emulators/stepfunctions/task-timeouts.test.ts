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

  const fromPath = new Set(['AwaitApproval']);

  test.each(Object.keys(given).filter((state) => !fromPath.has(state)))('%s: its own TimeoutSeconds, else one past the execution’s limit (none, in effect)', (state) => {
    expect(run[state]).toBe(given[state] ?? (definition.TimeoutSeconds as number) + 1);
  });

  test('a Task with TimeoutSecondsPath keeps it', () => {
    expect(definition.States.RunSteps?.ItemProcessor?.States.AwaitApproval).toMatchObject({ TimeoutSecondsPath: '$.step.approval.timeoutSeconds' });
    expect(run['AwaitApproval']).toBeUndefined();
  });

  test('the definition read is left as it is', () => {
    expect(taskTimeouts(definition)).toEqual(given);
    expect(Object.values(given)).toContain(undefined);
  });
});
