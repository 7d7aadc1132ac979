/**
 * What the runtime does for an exec: a new process in a running container's context, which here is
 * the container process's working directory and environment on the host, in its own process group.
 * In a real container every exec'd process lives in the container's PID namespace and is killed
 * when the container's main process ends; here the container's end kills them the same way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { constants } from 'node:os';
import type { ExecStart, ExecStdio, TerminalSize } from '../../exec-process.js';
import { resizeScriptTerminal, scriptArgs, scriptProgram } from './process-tty.js';

/** How often, and how many times, a resize looks for the terminal `script` is still opening. */
const TERMINAL_POLL_MS = 20;
const TERMINAL_POLLS = 250;

/** A running container, as an exec into it needs it. */
export interface ExecTarget {
  /** The container process's working directory on the host. */
  cwd: string;
  /** The container process's whole environment (host basics, HOSTNAME, its env with mount paths mapped). */
  env: Record<string, string>;
  /** Settles when the container's process has ended. */
  exited: Promise<unknown>;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** containerd's error when runc cannot start the exec'd process (`detail` is runc's part). */
function execFailure(execId: string, detail: string): string {
  return `failed to exec in container: failed to start exec "${execId}": OCI runtime exec failed: exec failed: ${detail}: unknown`;
}

/** runc's words for a process that could not be started. */
function startFailure(command: string, error: NodeJS.ErrnoException): string {
  const prefix = 'unable to start container process:';
  if (error.code === 'ENOENT' && command.includes('/')) return `${prefix} exec: "${command}": stat ${command}: no such file or directory`;
  if (error.code === 'ENOENT') return `${prefix} exec: "${command}": executable file not found in $PATH`;
  if (error.code === 'EACCES') return `${prefix} exec: "${command}": permission denied`;
  return `${prefix} ${error.message}`;
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

function spawned(child: ChildProcess): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', (error) => resolve(error));
  });
}

/**
 * Sizes the terminal of `script` (pid) as the client asks, the latest size winning; the first
 * usually comes before script has opened the terminal, so it waits for it, as long as it runs.
 */
function terminalResizer(pid: number, exited: Promise<number>): (size: TerminalSize) => void {
  let wanted: TerminalSize | undefined;
  let busy = false;
  let ended = false;
  void exited.then(() => (ended = true));
  const apply = async () => {
    busy = true;
    for (let poll = 0; wanted && !ended && poll < TERMINAL_POLLS; poll++) {
      const size = wanted;
      if (await resizeScriptTerminal(pid, size)) {
        if (wanted === size) wanted = undefined;
        poll = 0;
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, TERMINAL_POLL_MS));
    }
    busy = false;
  };
  return (size) => {
    wanted = size;
    if (!busy) void apply();
  };
}

/** The node's exec'd processes: started in a container's context, ended with it or with the node. */
export class ExecProcesses {
  private readonly live = new Map<number, Promise<number>>();

  async start(target: ExecTarget, argv: readonly string[], stdio: ExecStdio): Promise<ExecStart> {
    const execId = randomBytes(32).toString('hex');
    const [command, ...args] = argv;
    // runc refuses an empty argv before anything else (validateProcessSpec).
    if (command === undefined) return { ok: false, message: execFailure(execId, 'args must not be empty') };
    // Checked first because spawn reports a missing cwd as a missing command.
    if (!(await isDirectory(target.cwd))) {
      return { ok: false, message: execFailure(execId, `unable to start container process: chdir to cwd ("${target.cwd}") set in config.json failed: no such file or directory`) };
    }
    // A terminal's command starts inside `script` (process-tty.ts): one that cannot start fails
    // there, as the shell says it (exit 127), not as runc would refuse it.
    const script = stdio.tty ? scriptProgram() : undefined;
    if (stdio.tty && script === undefined) {
      return { ok: false, message: execFailure(execId, "unable to start container process: a terminal (tty) on the process runtime needs util-linux's `script` on PATH") };
    }
    const run = script ? { file: script, ...scriptArgs(argv, target.env) } : { file: command, args, env: target.env };
    let child: ChildProcess;
    try {
      child = spawn(run.file, run.args, {
        cwd: target.cwd,
        env: run.env,
        detached: true,
        // A terminal has one output, stdout (the CRI's ExecRequest: with tty, stderr is false).
        stdio: [stdio.stdin ? 'pipe' : 'ignore', stdio.stdout ? 'pipe' : 'ignore', stdio.stderr && !script ? 'pipe' : 'ignore'],
      });
    } catch (thrown) {
      // Node refuses some argvs outright (an empty command, a NUL byte); no executable has such a name.
      return { ok: false, message: execFailure(execId, startFailure(command, { ...(thrown as Error), code: 'ENOENT' })) };
    }
    const error = await spawned(child);
    if (error !== undefined || child.pid === undefined) return { ok: false, message: execFailure(execId, startFailure(command, error ?? new Error('no pid'))) };
    const pid = child.pid;

    let leaderExited = false;
    // What the command left in the background goes with it, so its output ends and nothing outlives the session.
    child.once('exit', () => {
      leaderExited = true;
      killGroup(pid);
    });
    void target.exited.then(() => {
      if (!leaderExited) killGroup(pid);
    });
    // A process that exits without reading its stdin makes writes to it fail; that is not an error here.
    child.stdin?.on('error', () => {});
    const exited = new Promise<number>((resolve) => {
      child.once('close', (code, signal) => {
        const signo = signal ? constants.signals[signal] : undefined;
        resolve(signo !== undefined ? 128 + signo : (code ?? 0));
      });
    });
    this.live.set(pid, exited);
    void exited.then(() => this.live.delete(pid));
    const resize = script ? terminalResizer(pid, exited) : undefined;
    return { ok: true, process: { stdin: child.stdin, stdout: child.stdout, stderr: child.stderr, exited, ...(resize ? { resize } : {}) } };
  }

  /** Kills every exec'd process still running and waits for them to end. */
  async stopAll(): Promise<void> {
    const running = [...this.live.entries()];
    for (const [pid] of running) killGroup(pid);
    await Promise.all(running.map(([, exited]) => exited));
  }
}
