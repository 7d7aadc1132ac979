import { FULL_URI_ENV, TOKEN_FILE_ENV, hasPodIdentity, injectPodIdentity } from './pod-identity-webhook.js';
import type { Pod } from './objects.js';

const URI = 'http://169.254.170.23/v1/credentials';
const FILE = '/var/run/secrets/pods.eks.amazonaws.com/serviceaccount/eks-pod-identity-token';
// docs.aws.amazon.com/eks/latest/userguide/pod-id-how-it-works.html: what EKS adds to the pod.
const VOLUME = {
  name: 'eks-pod-identity-token',
  projected: { defaultMode: 420, sources: [{ serviceAccountToken: { audience: 'pods.eks.amazonaws.com', expirationSeconds: 86400, path: 'eks-pod-identity-token' } }] },
};
const MOUNT = { name: 'eks-pod-identity-token', readOnly: true, mountPath: '/var/run/secrets/pods.eks.amazonaws.com/serviceaccount' };
const INJECTED = [
  { name: FULL_URI_ENV, value: URI },
  { name: TOKEN_FILE_ENV, value: FILE },
];

const pod = (spec: Partial<Pod['spec']>): Pod => ({ metadata: { name: 'p', labels: { app: 'x' } }, spec: { containers: [{ name: 'step', image: 'alpine' }], ...spec } }) as Pod;

describe("EKS Pod Identity's webhook", () => {
  it.each([
    {
      what: 'a plain pod: both variables and the mount in each container, the volume first, the label',
      given: pod({ volumes: [{ name: 'workspace', emptyDir: {} }] }),
      containers: [{ name: 'step', image: 'alpine', env: INJECTED, volumeMounts: [MOUNT] }],
      volumes: [VOLUME, { name: 'workspace', emptyDir: {} }],
    },
    {
      what: 'a container that sets one variable keeps its own, and still gets the mount (handler.go addEnvToContainer)',
      given: pod({ containers: [{ name: 'step', image: 'alpine', env: [{ name: FULL_URI_ENV, value: 'http://127.0.0.1:9/' }] }] }),
      containers: [{ name: 'step', image: 'alpine', env: [{ name: FULL_URI_ENV, value: 'http://127.0.0.1:9/' }], volumeMounts: [MOUNT] }],
      volumes: [VOLUME],
    },
    {
      what: 'a volume and a mount of that name already there are kept, not doubled',
      given: pod({ containers: [{ name: 'step', image: 'alpine', volumeMounts: [{ ...MOUNT, mountPath: '/elsewhere' }] }], volumes: [{ name: 'eks-pod-identity-token', emptyDir: {} }] }),
      containers: [{ name: 'step', image: 'alpine', env: INJECTED, volumeMounts: [{ ...MOUNT, mountPath: '/elsewhere' }] }],
      volumes: [{ name: 'eks-pod-identity-token', emptyDir: {} }],
    },
  ])('$what', ({ given, containers, volumes }) => {
    expect(hasPodIdentity(given)).toBe(false);
    injectPodIdentity(given, URI);
    expect({ containers: given.spec.containers, volumes: given.spec.volumes, labels: given.metadata.labels }).toEqual({
      containers,
      volumes,
      labels: { app: 'x', 'eks.amazonaws.com/pod-identity': 'enabled' },
    });
    expect(hasPodIdentity(given)).toBe(true);
  });

  it('gives init containers (the checkout, sidecars) the same, as it mutates every container of the pod', () => {
    const given = pod({ initContainers: [{ name: 'clone', image: 'git' }] });
    injectPodIdentity(given, URI);
    expect(given.spec.initContainers).toEqual([{ name: 'clone', image: 'git', env: INJECTED, volumeMounts: [MOUNT] }]);
  });
});
