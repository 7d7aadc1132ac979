/**
 * One pipe for a process's stdout and stderr, so its lines reach the log in the order it wrote
 * them (containerd gives a container FIFOs too). Node makes only separate pipes per fd, so this is
 * a named FIFO, unlinked as soon as both ends are open.
 */
import { execFile } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SharedOutput {
  /** The read end: ends when every writer (the child and whatever inherited it) has closed. */
  reader: Socket;
  /** The write end, to pass as the child's fd 1 and 2. */
  writeFd: number;
  /** Closes this process's copy of the write end (after the spawn). */
  closeWriter(): void;
}

function mkfifo(path: string): Promise<void> {
  return new Promise((resolve, reject) => execFile('mkfifo', ['-m', '600', path], (error) => (error ? reject(error) : resolve())));
}

/** Undefined where there is no mkfifo: the caller falls back to two pipes. */
export async function openSharedOutput(): Promise<SharedOutput | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'step-output-'));
  const path = join(dir, 'fifo');
  let readFd: number | undefined;
  try {
    await mkfifo(path);
    // A non-blocking read end first, so opening the write end does not wait for a reader.
    readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeFd = openSync(path, constants.O_WRONLY);
    let open = true;
    return {
      reader: new Socket({ fd: readFd, readable: true, writable: false }),
      writeFd,
      closeWriter: () => {
        if (open) closeSync(writeFd);
        open = false;
      },
    };
  } catch {
    if (readFd !== undefined) closeSync(readFd);
    return undefined;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
