/**
 * An exec as the kubelet hands it to the runtime and the API serves it: a command started in a
 * running container, its streams and its exit code, or the runtime's words for why it could not.
 */
import type { Readable, Writable } from 'node:stream';

export interface ExecStdio {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  /**
   * A terminal for the process (`kubectl exec -it`): the runtime gives it a pseudo-terminal, whose
   * one output (stderr included) is stdout, and which echoes and edits what stdin types. Absent: pipes.
   */
  tty?: boolean;
}

/**
 * A terminal's size as the client sends it on the resize channel: client-go's
 * remotecommand.TerminalSize {Width, Height uint16}, in characters.
 */
export interface TerminalSize {
  width: number;
  height: number;
}

export interface ExecProcess {
  /** Present when stdin was asked for; otherwise the process reads /dev/null. */
  stdin: Writable | null;
  stdout: Readable | null;
  stderr: Readable | null;
  /** The exit code once the process has ended and its output is closed (128 + signal when killed). */
  exited: Promise<number>;
  /** Sets the terminal's size (a tty exec only), which sends its foreground processes SIGWINCH. */
  resize?(size: TerminalSize): void;
}

export type ExecStart = { ok: true; process: ExecProcess } | { ok: false; message: string };

/** Starts a command in a container, or says why the runtime could not. */
export type ContainerExec = (argv: readonly string[], stdio: ExecStdio) => Promise<ExecStart>;
