import { isLoopbackHost, manifestTarget, manifestUrl } from './reference.js';
import { parseChallenge } from './challenge.js';
import { configKeyHost, parseDockerConfigs } from './docker-config.js';
import { ecrRegistry } from './ecr.js';
import { parseImageReference } from '../pipeline/index.js';

describe('manifestUrl', () => {
  it.each([
    ['alpine:3.20', 'https://registry-1.docker.io/v2/library/alpine/manifests/3.20'],
    ['alpine', 'https://registry-1.docker.io/v2/library/alpine/manifests/latest'],
    ['ghcr.io/org/app@sha256:' + 'a'.repeat(64), `https://ghcr.io/v2/org/app/manifests/sha256:${'a'.repeat(64)}`],
    ['ghcr.io/org/app:1@sha256:' + 'a'.repeat(64), `https://ghcr.io/v2/org/app/manifests/sha256:${'a'.repeat(64)}`],
    ['localhost:5000/team/app:1', 'http://localhost:5000/v2/team/app/manifests/1'],
    ['127.0.0.1:5000/team/app:1', 'http://127.0.0.1:5000/v2/team/app/manifests/1'],
    ['registry.example.com:5000/team/app:1', 'https://registry.example.com:5000/v2/team/app/manifests/1'],
  ])('%s -> %s', (image, url) => {
    expect(manifestUrl(manifestTarget(parseImageReference(image))).href).toBe(url);
  });

  it('asks a mirror with the upstream in ns', () => {
    expect(manifestUrl(manifestTarget(parseImageReference('alpine:3.20')), 'http://127.0.0.1:9999').href).toBe('http://127.0.0.1:9999/v2/library/alpine/manifests/3.20?ns=docker.io');
  });

  it.each([
    ['localhost', true],
    ['localhost:5000', true],
    ['127.0.0.1:80', true],
    ['[::1]:5000', true],
    ['127.example.com', false],
    ['registry.local', false],
  ])('%s is loopback: %s', (host, loopback) => expect(isLoopbackHost(host)).toBe(loopback));
});

describe('parseChallenge', () => {
  it('reads a Bearer challenge', () => {
    expect(parseChallenge('Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/alpine:pull"')).toEqual({
      scheme: 'bearer',
      params: { realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:library/alpine:pull' },
    });
  });
  it('reads a Basic challenge', () => expect(parseChallenge('Basic realm="basic-realm"')).toEqual({ scheme: 'basic', params: { realm: 'basic-realm' } }));
  it('has none without the header', () => expect(parseChallenge(null)).toBeUndefined());
});

describe('docker configs', () => {
  const auth = (text: string) => Buffer.from(text).toString('base64');
  it.each([
    ['https://index.docker.io/v1/', 'docker.io'],
    ['docker.io', 'docker.io'],
    ['registry-1.docker.io', 'docker.io'],
    ['ghcr.io', 'ghcr.io'],
    ['https://registry.example.com:5000/v2/', 'registry.example.com:5000'],
  ])('key %s is %s', (key, host) => expect(configKeyHost(key)).toBe(host));

  it('takes auth or username/password, the first document first, and skips what it cannot read', () => {
    const table = parseDockerConfigs([
      'not json',
      JSON.stringify({ auths: { 'https://index.docker.io/v1/': { auth: auth('hub:secret:with:colons') }, 'ghcr.io': { username: 'me', password: 'pat' } } }),
      JSON.stringify({ auths: { 'ghcr.io': { auth: auth('other:x') }, 'broken.example': { auth: auth('nocolon') } } }),
    ]);
    expect(Object.fromEntries(table)).toEqual({ 'docker.io': { username: 'hub', password: 'secret:with:colons' }, 'ghcr.io': { username: 'me', password: 'pat' } });
  });
});

describe('ecrRegistry', () => {
  it.each([
    ['123456789012.dkr.ecr.eu-west-1.amazonaws.com', { accountId: '123456789012', region: 'eu-west-1' }],
    ['123456789012.dkr.ecr-fips.us-east-1.amazonaws.com', { accountId: '123456789012', region: 'us-east-1' }],
    ['123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn', { accountId: '123456789012', region: 'cn-north-1' }],
    ['public.ecr.aws', undefined],
    ['ghcr.io', undefined],
  ])('%s', (host, expected) => expect(ecrRegistry(host)).toEqual(expected));
});
