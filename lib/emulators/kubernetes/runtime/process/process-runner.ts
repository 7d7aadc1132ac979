/**
 * Runs a container's command as a local process in its own process group (so a shell's children
 * stop with it), feeding stdout and stderr into the container log. Not isolated in any way: it is
 * the host's filesystem, network and tools, not the image's.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { LogBuffer } from '../../log-buffer.js';
import type { SharedOutputs } from './shared-output.js';

export interface ProcessExit {
  exitCode: number;
  signal?: number;
}

export interface StepProcess {
  readonly pid: number;
  readonly exited: Promise<ProcessExit>;
  /** SIGTERM to the group, SIGKILL after graceMs if it is still there. */
  stop(graceMs: number): Promise<ProcessExit>;
}

export type StartResult = { ok: true; process: StepProcess } | { ok: false; message: string };

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** containerd's words when the entry point cannot be executed. */
function startFailure(command: string, error: NodeJS.ErrnoException, cwd: string): string {
  const prefix = 'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process:';
  if (error.code === 'ENOENT' && error.path === command) return `${prefix} exec: "${command}": executable file not found in $PATH: unknown`;
  if (error.code === 'ENOENT') return `${prefix} chdir to cwd ("${cwd}") set in config.json failed: no such file or directory: unknown`;
  if (error.code === 'EACCES') return `${prefix} exec: "${command}": permission denied: unknown`;
  return `${prefix} ${error.message}: unknown`;
}

export async function startProcess(
  argv: string[],
  options: { cwd: string; env: Record<string, string>; log: LogBuffer; outputs: SharedOutputs },
): Promise<StartResult> {
  const [command = '', ...args] = argv;
  // One pipe behind both fd 1 and fd 2, as a terminal is: two pipes read by this process would
  // lose the order in which the lines were written (stderr after later stdout).
  const shared = await options.outputs.open();
  const stdio = shared ? (['ignore', shared.writeFd, shared.writeFd] as const) : (['ignore', 'pipe', 'pipe'] as const);
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: [...stdio] });
  const started = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', (error) => resolve(error));
  });
  // The child has its own copies now: the pipe ends (EOF) when it and its children close theirs.
  shared?.closeWriter();
  if (started !== undefined || child.pid === undefined) {
    shared?.reader.destroy();
    return { ok: false, message: startFailure(command, started ?? new Error('no pid'), options.cwd) };
  }
  const pid = child.pid;
  // With the shared pipe the stream of a line is unknown; nothing reads it (the API's log has no
  // stream selection), and "stdout" and "stderr" count the same in the rotation's size.
  const outputDone = shared
    ? new Promise<void>((resolve) => {
        shared.reader.setEncoding('utf8').on('data', (chunk: string) => options.log.write('stdout', chunk));
        shared.reader.once('close', () => resolve());
      })
    : Promise.resolve();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => options.log.write('stdout', chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => options.log.write('stderr', chunk));

  const exited = new Promise<ProcessExit>((resolve) => {
    let status: ProcessExit = { exitCode: 0 };
    child.once('exit', (code, signal) => {
      const signo = signal ? constants.signals[signal] : undefined;
      status = signo !== undefined ? { exitCode: 128 + signo, signal: signo } : { exitCode: code ?? 0 };
      // The container ends with its main process: whatever it left in the background goes too.
      signalGroup(pid, 'SIGKILL');
    });
    child.once('close', () => {
      void outputDone.then(() => {
        options.log.end();
        resolve(status);
      });
    });
  });

  return {
    ok: true,
    process: {
      pid,
      exited,
      stop: async (graceMs) => {
        signalGroup(pid, 'SIGTERM');
        const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), Math.max(0, graceMs));
        try {
          return await exited;
        } finally {
          clearTimeout(timer);
        }
      },
    },
  };
}
