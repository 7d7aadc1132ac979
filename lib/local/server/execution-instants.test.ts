import { ConsoleOutput } from '../console-output.js';
import { executionInstants } from '../../emulators/stepfunctions/execution-instants.js';
import { LocalExecutions } from './executions.js';
import { summarize, type ExecutionEvent } from '../../emulators/stepfunctions/executor.js';

/** A build's history: the machine reports its start after the registry registered it, and its end before the summary is ready. */
const started = Date.parse('2026-01-05T10:00:01.000Z');
const history: ExecutionEvent[] = [
  { type: 'ExecutionStarted', timestamp: started },
  { type: 'StateEntered', timestamp: started + 5, state: { name: 'PrepareBuild', type: 'Task' } },
  { type: 'ExecutionSucceeded', timestamp: started + 8_800 },
];

describe("an execution's duration", () => {
  it('is the same in the console lines and in GET /executions, both from the history', async () => {
    // The registry's own clock, read when the build is registered and when its summary is ready.
    const clock = [new Date('2026-01-05T10:00:00.600Z'), new Date('2026-01-05T10:00:10.100Z')];
    const executions = new LocalExecutions({
      run: (_name, _input, onEvent) => ({
        result: Promise.resolve().then(() => (history.forEach(onEvent), summarize(history, false))),
        abort: () => {},
        refused: [],
      }),
      consoleUrl: (name) => `/executions/${name}`,
      now: () => clock.shift() ?? new Date(0),
    });
    await executions.start('b', { build: { id: 'b1', trigger: 'generic' }, pipeline: { file: 'p', text: '' } });
    await executions.stopAll();
    const listed = executions.get('b')!;

    expect({ startedAt: listed.startedAt, stoppedAt: listed.stoppedAt }).toEqual({ startedAt: '2026-01-05T10:00:01.000Z', stoppedAt: '2026-01-05T10:00:09.800Z' });
    const console = new ConsoleOutput('b');
    expect(history.flatMap((event) => console.lines(event)).at(-1)).toBe(
      `Execution SUCCEEDED in ${((Date.parse(listed.stoppedAt!) - Date.parse(listed.startedAt)) / 1000).toFixed(1)}s`,
    );
  });

  it('has no stoppedAt while the history has not ended', () => {
    expect(executionInstants(history.slice(0, 2))).toEqual({ startedAt: new Date(started), stoppedAt: undefined });
    expect(executionInstants([])).toEqual({ startedAt: undefined, stoppedAt: undefined });
  });
});
