import { TokenIssuer } from './service-account-token.js';

const KEY = Buffer.alloc(32, 7);
const issuer = new TokenIssuer('https://kubernetes.default.svc', KEY);
const NOW = new Date('2026-12-06T06:00:00Z');
const request = {
  audience: 'pods.eks.amazonaws.com',
  expirationSeconds: 86400,
  namespace: 'builds',
  serviceAccount: { name: 'step-runner-id-deploy', uid: 'sa-uid' },
  pod: { name: 'b-ship-1', uid: 'pod-uid' },
  node: { name: 'embedded-node', uid: 'node-uid' },
};
const token = issuer.mint(request, NOW);
const [header, payload, signature] = token.split('.') as [string, string, string];
const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
const rewritten = (change: Record<string, unknown>) => `${header}.${Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url')}.${signature}`;

describe('bound service account tokens', () => {
  it("carries the claims kube-apiserver writes (pkg/serviceaccount/claims.go)", () => {
    expect(claims).toEqual({
      aud: ['pods.eks.amazonaws.com'],
      exp: NOW.getTime() / 1000 + 86400,
      iat: NOW.getTime() / 1000,
      nbf: NOW.getTime() / 1000,
      iss: 'https://kubernetes.default.svc',
      jti: expect.any(String),
      sub: 'system:serviceaccount:builds:step-runner-id-deploy',
      'kubernetes.io': { namespace: 'builds', node: request.node, pod: request.pod, serviceaccount: request.serviceAccount },
    });
  });

  it.each([
    { what: 'its own token, for its audience, in its life', token, audience: 'pods.eks.amazonaws.com', at: NOW, problem: undefined },
    { what: 'another audience', token, audience: 'sts.amazonaws.com', at: NOW, problem: 'the token is not for the audience sts.amazonaws.com' },
    { what: 'past its expiry', token, audience: 'pods.eks.amazonaws.com', at: new Date(NOW.getTime() + 86400_000), problem: 'the token has expired' },
    { what: "another cluster's", token: new TokenIssuer('https://kubernetes.default.svc', Buffer.alloc(32, 8)).mint(request, NOW), audience: 'pods.eks.amazonaws.com', at: NOW, problem: expect.stringContaining('signature does not verify') },
    { what: 'claims rewritten to another service account', token: rewritten({ sub: 'system:serviceaccount:builds:step-runner-id-other' }), audience: 'pods.eks.amazonaws.com', at: NOW, problem: expect.stringContaining('signature does not verify') },
    { what: 'not a JWT', token: 'not-a-token', audience: 'pods.eks.amazonaws.com', at: NOW, problem: 'the token is not a JWT' },
  ])('verifies $what', ({ token: given, audience, at, problem }) => {
    const checked = issuer.verify(given, audience, at);
    expect(checked.ok ? undefined : checked.problem).toEqual(problem);
  });
});
