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
import type { ExecStart, ExecStdio } from '../../exec-process.js';

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
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd: target.cwd,
        env: target.env,
        detached: true,
        stdio: [stdio.stdin ? 'pipe' : 'ignore', stdio.stdout ? 'pipe' : 'ignore', stdio.stderr ? 'pipe' : 'ignore'],
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
    return { ok: true, process: { stdin: child.stdin, stdout: child.stdout, stderr: child.stderr, exited } };
  }

  /** Kills every exec'd process still running and waits for them to end. */
  async stopAll(): Promise<void> {
    const running = [...this.live.entries()];
    for (const [pid] of running) killGroup(pid);
    await Promise.all(running.map(([, exited]) => exited));
  }
}
