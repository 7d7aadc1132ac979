/**
 * A token of an identity's service account for EKS Pod Identity, bound to the step's pod: what
 * the runner exchanges for the identity's credentials (EKS Auth's AssumeRoleForPodIdentity on AWS,
 * the embedded cluster's stand-in locally) before the step runs.
 *
 * Bound to the pod because EKS Pod Identity takes nothing else: AWS's own callers only send a token
 * bound to a pod (aws/secrets-store-csi-driver-provider-aws credential_provider/
 * pod_identity_credential_provider.go: TokenRequest{Audiences: pods.eks.amazonaws.com,
 * BoundObjectRef: {Kind: "Pod"}}), the agent's newer code refuses a token without the
 * `kubernetes.io/pod` claim (aws/eks-pod-identity-agent, claims_validation.go), and Flux dropped
 * an unbound design for it ("requires the ServiceAccount token to be bound to a pod": fluxcd/flux2
 * PR #5309, rfcs/0010-multi-tenant-workload-identity). The API server binds a token only to a pod
 * that exists, by name and uid, and runs as that very account (kubernetes/kubernetes
 * pkg/registry/core/serviceaccount/storage/token.go): hence the gated pod (scheduling-gate.ts).
 */
import type { AuthenticationV1TokenRequest, CoreV1Api } from '@kubernetes/client-node';
import { unexpectedKubeError } from './api-error.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';

/** The audience EKS Pod Identity's tokens carry, and EKS Auth requires. */
export const POD_IDENTITY_AUDIENCE = 'pods.eks.amazonaws.com';

/**
 * The shortest a TokenRequest may ask for (the API server's minimum, 10 minutes: pkg/apis/
 * authentication/validation ValidateTokenRequest): enough for one LaunchStep's exchange.
 */
export const POD_IDENTITY_TOKEN_SECONDS = 600;

/** The pod a token is bound to: its name and uid, as the API server checks them. */
export interface BoundPod {
  name: string;
  uid: string;
}

/** The TokenRequest's body: audience pods.eks.amazonaws.com, the shortest life, bound to the pod. Pure. */
export function podIdentityTokenRequest(pod: BoundPod): AuthenticationV1TokenRequest {
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: {
      audiences: [POD_IDENTITY_AUDIENCE],
      expirationSeconds: POD_IDENTITY_TOKEN_SECONDS,
      boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod.name, uid: pod.uid },
    },
  };
}

/**
 * Asks the API server for the token (`create serviceaccounts/token` on the identity's account).
 * Its refusal (a pod of another account, a uid that no longer matches) is passed on in its words.
 */
export async function requestPodIdentityToken(
  api: Pick<CoreV1Api, 'createNamespacedServiceAccountToken'>,
  input: { namespace: string; serviceAccount: string; pod: BoundPod },
  retry?: KubeRetryOptions,
): Promise<string> {
  const operation = `request a token of service account ${input.namespace}/${input.serviceAccount} bound to pod ${input.pod.name}`;
  // Transient failures retried; a refusal (400, 404, 409) passed on as the API server words it.
  const answer = await withKubeRetries(operation, () => api.createNamespacedServiceAccountToken({ name: input.serviceAccount, namespace: input.namespace, body: podIdentityTokenRequest(input.pod) }), retry);
  const token = answer.status?.token;
  if (!token) throw unexpectedKubeError(operation, new Error('the answer had no token'));
  return token;
}
