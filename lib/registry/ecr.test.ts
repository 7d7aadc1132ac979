import { ecrCheck } from './ecr.js';
import { manifestTarget } from './reference.js';
import { verdictCache } from './verdict-cache.js';
import { parseImageReference } from '../pipeline/index.js';

describe('ecrCheck (DescribeImages with the function\'s role)', () => {
  const credentials = async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' });
  const signal = new AbortController().signal;
  const answering = (status: number, body: unknown, calls: { url: string; headers: Record<string, string>; body: string }[] = []) =>
    (async (url: string, init: RequestInit) => {
      calls.push({ url, headers: init.headers as Record<string, string>, body: String(init.body) });
      return new Response(JSON.stringify(body), { status });
    }) as unknown as typeof fetch;
  const image = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/app:1.0';

  it('asks DescribeImages, signed, for the repository and tag, in the registry\'s account and region', async () => {
    const calls: { url: string; headers: Record<string, string>; body: string }[] = [];
    const check = ecrCheck({ credentials, fetch: answering(200, { imageDetails: [{ imageDigest: 'sha256:abc', imageManifestMediaType: 'application/vnd.oci.image.index.v1+json' }] }, calls) });
    expect(await check(manifestTarget(parseImageReference(image)), signal)).toEqual({ kind: 'found', digest: 'sha256:abc', mediaType: 'application/vnd.oci.image.index.v1+json' });
    expect(calls[0]!.url).toBe('https://api.ecr.eu-west-1.amazonaws.com/');
    expect(calls[0]!.headers['x-amz-target']).toBe('AmazonEC2ContainerRegistry_V20150921.DescribeImages');
    expect(calls[0]!.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/ecr\/aws4_request/);
    expect(JSON.parse(calls[0]!.body)).toEqual({ registryId: '123456789012', repositoryName: 'team/app', imageIds: [{ imageTag: '1.0' }] });
  });

  it('asks by digest for a digest reference', async () => {
    const calls: { url: string; headers: Record<string, string>; body: string }[] = [];
    const digest = `sha256:${'a'.repeat(64)}`;
    await ecrCheck({ credentials, fetch: answering(200, { imageDetails: [{}] }, calls) })(manifestTarget(parseImageReference(`123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/app@${digest}`)), signal);
    expect(JSON.parse(calls[0]!.body).imageIds).toEqual([{ imageDigest: digest }]);
  });

  it.each<[string, number, unknown, { kind: string; reason?: string }]>([
    ['an unknown tag', 400, { __type: 'ImageNotFoundException', message: "The image with imageId {imageTag:'1.0'} does not exist" }, { kind: 'not-found' }],
    ['an unknown repository', 400, { __type: 'RepositoryNotFoundException', message: 'The repository does not exist' }, { kind: 'not-found' }],
    ['no permission (another account)', 400, { __type: 'AccessDeniedException', Message: 'not authorized to perform: ecr:DescribeImages' }, { kind: 'inconclusive', reason: 'unauthorized' }],
    ['throttling', 400, { __type: 'ThrottlingException', message: 'Rate exceeded' }, { kind: 'inconclusive', reason: 'rate-limited' }],
    ['a server error', 500, { __type: 'ServerException', message: 'oops' }, { kind: 'inconclusive', reason: 'registry-error' }],
  ])('%s', async (_title, status, body, expected) => {
    expect(await ecrCheck({ credentials, fetch: answering(status, body) })(manifestTarget(parseImageReference(image)), signal)).toMatchObject(expected);
  });

  it('names ECR\'s words for a missing image', async () => {
    const verdict = await ecrCheck({ credentials, fetch: answering(400, { __type: 'ImageNotFoundException', message: 'The image does not exist' }) })(manifestTarget(parseImageReference(image)), signal);
    expect(verdict).toEqual({ kind: 'not-found', status: 400, words: '400 ImageNotFoundException: The image does not exist' });
  });

  it('is inconclusive without credentials, and leaves other registries alone', async () => {
    const none = ecrCheck({ credentials: async () => Promise.reject(new Error('Could not load credentials from any providers')) });
    expect(await none(manifestTarget(parseImageReference(image)), signal)).toMatchObject({ kind: 'inconclusive', reason: 'unreachable' });
    expect(none(manifestTarget(parseImageReference('ghcr.io/team/app:1')), signal)).toBeUndefined();
  });
});

describe('verdictCache', () => {
  it('keeps found for 60 s, not found for 15 s, inconclusive never', () => {
    let now = 0;
    const cache = verdictCache(() => now);
    cache.set('found', { kind: 'found', digest: 'sha256:1' });
    cache.set('missing', { kind: 'not-found', status: 404, words: '404' });
    cache.set('maybe', { kind: 'inconclusive', reason: 'timeout', words: 'slow' });
    expect(cache.get('maybe')).toBeUndefined();
    now = 14_999;
    expect(cache.get('missing')?.kind).toBe('not-found');
    now = 15_000;
    expect(cache.get('missing')).toBeUndefined();
    now = 59_999;
    expect(cache.get('found')?.kind).toBe('found');
    now = 60_000;
    expect(cache.get('found')).toBeUndefined();
  });

  it('drops the oldest entry past its size', () => {
    const cache = verdictCache(() => 0, 2);
    for (const key of ['a', 'b', 'c']) cache.set(key, { kind: 'found' });
    expect(['a', 'b', 'c'].map((key) => cache.get(key) !== undefined)).toEqual([false, true, true]);
  });
});
