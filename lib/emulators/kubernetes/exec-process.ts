/**
 * An exec as the kubelet hands it to the runtime and the API serves it: a command started in a
 * running container, its streams and its exit code, or the runtime's words for why it could not.
 */
import type { Readable, Writable } from 'node:stream';

export interface ExecStdio {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
}

export interface ExecProcess {
  /** Present when stdin was asked for; otherwise the process reads /dev/null. */
  stdin: Writable | null;
  stdout: Readable | null;
  stderr: Readable | null;
  /** The exit code once the process has ended and its output is closed (128 + signal when killed). */
  exited: Promise<number>;
}

export type ExecStart = { ok: true; process: ExecProcess } | { ok: false; message: string };

/** Starts a command in a container, or says why the runtime could not. */
export type ContainerExec = (argv: readonly string[], stdio: ExecStdio) => Promise<ExecStart>;
