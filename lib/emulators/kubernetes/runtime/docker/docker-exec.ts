/**
 * An exec into a running container through the Engine API: created, started on a hijacked
 * connection, the multiplexed output split into stdout and stderr, stdin's end passed on as a
 * half-close (the daemon then closes the process's stdin). The daemon reports a command it could
 * not start only on the stream (runc's words on stdout) and as exit code 126, after the hijack has
 * succeeded; that is recognised so the caller gets the failure as one, as from containerd.
 */
import { PassThrough, type Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { ExecStart, ExecStdio, TerminalSize } from '../../exec-process.js';
import { daemonError } from './daemon-errors.js';
import type { OpenHandles } from './open-handles.js';
import { FrameParser } from './stream-frames.js';

/** How the daemon words an exec runc could not start (daemon/exec.go writes the error to stdout). */
const OCI_EXEC_FAILURE = /^OCI runtime exec failed: .*/;
/** The daemon's exit code for an exec that could not start. */
const EXEC_START_FAILED = 126;
/**
 * How often to look whether the exec's process started, and for how long at most before handing it
 * over. The daemon always settles it (a pid, or an exit code) a moment after the start; on a
 * loaded machine that moment passed a second, and an exec runc refused was handed over as started,
 * so the bound is only a safety net for a daemon that never answers.
 */
const START_POLL_MS = 10;
const START_POLLS = 3000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ExecState {
  Running: boolean;
  /** The process's pid on the host; 0 until runc has started it. */
  Pid: number;
  ExitCode: number | null;
}

async function state(exec: Docker.Exec): Promise<ExecState> {
  const info = (await exec.inspect()) as unknown as ExecState;
  return { Running: info.Running, Pid: info.Pid ?? 0, ExitCode: info.ExitCode };
}

/** The process's exit code once it has ended; the daemon sets it a moment after the stream closes. */
async function exitCode(exec: Docker.Exec): Promise<number> {
  for (;;) {
    const now = await state(exec);
    if (!now.Running && now.ExitCode !== null) return now.ExitCode;
    await pause(START_POLL_MS);
  }
}

export async function startExec(docker: Docker, containerId: string, socketPath: string, argv: readonly string[], stdio: ExecStdio, handles: OpenHandles): Promise<ExecStart> {
  let exec: Docker.Exec;
  let socket: Duplex;
  try {
    // With Tty the daemon gives the process a terminal, whose one output it sends unframed
    // (Engine API, "Attach to a container": "When the TTY setting is enabled ... the stream is
    // the raw data from the process PTY"), stderr included: the CRI's ExecRequest has no stderr then.
    exec = await docker
      .getContainer(containerId)
      .exec({ Cmd: [...argv], AttachStdin: stdio.stdin, AttachStdout: stdio.stdout, AttachStderr: stdio.stderr && !stdio.tty, Tty: stdio.tty === true });
    socket = (await exec.start({ hijack: true, stdin: stdio.stdin })) as unknown as Duplex;
  } catch (error) {
    return { ok: false, message: daemonError(error, socketPath) };
  }
  const stdout = stdio.stdout ? new PassThrough() : null;
  const stderr = stdio.stderr && !stdio.tty ? new PassThrough() : null;
  const stdin = stdio.stdin ? new PassThrough() : null;
  // The first stdout bytes, to tell runc's refusal from the command's own output.
  let head = '';
  const parser = new FrameParser();
  const forget = handles.add(() => socket.destroy());
  const ended = new Promise<void>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      forget();
      stdout?.end();
      stderr?.end();
      resolve();
    };
    socket.on('data', (chunk: Buffer) => {
      if (stdio.tty) {
        if (head.length < 4096) head += chunk.toString('utf8');
        stdout?.write(chunk);
        return;
      }
      let frames;
      try {
        frames = parser.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const frame of frames) {
        if (frame.stream === 'stdout') {
          if (head.length < 4096) head += frame.payload.toString('utf8');
          stdout?.write(frame.payload);
        } else if (frame.stream === 'stderr') {
          stderr?.write(frame.payload);
        }
      }
    });
    socket.once('end', finish);
    socket.once('close', finish);
    socket.once('error', finish);
  });
  if (stdin !== null) {
    stdin.pipe(socket, { end: false });
    stdin.once('end', () => socket.end());
    // The process may exit without reading its stdin; writes after that are not an error.
    socket.on('error', () => {});
  } else {
    // Nothing to send: half-close now, which the daemon ignores for an exec without stdin.
    socket.on('error', () => {});
  }

  // Whether runc started the process: running, or ended. An ended one that exited 126 with runc's
  // words as its only output never started.
  for (let i = 0; i < START_POLLS; i++) {
    let now: ExecState;
    try {
      now = await state(exec);
    } catch (error) {
      socket.destroy();
      return { ok: false, message: daemonError(error, socketPath) };
    }
    // The daemon says Running from the moment it asks containerd for the process, before runc has
    // started it or refused to: only a pid says it started (Engine API, "Inspect an exec instance":
    // Pid; seen on Docker 20.10: a command the container lacks is Running with Pid 0 for tens of
    // milliseconds, then ends with 126).
    if (now.Running && now.Pid > 0) break;
    if (now.ExitCode !== null) {
      if (now.ExitCode === EXEC_START_FAILED) {
        await ended;
        const refusal = OCI_EXEC_FAILURE.exec(head.trim());
        if (refusal) return { ok: false, message: refusal[0] };
      }
      break;
    }
    await pause(START_POLL_MS);
  }

  const exited = ended.then(() => exitCode(exec)).catch(() => 137);
  // POST /exec/{id}/resize: the daemon sets the terminal's size, which signals the process.
  const resize = (size: TerminalSize) => void exec.resize({ h: size.height, w: size.width }).catch(() => undefined);
  return { ok: true, process: { stdin, stdout, stderr, exited, ...(stdio.tty ? { resize } : {}) } };
}
