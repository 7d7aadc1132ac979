import { Readable } from 'node:stream';
import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { s3LogStore } from './s3-log-store.js';

describe('the S3 step log store', () => {
  it('puts the whole log under the build prefix and says where', async () => {
    const client = new S3Client({ region: 'eu-west-1' });
    const s3 = mockClient(client);
    s3.on(PutObjectCommand).resolves({});
    const where = await s3LogStore('ci-logs', 'builds/', client).put('gh-app-1', 'test', '+ npm test\nok\n');
    expect(where).toBe('s3://ci-logs/builds/gh-app-1/test.log');
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toMatchObject({
      Bucket: 'ci-logs',
      Key: 'builds/gh-app-1/test.log',
      Body: '+ npm test\nok\n',
      ContentType: 'text/plain; charset=utf-8',
    });
  });

  it('never lets a build id or step name climb out of its prefix', async () => {
    const client = new S3Client({ region: 'eu-west-1' });
    mockClient(client).on(PutObjectCommand).resolves({});
    expect(await s3LogStore('b', 'builds/', client).put('../../etc', 'x/y', '')).toBe('s3://b/builds/__.._etc/x_y.log');
  });
});

describe('a running step\'s log in S3', () => {
  /** A bucket in memory behind the real S3 client's send (aws-sdk-client-mock). */
  function bucket() {
    const client = new S3Client({ region: 'eu-west-1' });
    const objects = new Map<string, string>();
    const s3 = mockClient(client);
    s3.on(PutObjectCommand).callsFake(async (input: { Key: string; Body: unknown }) => {
      objects.set(input.Key, await bodyText(input.Body));
      return {};
    });
    s3.on(GetObjectCommand).callsFake(async (input: { Key: string; Range?: string }) => {
      const text = objects.get(input.Key);
      if (text === undefined) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
      const bytes = Buffer.from(text);
      const range = /^bytes=(?:(\d+)-(\d+)|-(\d+))$/.exec(input.Range ?? '');
      const body = !range ? bytes : range[3] ? bytes.subarray(-Number(range[3])) : bytes.subarray(Number(range[1]), Number(range[2]) + 1);
      // What the SDK's Node stream body offers: a Readable with transformToString.
      return { Body: Object.assign(Readable.from([body]), { transformToString: async () => body.toString('utf8') }) };
    });
    s3.on(DeleteObjectsCommand).callsFake(async (input: { Delete: { Objects: { Key: string }[] } }) => {
      for (const { Key } of input.Delete.Objects) objects.delete(Key);
      return {};
    });
    return { client, objects, s3 };
  }

  it('keeps each part as an object of its own, rewritten as it grows', async () => {
    const { client, objects } = bucket();
    const store = s3LogStore('ci-logs', 'builds/', client);
    expect(store.liveLocation('b1', 'test')).toBe('s3://ci-logs/builds/b1/test.log.parts/');
    await store.putPart('b1', 'test', 'one\n', { part: 1, offset: 0 });
    await store.putPart('b1', 'test', 'one\ntwo\n', { part: 1, offset: 0 });
    await store.putPart('b1', 'test', 'three\n', { part: 2, offset: 8 });
    expect(Object.fromEntries(objects)).toEqual({ 'builds/b1/test.log.parts/000001': 'one\ntwo\n', 'builds/b1/test.log.parts/000002': 'three\n' });
  });

  it('ends the log as one object, its parts in order, and deletes them', async () => {
    const { client, objects } = bucket();
    const store = s3LogStore('ci-logs', 'builds/', client);
    for (let part = 1; part <= 12; part++) await store.putPart('b1', 'test', `part ${part}\n`, { part, offset: 0 });
    const ended = await store.complete('b1', 'test', 12);
    expect(ended.location).toBe('s3://ci-logs/builds/b1/test.log');
    const expected = Array.from({ length: 12 }, (_, i) => `part ${i + 1}\n`).join('');
    expect(ended.tail).toBe(expected);
    expect([...objects.keys()]).toEqual(['builds/b1/test.log']);
    expect(objects.get('builds/b1/test.log')).toBe(expected);

    // Asked again (an invocation whose answer was lost): the log stays whole, and its end is read back.
    expect(await store.complete('b1', 'test', 12)).toEqual(ended);
    expect(objects.get('builds/b1/test.log')).toBe(expected);
  });
});

async function bodyText(body: unknown): Promise<string> {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
