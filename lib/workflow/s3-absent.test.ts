import { ListObjectsV2Command, NoSuchKey, NotFound, S3ServiceException, type S3Client } from '@aws-sdk/client-s3';
import { objectAbsent } from './s3-absent.js';

/** S3's errors as the SDK throws them: the status on $metadata. */
const refused = (status: number, name: string) => new S3ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: status }, message: name });

/** A client whose listings answer `listing` (keys, or an error), and that records what it was asked. */
function s3With(listing: string[] | Error) {
  const asked: unknown[] = [];
  const client = {
    send: async (command: unknown) => {
      asked.push(command);
      if (!(command instanceof ListObjectsV2Command)) throw new Error('only listings here');
      if (listing instanceof Error) throw listing;
      return { Contents: listing.map((Key) => ({ Key })) };
    },
  } as unknown as S3Client;
  return { client, asked };
}

const KEY = 'concurrency/abc.json';

describe('objectAbsent', () => {
  it.each([
    ['NoSuchKey (GetObject, a caller that may list)', new NoSuchKey({ $metadata: { httpStatusCode: 404 }, message: 'The specified key does not exist.' })],
    ['NotFound (HeadObject, a caller that may list)', new NotFound({ $metadata: { httpStatusCode: 404 }, message: 'Not Found' })],
    ['a bare 404', refused(404, 'Unknown')],
  ])('takes %s for an absence without asking again', async (_what, error) => {
    const { client, asked } = s3With(new Error('not asked'));
    await expect(objectAbsent(error, client, 'bucket', KEY)).resolves.toBe(true);
    expect(asked).toEqual([]);
  });

  it.each([
    ['no key at all', [], true],
    ['only a longer key that starts with it', [`${KEY}.old`], true],
    ['the key itself: the 403 was a refusal', [KEY], false],
  ])("takes a 403 for an absence only when a listing of the key shows %s", async (_what, keys, absent) => {
    const { client, asked } = s3With(keys);
    await expect(objectAbsent(refused(403, 'AccessDenied'), client, 'bucket', KEY)).resolves.toBe(absent);
    // One listing, naming the key as its prefix: what a role whose listings must name a prefix may do.
    expect(asked).toHaveLength(1);
    expect((asked[0] as ListObjectsV2Command).input).toEqual({ Bucket: 'bucket', Prefix: KEY, MaxKeys: 1 });
  });

  it('leaves a 403 a refusal when the listing is refused too', async () => {
    const { client } = s3With(refused(403, 'AccessDenied'));
    await expect(objectAbsent(refused(403, 'Forbidden'), client, 'bucket', KEY)).resolves.toBe(false);
  });

  it.each([
    ['a server error', refused(500, 'InternalError')],
    ['a network failure', new Error('socket hang up')],
    ['a body that is not JSON', new SyntaxError('Unexpected token')],
  ])('never takes %s for an absence', async (_what, error) => {
    const { client, asked } = s3With([]);
    await expect(objectAbsent(error, client, 'bucket', KEY)).resolves.toBe(false);
    expect(asked).toEqual([]);
  });
});
