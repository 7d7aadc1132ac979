import { loadDefinition } from '../../workflow/definition.js';
import { applyOverrides, ScriptedTaskMismatch, type ScriptedTask } from './overrides.js';

const DEFINITION = loadDefinition();

/** Each invocation of `states`, answered by the overrides made of `script`: what it returned or threw. */
async function invoke(script: ScriptedTask[], states: string[]): Promise<unknown[]> {
  const { invocations } = applyOverrides({ scriptedTasks: script }, DEFINITION);
  const seen: unknown[] = [];
  for (const state of states) {
    try {
      seen.push(await invocations.scripted(state)!());
    } catch (error) {
      seen.push(error);
    }
  }
  return seen;
}

describe('a script of Task answers (scriptedTasks)', () => {
  it('answers the invocations in order, each with a copy of its result', async () => {
    const result = { phase: 'running' };
    const [first, second] = await invoke(
      [
        { state: 'PollStep', result },
        { state: 'PollStep', result: { phase: 'succeeded' } },
      ],
      ['PollStep', 'PollStep'],
    );
    expect([first, second]).toEqual([{ phase: 'running' }, { phase: 'succeeded' }]);
    expect(first).not.toBe(result);
  });

  it('throws the scripted error under its name, its stack the one line a second interpreter can write too', async () => {
    const [thrown] = await invoke([{ state: 'LaunchStep', error: { name: 'PodConfigError', message: 'refused' } }], ['LaunchStep']);
    expect(thrown).toMatchObject({ name: 'PodConfigError', message: 'refused', stack: 'PodConfigError: refused' });
  });

  it.each([
    { case: 'an invocation of another state', states: ['FinishStep'], says: 'invocation 1 is of FinishStep; the script answers PollStep' },
    { case: 'an invocation past its end', states: ['PollStep', 'PollStep'], says: "invocation 2 (PollStep) comes after the script's 1 answers" },
  ])('refuses $case, saying which', async ({ states, says }) => {
    const seen = await invoke([{ state: 'PollStep', result: {} }], states);
    expect(seen.at(-1)).toBeInstanceOf(ScriptedTaskMismatch);
    expect((seen.at(-1) as Error).message).toBe(says);
  });

  it('leaves every handler in place without a script', () => {
    const { invocations } = applyOverrides({ waitMs: 0 }, DEFINITION);
    expect(invocations.scripted('PollStep')).toBeUndefined();
  });
});
