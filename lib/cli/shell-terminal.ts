/**
 * The user's terminal lent to a remote shell, as `kubectl exec -it` lends it: raw mode (every key,
 * Ctrl-C and Ctrl-D included, goes to the shell, whose own terminal echoes and edits), the
 * keys as a stream, and a screen whose size client-node sends on the resize channel and sends
 * again when the window changes. Given back as it was when the shell ends.
 */
import { PassThrough, Writable, type Readable } from 'node:stream';

/** The two ends of the user's terminal: process.stdin and process.stdout when both are one. */
export interface UserTerminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(raw: boolean): unknown; isRaw?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number; on(event: 'resize', listener: () => void): unknown; off(event: 'resize', listener: () => void): unknown };
}

/** Why the terminal cannot be lent, or undefined when it can. */
export function noTerminalBecause(terminal: UserTerminal): string | undefined {
  if (!terminal.input.isTTY || typeof terminal.input.setRawMode !== 'function') return 'stdin is not a terminal';
  if (!terminal.output.isTTY) return 'stdout is not a terminal';
  return undefined;
}

export interface LentTerminal {
  /** What the user types, byte for byte. */
  keys: Readable;
  /**
   * The screen: what is written goes through `show`; its `columns` and `rows` are the terminal's,
   * and it emits 'resize' with it (what client-node's Exec takes for a terminal to size).
   */
  screen: Writable;
  /** Gives the terminal back: cooked mode again, the keys no longer read. */
  giveBack(): void;
}

export function lendTerminal(terminal: UserTerminal, show: (chunk: Buffer) => void): LentTerminal {
  const { input, output } = terminal;
  const wasRaw = input.isRaw === true;
  input.setRawMode?.(true);
  const keys = new PassThrough();
  input.pipe(keys);
  input.resume();
  const screen = new Writable({
    write(chunk: Buffer, _encoding, done) {
      show(chunk);
      done();
    },
  });
  Object.defineProperties(screen, {
    columns: { get: () => output.columns ?? 80 },
    rows: { get: () => output.rows ?? 24 },
  });
  const resized = () => screen.emit('resize');
  output.on('resize', resized);
  return {
    keys,
    screen,
    giveBack() {
      output.off('resize', resized);
      input.unpipe(keys);
      keys.end();
      input.setRawMode?.(wasRaw);
      input.pause();
    },
  };
}
