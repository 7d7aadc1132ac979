/**
 * The step identity's credentials on AWS: the pod-bound token LaunchStep hands it (asked once
 * per exchange) sent to EKS Auth in the request it signs, as the service model describes
 * AssumeRoleForPodIdentity; the answer's credentials, and an error in AWS's words.
 */
import { eksAuthEndpoint, podIdentityCredentials } from './pod-identity-credentials.js';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOlsicG9kcy5la3MuYW1hem9uYXdzLmNvbSJdfQ.c2ln';

function setup(answer: { status: number; body: unknown; headers?: Record<string, string> }) {
  const tokenRequests: number[] = [];
  const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
  const request = { identity: 'deploy', serviceAccount: 'step-runner-id-deploy', namespace: 'ci', podName: 'b-1-ship-abc', podUid: 'u-1', podToken: async () => (tokenRequests.push(1), TOKEN) };
  const fetcher = (async (url: URL, init: RequestInit) => {
    sent.push({ url: String(url), headers: init.headers as Record<string, string>, body: String(init.body) });
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers ?? {} });
  }) as unknown as typeof fetch;
  const provider = podIdentityCredentials({ clusterName: 'ci', region: 'eu-west-1', credentials: async () => ({ accessKeyId: 'AKIDRUNNER', secretAccessKey: 'x' }), env: {}, fetch: fetcher })(request);
  return { provider, tokenRequests, sent };
}

it('sends EKS Auth the pod-bound token it is given, and keeps the credentials while they are fresh', async () => {
  const expiration = Math.floor(Date.now() / 1000) + 3600;
  const { provider, tokenRequests, sent } = setup({ status: 200, body: { credentials: { accessKeyId: 'ASIADEPLOY', secretAccessKey: 's', sessionToken: 't', expiration }, assumedRoleUser: { arn: 'arn:aws:sts::123456789012:assumed-role/deploy/eks-ci-b-1', assumeRoleId: 'AROA:x' } } });

  expect(await provider()).toEqual({ accessKeyId: 'ASIADEPLOY', secretAccessKey: 's', sessionToken: 't', expiration: new Date(expiration * 1000) });
  await provider();
  expect(tokenRequests).toHaveLength(1);
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
