import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { lendTerminal, noTerminalBecause, type UserTerminal } from './shell-terminal.js';

/** A terminal as process.stdin and process.stdout are one: raw mode recorded, a size that changes. */
function fakeTerminal(tty: { input: boolean; output: boolean } = { input: true, output: true }) {
  const modes: boolean[] = [];
  const input = Object.assign(new PassThrough(), { isTTY: tty.input, isRaw: false, setRawMode: (raw: boolean) => modes.push(raw) });
  const output = Object.assign(new EventEmitter(), { isTTY: tty.output, columns: 100, rows: 30, written: [] as string[], write: (text: string) => output.written.push(text) });
  return { terminal: { input, output } as unknown as UserTerminal, input, output, modes };
}

describe('the terminal lent to the shell', () => {
  test.each([
    ['both ends a terminal', { input: true, output: true }, undefined],
    ['stdin piped', { input: false, output: true }, 'stdin is not a terminal'],
    ['stdout piped (run --json | jq)', { input: true, output: false }, 'stdout is not a terminal'],
  ])('%s', (_, tty, why) => {
    expect(noTerminalBecause(fakeTerminal(tty).terminal)).toBe(why);
  });

  test('raw while lent, every key passed on, the screen sized as the terminal and resized with it; cooked again once given back', async () => {
    const { terminal, input, output, modes } = fakeTerminal();
    const shown: string[] = [];
    const lent = lendTerminal(terminal, (chunk) => shown.push(chunk.toString()));
    const keys: string[] = [];
    lent.keys.on('data', (chunk: Buffer) => keys.push(chunk.toString()));
    input.write('\u0003');
    await new Promise((resolve) => setImmediate(resolve));
    lent.screen.write('prompt# ');
    const sizes: number[][] = [];
    lent.screen.on('resize', () => sizes.push([(lent.screen as unknown as { columns: number }).columns, (lent.screen as unknown as { rows: number }).rows]));
    output.columns = 120;
    output.emit('resize');
    lent.giveBack();
    output.emit('resize');
    expect({ keys, shown, sizes, modes }).toEqual({ keys: ['\u0003'], shown: ['prompt# '], sizes: [[120, 30]], modes: [true, false] });
  });
});
