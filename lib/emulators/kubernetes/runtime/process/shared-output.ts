/**
 * One pipe for a process's stdout and stderr, so its lines reach the log in the order it wrote
 * them (containerd gives a container FIFOs too). Node makes only separate pipes per fd, so this is
 * a named FIFO, unlinked as soon as both ends are open.
 *
 * The FIFOs are made ahead, several by one `mkfifo`: Node has no mkfifo(3), and each process it
 * starts costs the kubelet a fork of its whole address space (milliseconds in a large process),
 * which one `mkfifo` per container start paid as often as the container itself.
 */
import { execFile } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface SharedOutput {
  /** The read end: ends when every writer (the child and whatever inherited it) has closed. */
  reader: Socket;
  /** The write end, to pass as the child's fd 1 and 2. */
  writeFd: number;
  /** Closes this process's copy of the write end (after the spawn). */
  closeWriter(): void;
}

export interface SharedOutputs {
  /** Undefined where there is no mkfifo: the caller falls back to two pipes. */
  open(): Promise<SharedOutput | undefined>;
  /** Removes the FIFOs made and not taken (the runtime's close). */
  close(): Promise<void>;
}

const BATCH = 8;

function mkfifo(paths: string[]): Promise<void> {
  return new Promise((resolve, reject) => execFile('mkfifo', ['-m', '600', ...paths], (error) => (error ? reject(error) : resolve())));
}

export function createSharedOutputs(): SharedOutputs {
  /** Made and not yet taken, each batch in a directory of its own (0700, as mkdtemp makes it). */
  const spare: string[] = [];
  /** Batch directories not yet removed, with how many of their FIFOs are still to be taken. */
  const untaken = new Map<string, number>();
  let making: Promise<void> | undefined;

  const makeBatch = async (): Promise<void> => {
    const dir = await mkdtemp(join(tmpdir(), 'step-output-'));
    const paths = Array.from({ length: BATCH }, (_, i) => join(dir, `fifo-${i}`));
    try {
      await mkfifo(paths);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    untaken.set(dir, BATCH);
    spare.push(...paths);
  };

  const take = async (): Promise<string> => {
    while (spare.length === 0) {
      making ??= makeBatch().finally(() => {
        making = undefined;
      });
      await making;
    }
    return spare.pop()!;
  };

  // A taken FIFO is unlinked once open (its open ends keep it working), its batch's directory after the last.
  const release = async (path: string): Promise<void> => {
    await unlink(path).catch(() => undefined);
    const dir = dirname(path);
    const left = (untaken.get(dir) ?? 1) - 1;
    if (left > 0) {
      untaken.set(dir, left);
      return;
    }
    untaken.delete(dir);
    await rm(dir, { recursive: true, force: true });
  };

  return {
    open: async () => {
      let path: string;
      try {
        path = await take();
      } catch {
        return undefined;
      }
      let readFd: number | undefined;
      try {
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
        await release(path);
      }
    },
    close: async () => {
      await making?.catch(() => undefined);
      spare.length = 0;
      const dirs = [...untaken.keys()];
      untaken.clear();
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}
