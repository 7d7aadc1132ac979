import { createHash, createHmac } from 'node:crypto';
import { CLUSTER_ID_HEADER, eksToken, EKS_TOKEN_PREFIX, stsHostname } from './eks-token.js';

const credentials = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  sessionToken: 'FwoGZXIvYXdzEXAMPLE/session+token==',
};
const signingDate = new Date('2026-03-14T09:26:53.000Z');

function decode(token: string): URL {
  expect(token.startsWith(EKS_TOKEN_PREFIX)).toBe(true);
  const encoded = token.slice(EKS_TOKEN_PREFIX.length);
  expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/); // base64url, no padding
  return new URL(Buffer.from(encoded, 'base64url').toString('utf8'));
}

/** AWS Signature Version 4, written from the spec: what STS will recompute when EKS asks it. */
function expectedSignature(url: URL, headers: Record<string, string>, secret: string): string {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== 'X-Amz-Signature');
  const encode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = params
    .map(([k, v]) => [encode(k), encode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const names = Object.keys(headers).sort();
  const canonicalRequest = [
    'GET',
    '/',
    canonicalQuery,
    ...names.map((n) => `${n}:${headers[n]}`),
    '',
    names.join(';'),
    createHash('sha256').update('').digest('hex'),
  ].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date')!;
  const [, scopeDate, region, service] = url.searchParams.get('X-Amz-Credential')!.split('/');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    `${scopeDate}/${region}/${service}/aws4_request`,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, scopeDate!), region!), service!), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

describe('eksToken', () => {
  it('is a k8s-aws-v1 token wrapping a presigned STS GetCallerIdentity URL', async () => {
    const { token } = await eksToken({
      clusterName: 'ci-cluster',
      region: 'eu-west-1',
      credentials: async () => credentials,
      now: () => signingDate,
    });
    const url = decode(token);
    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    const q = url.searchParams;
    expect(q.get('Action')).toBe('GetCallerIdentity');
    expect(q.get('Version')).toBe('2011-06-15');
    expect(q.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(q.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(q.get('X-Amz-Expires')).toBe('60');
    expect(q.get('X-Amz-Date')).toBe('20260314T092653Z');
    expect(q.get('X-Amz-Credential')).toBe('AKIAIOSFODNN7EXAMPLE/20260314/eu-west-1/sts/aws4_request');
    expect(q.get('X-Amz-Security-Token')).toBe(credentials.sessionToken);
    expect(q.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    // The cluster name is signed as a header, never carried in the URL.
    expect(q.get(CLUSTER_ID_HEADER)).toBeNull();
  });

  it('carries a signature that an independent SigV4 computation agrees with', async () => {
    const { token } = await eksToken({
      clusterName: 'ci-cluster',
      region: 'eu-west-1',
      credentials: async () => credentials,
      now: () => signingDate,
    });
    const url = decode(token);
    const headers = { host: 'sts.eu-west-1.amazonaws.com', 'x-k8s-aws-id': 'ci-cluster' };
    expect(url.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(url, headers, credentials.secretAccessKey));
    // ...and the signature really binds the cluster: another cluster name does not verify.
    expect(url.searchParams.get('X-Amz-Signature')).not.toBe(
      expectedSignature(url, { ...headers, 'x-k8s-aws-id': 'other-cluster' }, credentials.secretAccessKey),
    );
  });

  it('expires about 14 minutes after signing, or when the credentials do', async () => {
    const plain = await eksToken({
      clusterName: 'c',
      region: 'us-east-1',
      credentials: async () => ({ accessKeyId: 'AKID', secretAccessKey: 'secret' }),
      now: () => signingDate,
    });
    expect(plain.expiresAt.getTime() - signingDate.getTime()).toBe(14 * 60_000);
    expect(decode(plain.token).searchParams.has('X-Amz-Security-Token')).toBe(false);

    const shortLived = await eksToken({
      clusterName: 'c',
      region: 'us-east-1',
      credentials: async () => ({ ...credentials, expiration: new Date(signingDate.getTime() + 5 * 60_000) }),
      now: () => signingDate,
    });
    expect(shortLived.expiresAt.getTime() - signingDate.getTime()).toBe(5 * 60_000);
  });
});

describe('the STS endpoint the token is signed for', () => {
  it.each([
    ['eu-west-1', 'sts.eu-west-1.amazonaws.com'],
    ['cn-north-1', 'sts.cn-north-1.amazonaws.com.cn'],
    ['us-gov-west-1', 'sts.us-gov-west-1.amazonaws.com'],
    ['us-iso-east-1', 'sts.us-iso-east-1.c2s.ic.gov'],
  ])('follows the partition of %s', (region, host) => {
    expect(stsHostname(region)).toBe(host);
  });
});
