/**
 * The step identity's credentials on AWS: the TokenRequest the runner makes (the identity's
 * account, Pod Identity's audience) and the EKS Auth request it signs, as the service model
 * describes AssumeRoleForPodIdentity; the answer's credentials, and an error in AWS's words.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { eksAuthEndpoint, podIdentityCredentials, POD_IDENTITY_AUDIENCE } from './pod-identity-credentials.js';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOlsicG9kcy5la3MuYW1hem9uYXdzLmNvbSJdfQ.c2ln';
const REQUEST = { identity: 'deploy', serviceAccount: 'step-runner-id-deploy', namespace: 'ci', podName: 'b-1-ship-abc' };

function setup(answer: { status: number; body: unknown; headers?: Record<string, string> }) {
  const tokenRequests: unknown[] = [];
  const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
  const kube = async () =>
    ({
      createNamespacedServiceAccountToken: async (request: unknown) => (tokenRequests.push(request), { spec: { audiences: [] }, status: { token: TOKEN, expirationTimestamp: new Date() } }),
    }) as unknown as Pick<CoreV1Api, 'createNamespacedServiceAccountToken'>;
  const fetcher = (async (url: URL, init: RequestInit) => {
    sent.push({ url: String(url), headers: init.headers as Record<string, string>, body: String(init.body) });
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers ?? {} });
  }) as unknown as typeof fetch;
  const provider = podIdentityCredentials({ clusterName: 'ci', region: 'eu-west-1', kube, credentials: async () => ({ accessKeyId: 'AKIDRUNNER', secretAccessKey: 'x' }), env: {}, fetch: fetcher })(REQUEST);
  return { provider, tokenRequests, sent };
}

it('asks Kubernetes for a token of the identity\'s account for Pod Identity\'s audience, and EKS Auth for its credentials', async () => {
  const expiration = Date.parse('2026-03-14T11:00:00Z') / 1000;
  const { provider, tokenRequests, sent } = setup({ status: 200, body: { credentials: { accessKeyId: 'ASIADEPLOY', secretAccessKey: 's', sessionToken: 't', expiration }, assumedRoleUser: { arn: 'arn:aws:sts::123456789012:assumed-role/deploy/eks-ci-b-1', assumeRoleId: 'AROA:x' } } });

  expect(await provider()).toEqual({ accessKeyId: 'ASIADEPLOY', secretAccessKey: 's', sessionToken: 't', expiration: new Date(expiration * 1000) });
  expect(tokenRequests).toEqual([{ name: 'step-runner-id-deploy', namespace: 'ci', body: { spec: { audiences: [POD_IDENTITY_AUDIENCE], expirationSeconds: 600 } } }]);
  expect(sent).toHaveLength(1);
  expect(sent[0]!.url).toBe('https://eks-auth.eu-west-1.api.aws/clusters/ci/assume-role-for-pod-identity');
  expect(JSON.parse(sent[0]!.body)).toEqual({ token: TOKEN });
  expect(sent[0]!.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDRUNNER\/\d{8}\/eu-west-1\/eks-auth\/aws4_request, SignedHeaders=\S*content-type;host/);
});

it('rejects with AWS\'s error name and message', async () => {
  const { provider } = setup({ status: 400, body: { message: 'Token is not valid for pod identity' }, headers: { 'x-amzn-errortype': 'InvalidTokenException:http://internal' } });
  await expect(provider()).rejects.toMatchObject({ name: 'InvalidTokenException', message: 'Token is not valid for pod identity' });
});

it.each([
  [{}, 'https://eks-auth.eu-west-1.api.aws/'],
  [{ AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' }, 'http://127.0.0.1:5000/'],
  [{ AWS_ENDPOINT_URL: 'http://127.0.0.1:5000', AWS_ENDPOINT_URL_EKS_AUTH: 'http://127.0.0.1:6000' }, 'http://127.0.0.1:6000/'],
])('takes its endpoint from %p', (env, url) => {
  expect(String(eksAuthEndpoint('eu-west-1', env))).toBe(url);
});
