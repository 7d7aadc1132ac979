/**
 * `Content-Encoding: aws-chunked` bodies decoded to the object's bytes: the SDK sends a stream
 * body that way (`x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER`), each chunk framed
 * as `hex-size[;ext]\r\n bytes \r\n`, a zero-size chunk, then trailer lines (its checksum),
 * which go into `trailers` by lower-case name.
 */
import { Transform, type TransformCallback } from 'node:stream';

export class AwsChunkedError extends Error {
  override name = 'AwsChunkedError';
}

const MAX_LINE = 4096;

export function awsChunkedDecoder(trailers: Map<string, string>): Transform {
  let pending: Buffer = Buffer.alloc(0);
  let remaining = 0; // bytes of the current chunk's data still to pass on
  let state: 'size' | 'data' | 'data-end' | 'trailer' | 'done' = 'size';

  function takeLine(): string | undefined {
    const end = pending.indexOf('\r\n');
    if (end < 0) {
      if (pending.length > MAX_LINE) throw new AwsChunkedError('an aws-chunked line is too long');
      return undefined;
    }
    const line = pending.subarray(0, end).toString('latin1');
    pending = pending.subarray(end + 2);
    return line;
  }

  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      try {
        for (;;) {
          if (state === 'size') {
            const line = takeLine();
            if (line === undefined) break;
            const size = line.split(';')[0]!.trim();
            if (!/^[0-9a-fA-F]+$/.test(size)) throw new AwsChunkedError(`an aws-chunked size line is not hex: ${line.slice(0, 40)}`);
            remaining = parseInt(size, 16);
            state = remaining === 0 ? 'trailer' : 'data';
          } else if (state === 'data') {
            if (pending.length === 0) break;
            const take = Math.min(remaining, pending.length);
            this.push(pending.subarray(0, take));
            pending = pending.subarray(take);
            remaining -= take;
            if (remaining === 0) state = 'data-end';
          } else if (state === 'data-end') {
            if (pending.length < 2) break;
            if (pending[0] !== 0x0d || pending[1] !== 0x0a) throw new AwsChunkedError('an aws-chunked chunk does not end in CRLF');
            pending = pending.subarray(2);
            state = 'size';
          } else if (state === 'trailer') {
            const line = takeLine();
            if (line === undefined) break;
            if (line === '') {
              state = 'done';
            } else {
              const colon = line.indexOf(':');
              if (colon > 0) trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
            }
          } else {
            pending = Buffer.alloc(0);
            break;
          }
        }
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      // Some clients end with the trailer's last CRLF missing; the data is complete by then.
      if (state === 'done' || (state === 'trailer' && pending.length === 0)) callback();
      else callback(new AwsChunkedError('the aws-chunked body ended inside a chunk'));
    },
  });
}
