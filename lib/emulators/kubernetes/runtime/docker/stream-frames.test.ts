/** The Engine API's multiplexed stream, split anywhere by the socket, and its log. */
import { PassThrough } from 'node:stream';
import { pipeToLog } from './log-stream.js';
import { FrameParser, StreamFrameError, encodeFrame } from './stream-frames.js';

const bytes = Buffer.concat([encodeFrame('stdout', 'one\n'), encodeFrame('stderr', 'two\n'), encodeFrame('stdout', ''), encodeFrame('stdout', 'thr€e\n')]);

describe('FrameParser', () => {
  it.each([1, 3, 8, 9, bytes.length])('reads the same frames from chunks of %i bytes', (size) => {
    const parser = new FrameParser();
    const frames = [];
    for (let at = 0; at < bytes.length; at += size) frames.push(...parser.push(bytes.subarray(at, at + size)));
    expect(frames.map((f) => [f.stream, f.payload.toString()])).toEqual([
      ['stdout', 'one\n'],
      ['stderr', 'two\n'],
      ['stdout', ''],
      ['stdout', 'thr€e\n'],
    ]);
    expect(parser.leftover).toBe(0);
  });

  it('refuses a header naming no stream', () => {
    expect(() => new FrameParser().push(Buffer.from('not multiplexed'))).toThrow(StreamFrameError);
  });
});

describe('pipeToLog', () => {
  it('writes each stream in arrival order, a character split across frames whole, and ends the log', async () => {
    const writes: [string, string][] = [];
    let ended = 0;
    const source = new PassThrough();
    const done = pipeToLog(source, { write: (stream, text) => writes.push([stream, text]), end: () => ended++ });
    const euro = Buffer.from('€');
    source.write(encodeFrame('stdout', Buffer.concat([Buffer.from('a'), euro.subarray(0, 1)])));
    source.write(encodeFrame('stderr', 'err\n'));
    source.write(encodeFrame('stdout', Buffer.concat([euro.subarray(1), Buffer.from('b\n')])));
    source.end();
    await done;
    expect({ writes, ended }).toEqual({ writes: [['stdout', 'a'], ['stderr', 'err\n'], ['stdout', '€b\n']], ended: 1 });
  });

  it('ends the log once when the stream is destroyed', async () => {
    let ended = 0;
    const source = new PassThrough();
    const done = pipeToLog(source, { write: () => {}, end: () => ended++ });
    source.destroy();
    await done;
    expect(ended).toBe(1);
  });
});
