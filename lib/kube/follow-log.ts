import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Log, type KubeConfig } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { LogLines, linesAfter, sinceTimeOf, type LogPosition } from './log-position.js';
import { withKubeRetries } from './retry.js';

/** Whole lines of a container's log, in order, with the position after them. */
export type OnLines = (text: string, position: LogPosition) => void;

/**
 * Follows a container's log from `from` (the start when undefined) until `signal` aborts or the
 * log ends (the container exited), calling `onLines` with each batch of whole new lines, and never
 * after it has returned. Resolves with the position after the last line delivered. A log that
 * cannot be read (the container has not started, the pod is gone) resolves at once with `from`:
 * the caller reads it later.
 * `follow: false` streams what the log holds now and ends there, the same way: an unterminated
 * last line (a running container half-way through it) is left for the next read.
 */
export async function followContainerLog(
  kubeConfig: KubeConfig,
  namespace: string,
  podName: string,
  container: string,
  from: LogPosition | undefined,
  onLines: OnLines,
  signal: AbortSignal,
  { follow = true }: { follow?: boolean } = {},
): Promise<LogPosition | undefined> {
  const reader = new LogLines(from);
  // A character may be split between two chunks of the stream.
  const decoder = new StringDecoder('utf8');
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  // Once the follow has returned, what its response still holds is not delivered: the caller has
  // moved on (PollStep closed its copy of the log), and reads it again from the position returned.
  // A stop does not end the stream at once: Log.log pipes the response body into the sink
  // (@kubernetes/client-node src/log.ts), and node-fetch 2's abort() only emits 'error' on a body
  // it does not destroy (node-fetch src/index.js), so what the body had buffered still flows on a
  // later tick. A stop while the request was on its way always left the log so far buffered there.
  let over = false;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (over) return callback();
      const text = reader.push(decoder.write(chunk));
      if (text && reader.position) onLines(text, reader.position);
      callback();
    },
  });
  sink.on('finish', ended).on('error', ended).on('close', ended);
  if (signal.aborted) return reader.position;
  let controller: AbortController | undefined;
  const abort = () => {
    controller?.abort();
    ended();
  };
  signal.addEventListener('abort', abort, { once: true });
  try {
    const sinceTime = sinceTimeOf(from);
    controller = await new Log(kubeConfig).log(namespace, podName, container, sink, {
      follow,
      timestamps: true,
      ...(sinceTime ? { sinceTime } : {}),
    });
    if (signal.aborted) controller.abort();
    await done;
  } catch {
    // Not readable now (400: not started; 404: gone; or the connection failed): nothing to add.
  } finally {
    signal.removeEventListener('abort', abort);
    over = true;
    // Unpiped from the response (pipe() lets go of a destination that closes), which then stops with its aborted request.
    sink.destroy();
  }
  return reader.position;
}

/**
 * What a container's log holds after `from`, read once (no follow), and the position after it:
 * what FinishStep adds to a copy that PollStep followed. Empty when there is no log to read.
 */
export async function readLogAfter(
  kubeConfig: KubeConfig,
  namespace: string,
  podName: string,
  container: string,
  from: LogPosition | undefined,
): Promise<{ text: string; position: LogPosition | undefined }> {
  const operation = `read log of pod ${namespace}/${podName}`;
  const sinceTime = sinceTimeOf(from);
  try {
    const raw = await withKubeRetries(operation, async () => {
      const chunks: Buffer[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          chunks.push(chunk);
          callback();
        },
      });
      const finished = new Promise<void>((resolve, reject) => sink.on('finish', resolve).on('error', reject));
      await new Log(kubeConfig).log(namespace, podName, container, sink, { follow: false, timestamps: true, ...(sinceTime ? { sinceTime } : {}) });
      await finished;
      return Buffer.concat(chunks).toString('utf8');
    });
    // The log has ended: an unterminated last line is whole.
    return linesAfter(raw, from);
  } catch (error) {
    const status = httpStatus(error);
    if (status === 404 || status === 400) return { text: '', position: from };
    throw unexpectedKubeError(operation, error);
  }
}
