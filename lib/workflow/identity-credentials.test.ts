import { podIdentityRoleSessionName, podIdentitySessionTags } from './identity-credentials.js';

const session = {
  clusterArn: 'arn:aws:eks:us-east-1:123456789012:cluster/embedded',
  clusterName: 'embedded',
  namespace: 'builds',
  serviceAccount: 'step-runner-id-deploy',
  podName: 'local-deploy-20261206t060000-ab12-ship-0f3e9a1c',
  podUid: '7d3c1f7e-3b0a-4a59-9a7e-2f3f5b3e8c11',
};

describe("an identity's role session, as EKS Pod Identity opens it", () => {
  it('is tagged with the six tags EKS Pod Identity sets (docs.aws.amazon.com/eks/latest/userguide/pod-id-abac.html)', () => {
    expect(podIdentitySessionTags(session)).toEqual([
      { Key: 'eks-cluster-arn', Value: session.clusterArn },
      { Key: 'eks-cluster-name', Value: 'embedded' },
      { Key: 'kubernetes-namespace', Value: 'builds' },
      { Key: 'kubernetes-service-account', Value: 'step-runner-id-deploy' },
      { Key: 'kubernetes-pod-name', Value: session.podName },
      { Key: 'kubernetes-pod-uid', Value: session.podUid },
    ]);
  });

  it.each([
    { what: 'names the cluster and the pod', podName: 'b-ship-1', name: 'eks-embedded-b-ship-1' },
    { what: "is cut to STS's 64 characters", podName: 'p'.repeat(80), name: `eks-embedded-${'p'.repeat(51)}` },
  ])('$what', ({ podName, name }) => {
    expect(podIdentityRoleSessionName({ clusterName: 'embedded', podName })).toBe(name);
    expect(name).toMatch(/^[\w+=,.@-]{2,64}$/);
  });
});
