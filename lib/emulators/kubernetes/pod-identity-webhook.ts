/**
 * EKS Pod Identity's mutating admission webhook: a pod whose service account has a Pod Identity
 * association gets, in every container and init container, the two variables the AWS SDKs' container
 * credentials provider reads, and a projected token of its service account for the audience
 * `pods.eks.amazonaws.com`, mounted where the variable says. What it adds is what the EKS user guide
 * lists (docs.aws.amazon.com/eks/latest/userguide/pod-id-how-it-works.html, "How EKS Pod Identity
 * Agent works with a Pod"); how it adds it follows aws/amazon-eks-pod-identity-webhook
 * pkg/handler/handler.go (addEnvToContainer, getPodSpecPatch): a container that already sets either
 * variable keeps its own, a mount or volume of that name already there is kept, the volume goes
 * first, and the pod is labelled `eks.amazonaws.com/pod-identity: enabled`. The webhook never looks at
 * automountServiceAccountToken: that field only decides whether the ServiceAccount admission plugin
 * adds the API token volume, kube-api-access-* (kubernetes/kubernetes
 * plugin/pkg/admission/serviceaccount/admission.go Admit: `shouldAutomount` gates
 * `mountServiceAccountToken` alone), not a projected volume the pod names, so a step pod with
 * `automountServiceAccountToken: false` still gets this token. Pure.
 */
import type { Container, Pod } from './objects.js';

export const PodIdentity = {
  audience: 'pods.eks.amazonaws.com',
  /** Where the EKS Pod Identity Agent answers on every node (the webhook's --container-credentials-full-uri default). */
  agentUri: 'http://169.254.170.23/v1/credentials',
  agentAddress: '169.254.170.23',
  volumeName: 'eks-pod-identity-token',
  mountPath: '/var/run/secrets/pods.eks.amazonaws.com/serviceaccount',
  tokenPath: 'eks-pod-identity-token',
  /** 24 hours, as the guide's manifest shows (the webhook draws a jitter below it for the default). */
  expirationSeconds: 86400,
  label: 'eks.amazonaws.com/pod-identity',
} as const;

export const FULL_URI_ENV = 'AWS_CONTAINER_CREDENTIALS_FULL_URI';
export const TOKEN_FILE_ENV = 'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE';

export const POD_IDENTITY_TOKEN_FILE = `${PodIdentity.mountPath}/${PodIdentity.tokenPath}`;

/** Whether the webhook gave this pod a Pod Identity token (its label). */
export function hasPodIdentity(pod: Pod): boolean {
  return pod.metadata.labels?.[PodIdentity.label] === 'enabled';
}

/** The pod as the webhook returns it, `agentUri` being where this node's agent answers. */
export function injectPodIdentity(pod: Pod, agentUri: string): void {
  const withEnv = (container: Container): Container => {
    const env = container.env ?? [];
    const defined = env.some((e) => e.name === FULL_URI_ENV || e.name === TOKEN_FILE_ENV);
    const mounts = container.volumeMounts ?? [];
    return {
      ...container,
      env: defined ? env : [...env, { name: FULL_URI_ENV, value: agentUri }, { name: TOKEN_FILE_ENV, value: POD_IDENTITY_TOKEN_FILE }],
      volumeMounts: mounts.some((m) => m.name === PodIdentity.volumeName) ? mounts : [...mounts, { name: PodIdentity.volumeName, readOnly: true, mountPath: PodIdentity.mountPath }],
    };
  };
  pod.spec.containers = pod.spec.containers.map(withEnv);
  if (pod.spec.initContainers && pod.spec.initContainers.length > 0) pod.spec.initContainers = pod.spec.initContainers.map(withEnv);
  const volumes = pod.spec.volumes ?? [];
  if (!volumes.some((v) => v.name === PodIdentity.volumeName)) {
    pod.spec.volumes = [
      {
        name: PodIdentity.volumeName,
        projected: {
          defaultMode: 420,
          sources: [{ serviceAccountToken: { audience: PodIdentity.audience, expirationSeconds: PodIdentity.expirationSeconds, path: PodIdentity.tokenPath } }],
        },
      },
      ...volumes,
    ];
  }
  pod.metadata.labels = { ...pod.metadata.labels, [PodIdentity.label]: 'enabled' };
}
