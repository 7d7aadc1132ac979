/**
 * The pure parts of an ECR login: which references name ECR registries (and which repositories),
 * what an ECR token stands for (base64 of "AWS:PASSWORD", as GetAuthorizationToken answers it:
 * docs.aws.amazon.com/AmazonECR/latest/APIReference/API_AuthorizationData.html), the endpoint the
 * SDKs' variables choose, and the login document a build pod reads. The call itself is held to
 * moto's ECR backend in test/aws-secrets-builds.integration.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { decodeEcrAuth, ecrApiEndpoint, ecrRegistriesOf } from './ecr-login.js';
import { ecrRepositoryOf } from './ecr-host.js';
import { withRegistryAuths } from './docker-config.js';

const EU = '123456789012.dkr.ecr.eu-west-1.amazonaws.com';
const US = '210987654321.dkr.ecr.us-east-1.amazonaws.com';

describe('ecrRepositoryOf', () => {
  it.each([
    [`${EU}/team/app:1.4`, { host: EU, accountId: '123456789012', region: 'eu-west-1', repository: 'team/app' }],
    [`${EU}/app@sha256:${'a'.repeat(64)}`, { host: EU, accountId: '123456789012', region: 'eu-west-1', repository: 'app' }],
    [`${EU}/cache`, { host: EU, accountId: '123456789012', region: 'eu-west-1', repository: 'cache' }],
    ['123456789012.dkr.ecr-fips.us-gov-west-1.amazonaws.com/app:1', { host: '123456789012.dkr.ecr-fips.us-gov-west-1.amazonaws.com', accountId: '123456789012', region: 'us-gov-west-1', repository: 'app' }],
    ['123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/app:1', { host: '123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn', accountId: '123456789012', region: 'cn-north-1', repository: 'app' }],
    ['ghcr.io/org/app:1', undefined],
    ['127.0.0.1:5000/app:1', undefined],
    // ECR Public is another service (ecr-public's token), not a private registry's.
    ['public.ecr.aws/org/app:1', undefined],
    ['12345.dkr.ecr.eu-west-1.amazonaws.com/app:1', undefined],
    [EU, undefined],
  ])('%s', (reference, expected) => {
    expect(ecrRepositoryOf(reference)).toEqual(expected);
  });
});

describe('ecrRegistriesOf', () => {
  it('lists each ECR registry once, in the order named, with its repositories, and leaves the others', () => {
    expect(ecrRegistriesOf([`${EU}/team/app:1.4`, 'ghcr.io/org/app:1.4', `${EU}/team/app:latest`, `${US}/mirror/app:1.4`, `${EU}/team/cache`])).toEqual([
      { host: EU, accountId: '123456789012', region: 'eu-west-1', repositories: ['team/app', 'team/cache'] },
      { host: US, accountId: '210987654321', region: 'us-east-1', repositories: ['mirror/app'] },
    ]);
    expect(ecrRegistriesOf(['ghcr.io/org/app:1', 'localhost:5000/app'])).toEqual([]);
  });
});

describe('decodeEcrAuth', () => {
  it.each([
    // moto's answer for account 123456789012, as its ECR backend makes it.
    ['QVdTOjEyMzQ1Njc4OTAxMi1hdXRoLXRva2Vu', { username: 'AWS', password: '123456789012-auth-token' }],
    [Buffer.from('AWS:pa:ss').toString('base64'), { username: 'AWS', password: 'pa:ss' }],
    [Buffer.from('AWS').toString('base64'), undefined],
    [Buffer.from('AWS:').toString('base64'), undefined],
    ['not base64!', undefined],
  ])('%s', (token, expected) => {
    expect(decodeEcrAuth(token)).toEqual(expected);
  });
});

describe('ecrApiEndpoint', () => {
  it.each([
    [{}, 'https://api.ecr.eu-west-1.amazonaws.com/'],
    [{ AWS_ENDPOINT_URL: 'http://127.0.0.1:5001' }, 'http://127.0.0.1:5001/'],
    [{ AWS_ENDPOINT_URL: 'http://127.0.0.1:5001', AWS_ENDPOINT_URL_ECR: 'http://127.0.0.1:5002' }, 'http://127.0.0.1:5002/'],
    [{ AWS_ENDPOINT_URL_ECR: '' }, 'https://api.ecr.eu-west-1.amazonaws.com/'],
  ])('%j', (env, expected) => {
    expect(ecrApiEndpoint('eu-west-1', env).href).toBe(expected);
  });
});

describe('withRegistryAuths', () => {
  const token = 'QVdTOjEyMzQ1Njc4OTAxMi1hdXRoLXRva2Vu';
  it.each([
    ['no pull secret', undefined, { auths: { [EU]: { auth: token } } }],
    [
      "a pull secret's other registries kept, its own login for the ECR host replaced",
      JSON.stringify({ auths: { 'ghcr.io': { auth: 'Z2g6cGF0' }, [`https://${EU}`]: { auth: 'b2xkOm9sZA==' } }, credsStore: 'none' }),
      { auths: { 'ghcr.io': { auth: 'Z2g6cGF0' }, [EU]: { auth: token } }, credsStore: 'none' },
    ],
    ['a pull secret that is not JSON', '{', { auths: { [EU]: { auth: token } } }],
  ])('%s', (_, base, expected) => {
    expect(JSON.parse(withRegistryAuths(base, { [EU]: token }))).toEqual(expected);
  });
});
