/**
 * A container's output into its log: attached before the container starts (so its first line is
 * not missed), demultiplexed in arrival order, each stream decoded as UTF-8 on its own so that a
 * character split across frames stays whole. The log ends when the daemon closes the stream, which
 * it does once the container's process has ended.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import type { LogBuffer } from '../../log-buffer.js';
import { FrameParser } from './stream-frames.js';

/** Writes stream's frames to log; resolves once the stream has ended and the log with it. */
export function pipeToLog(stream: Readable, log: Pick<LogBuffer, 'write' | 'end'>): Promise<void> {
  const parser = new FrameParser();
  const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  return new Promise((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      for (const [name, decoder] of Object.entries(decoders)) {
        const rest = decoder.end();
        if (rest !== '') log.write(name, rest);
      }
      log.end();
      resolve();
    };
    stream.on('data', (chunk: Buffer) => {
      let frames;
      try {
        frames = parser.push(chunk);
      } catch (error) {
        // Not a multiplexed stream after all: what came is kept, then the log ends.
        log.write('stderr', `${(error as Error).message}\n`);
        stream.destroy();
        finish();
        return;
      }
      for (const frame of frames) {
        if (frame.stream === 'stdin') continue;
        const text = decoders[frame.stream].write(frame.payload);
        if (text !== '') log.write(frame.stream, text);
      }
    });
    stream.once('end', finish);
    stream.once('close', finish);
    stream.once('error', finish);
  });
}
