/**
 * The TokenRequest API as kube-apiserver answers it (kubernetes/kubernetes
 * pkg/registry/core/serviceaccount/storage/token.go; pkg/apis/authentication/validation): a token
 * bound to a pod of the account names that pod, and no node while it has none (a gated pod); each
 * refusal in the API server's words. And EKS Auth's stand-in (pod-identity-agent.ts), which takes a
 * token bound to a live pod of an associated account and refuses one bound to no pod, as EKS Pod
 * Identity does (aws/eks-pod-identity-agent claims_validation.go; fluxcd/flux2 PR #5309).
 */
import type { Pod } from './objects.js';
import { podIdentityAuth } from './pod-identity-agent.js';
import { TokenIssuer } from './service-account-token.js';
import { ObjectStore } from './store.js';
import { requestToken } from './token-request.js';

const now = () => new Date('2026-01-01T00:00:05Z');
const AUDIENCE = 'pods.eks.amazonaws.com';

function cluster() {
  const store = new ObjectStore(now);
  store.create('namespaces', { metadata: { name: 'ci' } });
  store.create('serviceaccounts', { metadata: { name: 'step-runner-id-deploy', namespace: 'ci' } });
  store.create('serviceaccounts', { metadata: { name: 'default', namespace: 'ci' } });
  const gated: Pod = { metadata: { name: 'ship', namespace: 'ci' }, spec: { serviceAccountName: 'step-runner-id-deploy', schedulingGates: [{ name: 'step-runner.dev/identity-reads' }], containers: [{ name: 'step', image: 'alpine' }] } };
  const pod = store.create('pods', gated) as Pod;
  store.create('pods', { metadata: { name: 'other', namespace: 'ci' }, spec: { containers: [{ name: 'step', image: 'alpine' }] } } as Pod);
  const tokens = new TokenIssuer('https://kubernetes.default.svc');
  return { store, tokens, pod, ask: (account: string, body: unknown) => requestToken({ store, now, tokens }, 'ci', account, body) };
}

const bound = (name: string, uid: string, extra: Record<string, unknown> = {}) => ({ spec: { audiences: [AUDIENCE], expirationSeconds: 600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name, uid }, ...extra } });

test('a token bound to a gated pod of the account names the pod, no node, for the audience asked, until its expiry', () => {
  const { ask, tokens, pod } = cluster();
  const answer = ask('step-runner-id-deploy', bound('ship', pod.metadata.uid!)) as { status: { token: string; expirationTimestamp: string } };
  const checked = tokens.verify(answer.status.token, AUDIENCE, now());
  expect(checked.ok && checked.claims['kubernetes.io']).toEqual({ namespace: 'ci', pod: { name: 'ship', uid: pod.metadata.uid }, serviceaccount: { name: 'step-runner-id-deploy', uid: expect.any(String) } });
  expect(checked.ok && checked.claims.exp - checked.claims.iat).toBe(600);
  expect(answer.status.expirationTimestamp).toBe('2026-01-01T00:10:05Z');
});

test.each<[string, string, (uid: string) => unknown, Record<string, unknown>]>([
  ['an account that does not exist', 'nobody', (uid) => bound('ship', uid), { code: 404, message: 'serviceaccounts "nobody" not found' }],
  ['a pod that does not exist', 'step-runner-id-deploy', () => bound('gone', ''), { code: 404, message: 'pods "gone" not found' }],
  ['a pod of another account', 'step-runner-id-deploy', () => bound('other', ''), { code: 400, message: 'cannot bind token for serviceaccount "step-runner-id-deploy" to pod running with serviceaccount "default"' }],
  ['another uid (the pod made again)', 'step-runner-id-deploy', () => bound('ship', 'old-uid'), { code: 409, message: expect.stringContaining('the UID in the bound object reference (old-uid) does not match the UID in record') }],
  ['an object of another kind', 'step-runner-id-deploy', () => ({ spec: { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n' } } }), { code: 400, message: 'cannot bind token to object of type v1, Kind=Node' }],
  ['less than 10 minutes', 'step-runner-id-deploy', (uid) => bound('ship', uid, { expirationSeconds: 60 }), { code: 422, message: expect.stringContaining('spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes') }],
])('refuses %s', (_name, account, body, refusal) => {
  const { ask, pod } = cluster();
  expect(() => ask(account, body(pod.metadata.uid!))).toThrow(expect.objectContaining(refusal));
});

describe("the embedded cluster's EKS Auth", () => {
  const setup = cluster();
  const auth = podIdentityAuth(
    {
      clusterName: 'embedded',
      clusterArn: 'arn:aws:eks:us-east-1:123456789012:cluster/embedded',
      associations: [{ namespace: 'ci', serviceAccount: 'step-runner-id-deploy', roleArn: 'arn:aws:iam::123456789012:role/deploy' }],
      credentials: async ({ podName }) => ({ accessKeyId: `ASIA-${podName}`, secretAccessKey: 's' }),
    },
    { store: setup.store, tokens: setup.tokens, now },
  );

  test("gives a token bound to the step's pod that pod's credentials", async () => {
    const answer = setup.ask('step-runner-id-deploy', bound('ship', setup.pod.metadata.uid!)) as { status: { token: string } };
    await expect(auth(answer.status.token)).resolves.toMatchObject({ credentials: { accessKeyId: 'ASIA-ship', secretAccessKey: 's' } });
  });

  test('refuses a token bound to no pod, as EKS Pod Identity does', async () => {
    const answer = setup.ask('step-runner-id-deploy', { spec: { audiences: [AUDIENCE], expirationSeconds: 600 } }) as { status: { token: string } };
    await expect(auth(answer.status.token)).rejects.toMatchObject({ name: 'InvalidTokenException', message: expect.stringContaining('it is bound to no pod') });
  });
});
