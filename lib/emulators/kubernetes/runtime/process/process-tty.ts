/**
 * A terminal for an exec'd process on the process runtime, without a native module: util-linux's
 * `script` opens a pseudo-terminal, runs the command on its slave side as the session's leader
 * and copies between the terminal's master side and its own stdin and stdout, which are pipes
 * here. What containerd does for a tty exec (a console from runc, whose one output carries
 * stderr too, its echo and line editing the terminal's) is what the command sees.
 */
import { accessSync, constants } from 'node:fs';
import { readFile, readlink } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TerminalSize } from '../../exec-process.js';

/** `script` on this machine's PATH, or undefined: a tty exec is then refused in runc's words. */
export function scriptProgram(searchPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'script');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

function quoted(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * `script` running `argv` on a new terminal: -q no banner, -f each write passed on at once, -e its
 * exit code the command's, -c the command (given to $SHELL -c, so it is quoted, and SHELL is set
 * back to the container's own before the command replaces that shell), /dev/null the typescript
 * file it would otherwise keep. Its stdin being a pipe, script leaves the terminal's echo on
 * (`--echo auto`, script(1)): the terminal echoes what is typed, as a container's does.
 */
export function scriptArgs(argv: readonly string[], env: Readonly<Record<string, string>>): { args: string[]; env: Record<string, string> } {
  const shell = env.SHELL === undefined ? 'unset SHELL' : `export SHELL=${quoted(env.SHELL)}`;
  return { args: ['-qfec', `${shell}; exec ${argv.map(quoted).join(' ')}`, '/dev/null'], env: { ...env, SHELL: '/bin/sh' } };
}

/**
 * Sets the size of the terminal `script` (pid) runs its command on, as TIOCSWINSZ through
 * `stty -F`, which makes the kernel send SIGWINCH to the terminal's foreground processes. The
 * terminal is the one the command's stdin is: found through /proc once script has started it.
 * False while it has not (the caller tries again); a terminal gone with its command needs none.
 */
export async function resizeScriptTerminal(pid: number, size: TerminalSize): Promise<boolean> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  const child = children.trim().split(/\s+/)[0];
  if (!child) return false;
  const terminal = await readlink(`/proc/${child}/fd/0`).catch(() => '');
  if (!terminal.startsWith('/dev/pts/')) return false;
  await new Promise<void>((resolve) => {
    const stty = spawn('stty', ['-F', terminal, 'rows', String(size.height), 'cols', String(size.width)], { stdio: 'ignore' });
    stty.once('close', () => resolve());
    stty.once('error', () => resolve());
  });
  return true;
}
