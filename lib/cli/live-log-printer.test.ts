import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionEvent } from '../emulators/stepfunctions/execution-history.js';
import { LiveLogPrinter } from './live-log-printer.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'live-log-printer-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const exited = (state: string, output: unknown): ExecutionEvent => ({ type: 'StateExited', timestamp: 0, index: 0, state: { name: state, type: 'Task', output } }) as ExecutionEvent;
const finished: ExecutionEvent = { type: 'TaskSucceeded', timestamp: 0, index: 0, state: { name: 'FinishStep', type: 'Task' } } as ExecutionEvent;

describe('LiveLogPrinter', () => {
  it('stopped while it reads a step\'s log, has printed what it read once stop resolves: nothing comes after `run` returned', async () => {
    const file = path.join(root, 'step.log');
    await writeFile(file, 'one\ntwo\n');
    const printed: string[] = [];
    const printer = new LiveLogPrinter((line) => printed.push(line));
    await printer.onEvent(exited('LaunchStep', { poll: { log: { location: file } } }));
    // A read under way (as the timer starts one) when the run ends.
    const reading = printer.onEvent(finished);
    await printer.stop();
    expect(printed).toEqual(['        │ one', '        │ two']);
    await reading;
  });
});
