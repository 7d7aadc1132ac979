/**
 * The Engine API's multiplexed stream (a container without a TTY, attached or exec'd): frames of an
 * 8-byte header — the stream (0 stdin, 1 stdout, 2 stderr), three zero bytes, the payload's length
 * big-endian — then the payload. Chunks from the socket split frames anywhere. Pure.
 */

export const FrameStreams = { stdin: 'stdin', stdout: 'stdout', stderr: 'stderr' } as const;
export type FrameStream = (typeof FrameStreams)[keyof typeof FrameStreams];

export interface Frame {
  stream: FrameStream;
  payload: Buffer;
}

const HEADER_BYTES = 8;
const STREAMS: Record<number, FrameStream> = { 0: 'stdin', 1: 'stdout', 2: 'stderr' };

/** The header names no stream the API has: the stream is not what it should be. */
export class StreamFrameError extends Error {
  override name = 'StreamFrameError';
}

export class FrameParser {
  private pending: Buffer = Buffer.alloc(0);

  /** The frames completed by chunk, in order. */
  push(chunk: Buffer): Frame[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: Frame[] = [];
    while (this.pending.length >= HEADER_BYTES) {
      const stream = STREAMS[this.pending[0]!];
      if (stream === undefined) throw new StreamFrameError(`unknown stream ${this.pending[0]} in a multiplexed frame header`);
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < HEADER_BYTES + size) break;
      frames.push({ stream, payload: this.pending.subarray(HEADER_BYTES, HEADER_BYTES + size) });
      this.pending = this.pending.subarray(HEADER_BYTES + size);
    }
    return frames;
  }

  /** Bytes of a frame the stream ended inside. */
  get leftover(): number {
    return this.pending.length;
  }
}

/** A frame as the daemon writes it; for tests and stand-ins. */
export function encodeFrame(stream: FrameStream, payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const header = Buffer.alloc(HEADER_BYTES);
  header[0] = stream === 'stdin' ? 0 : stream === 'stdout' ? 1 : 2;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}
