import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { S3Error } from './s3-errors.js';
import { verifySignature, type ReceivedRequest } from './sigv4.js';

const credentials = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' };
const signer = new SignatureV4({ service: 's3', region: 'us-east-1', credentials, sha256: Sha256, uriEscapePath: false, applyChecksum: true });
const signedAt = new Date('2026-12-02T01:00:00Z');
const now = signedAt.getTime() + 30_000;

/** As @aws-sdk/s3-request-presigner does: S3 signs a presigned URL's payload as UNSIGNED-PAYLOAD. */
function presign(unsigned: HttpRequest, options: { signingDate: Date; expiresIn: number }): Promise<HttpRequest> {
  unsigned.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
  return signer.presign(unsigned, options) as Promise<HttpRequest>;
}

/** What the server sees of a request the SDK's signer signed: the path as sent, the query decoded. */
function received(request: HttpRequest): ReceivedRequest {
  const query = Object.entries(request.query).flatMap(([name, value]) => (Array.isArray(value) ? value.map((v) => [name, v] as const) : [[name, value ?? ''] as const]));
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { method: request.method, rawPath: request.path, query, headers };
}

function request(path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): HttpRequest {
  return new HttpRequest({ method: 'GET', hostname: '127.0.0.1', port: 9000, path, query, headers: { host: '127.0.0.1:9000', ...headers } });
}

const encodedKey = `/bucket/${"a b/c+d!*'()é日本".split('/').map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)).join('/')}`;

function failureOf(run: () => unknown): { status: number; code: string; message: string } | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof S3Error) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  return undefined;
}

describe('SigV4 as S3 checks it', () => {
  it.each([
    ['a plain path', request('/bucket/key')],
    ['an encoded key', request(encodedKey)],
    ['a list query', request('/bucket/', { 'list-type': '2', prefix: 'a b/', 'continuation-token': 'x+y=' })],
    ['headers with runs of spaces', request('/bucket/key', {}, { 'x-amz-meta-note': '  two   spaces  ', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' })],
  ])('accepts what the SDK\'s signer signs in the Authorization header: %s', async (_, unsigned) => {
    const signed = (await signer.sign(unsigned, { signingDate: signedAt })) as HttpRequest;
    expect(verifySignature(received(signed), { credentials, region: 'us-east-1', now })).toMatchObject({ form: 'header' });
  });

  it.each([
    ['a plain path', request('/bucket/key')],
    ['an encoded key and a conditional header', request(encodedKey, { 'x-id': 'PutObject' }, { 'if-none-match': '*' })],
  ])('accepts what the SDK\'s signer presigns: %s', async (_, unsigned) => {
    const signed = await presign(unsigned, { signingDate: signedAt, expiresIn: 60 });
    expect(verifySignature(received(signed), { credentials, region: 'us-east-1', now })).toEqual({ form: 'query', payloadHash: 'UNSIGNED-PAYLOAD' });
  });

  it.each([
    ['an expired URL', { now: signedAt.getTime() + 61_000 }, { status: 403, code: 'AccessDenied', message: 'Request has expired' }],
    ['another secret', { credentials: { ...credentials, secretAccessKey: 'other' } }, { status: 403, code: 'SignatureDoesNotMatch' }],
    ['another access key', { credentials: { ...credentials, accessKeyId: 'OTHER' } }, { status: 403, code: 'InvalidAccessKeyId' }],
    ['another region', { region: 'eu-west-1' }, { status: 400, code: 'AuthorizationHeaderMalformed' }],
  ])('refuses a presigned URL checked with %s', async (_, change, expected) => {
    const signed = await presign(request('/bucket/key'), { signingDate: signedAt, expiresIn: 60 });
    expect(failureOf(() => verifySignature(received(signed), { credentials, region: 'us-east-1', now, ...change }))).toMatchObject(expected);
  });

  describe("with a session's credentials", () => {
    const session = { ...credentials, sessionToken: 'session-token', expiration: signedAt.getTime() + 15 * 60_000 };
    const sessionSigner = new SignatureV4({ service: 's3', region: 'us-east-1', credentials: { ...credentials, sessionToken: session.sessionToken }, sha256: Sha256, uriEscapePath: false, applyChecksum: true });
    // A URL that would live a day, signed by a session that ends after 15 minutes.
    const presignDay = () => sessionSigner.presign(request('/bucket/key', {}, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }), { signingDate: signedAt, expiresIn: 24 * 60 * 60 }) as Promise<HttpRequest>;

    it.each([
      ['before the session ends: accepted', signedAt.getTime() + 14 * 60_000, undefined],
      ['once it has ended, though the URL has hours left: ExpiredToken', signedAt.getTime() + 15 * 60_000, { status: 400, code: 'ExpiredToken', message: 'The provided token has expired.' }],
    ])('a presigned URL checked %s', async (_, at, expected) => {
      const signed = await presignDay();
      expect(failureOf(() => verifySignature(received(signed), { credentials: session, region: 'us-east-1', now: at }))).toEqual(expected === undefined ? undefined : expect.objectContaining(expected));
    });

    it('refuses a URL signed without the token, or with another', async () => {
      const withoutToken = await presign(request('/bucket/key'), { signingDate: signedAt, expiresIn: 60 });
      expect(failureOf(() => verifySignature(received(withoutToken), { credentials: session, region: 'us-east-1', now }))).toMatchObject({ status: 400, code: 'InvalidToken' });
      const other = await presignDay();
      expect(failureOf(() => verifySignature(received(other), { credentials: { ...session, sessionToken: 'another' }, region: 'us-east-1', now }))).toMatchObject({ status: 400, code: 'InvalidToken' });
    });
  });

  it('refuses a header-signed request from a skewed clock, and one that is not signed', async () => {
    const signed = (await signer.sign(request('/bucket/key'), { signingDate: signedAt })) as HttpRequest;
    expect(failureOf(() => verifySignature(received(signed), { credentials, region: 'us-east-1', now: now + 16 * 60_000 }))).toMatchObject({ status: 403, code: 'RequestTimeTooSkewed' });
    expect(failureOf(() => verifySignature(received(request('/bucket/key')), { credentials, region: 'us-east-1', now }))).toMatchObject({ status: 403, code: 'AccessDenied' });
  });
});
