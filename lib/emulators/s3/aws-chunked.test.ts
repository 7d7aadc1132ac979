import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import fc from 'fast-check';
import { awsChunkedDecoder } from './aws-chunked.js';

async function decode(wire: Buffer, cuts: number[]): Promise<{ body: string; trailers: Map<string, string> }> {
  const points = [...new Set(cuts.map((cut) => cut % (wire.length + 1)))].sort((a, b) => a - b);
  const pieces = [0, ...points, wire.length].slice(1).map((end, i, ends) => wire.subarray(i === 0 ? 0 : ends[i - 1], end));
  const trailers = new Map<string, string>();
  const body = await text(Readable.from(pieces.filter((piece) => piece.length > 0)).pipe(awsChunkedDecoder(trailers)));
  return { body, trailers };
}

describe('aws-chunked bodies', () => {
  it('gives the payload and the trailer wherever the network splits the wire bytes', async () => {
    const wire = Buffer.from('5\r\nhello\r\n7;chunk-signature=x\r\n, world\r\n0\r\nx-amz-checksum-crc32:abc=\r\n\r\n');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 6 }), async (cuts) => {
        const { body, trailers } = await decode(wire, cuts);
        expect(body).toBe('hello, world');
        expect(trailers.get('x-amz-checksum-crc32')).toBe('abc=');
      }),
    );
  });

  it.each([
    ['a size that is not hex', 'zz\r\nhello\r\n0\r\n\r\n'],
    ['a body cut short', '5\r\nhel'],
    ['a chunk without its CRLF', '5\r\nhelloXX0\r\n\r\n'],
  ])('fails on %s', async (_, wire) => {
    await expect(decode(Buffer.from(wire), [])).rejects.toThrow(/aws-chunked/);
  });
});
