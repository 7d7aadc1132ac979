/**
 * AWS credentials as a provider (fromNodeProviderChain, fromTemporaryCredentials...) resolves
 * them. Shared by two leaves that sign requests with the function's role, the EKS token
 * (lib/kube) and the ECR check (lib/registry), and handed to both by lib/lambda: neither leaf owns it.
 */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

/**
 * Who a step's AWS credentials are asked for: an identity's service account, for one step's pod.
 * What EKS Pod Identity would give that pod (the identity's role, with its session tags), so that
 * what the runner reads for the step (its AWS secrets, its ECR login) is read as the step, and IAM decides.
 * The pod exists when they are asked (LaunchStep made it gated: lib/kube/scheduling-gate.ts).
 */
export interface IdentityCredentialsRequest {
  /** The identity's name, as the pipeline says it (`identity: NAME`). */
  identity: string;
  /** Its service account, `step-runner-id-NAME`, in the build namespace. */
  serviceAccount: string;
  namespace: string;
  /** The step's pod, as LaunchStep named it (the `kubernetes-pod-name` session tag Pod Identity sets). */
  podName: string;
  /** Its uid (the `kubernetes-pod-uid` tag). */
  podUid: string;
  /**
   * A fresh token of the service account bound to that pod, audience pods.eks.amazonaws.com (the
   * Kubernetes TokenRequest API, lib/kube/pod-identity-token.ts): what is exchanged for the
   * credentials, on AWS and locally alike.
   */
  podToken: () => Promise<string>;
}

/**
 * Credentials for a step's identity, refreshed by the provider as they near expiry: the request's
 * pod-bound token exchanged by EKS Auth's AssumeRoleForPodIdentity on AWS
 * (lib/lambda/pod-identity-credentials.ts), by the embedded cluster's stand-in for it locally
 * (lib/local/pod-identity.ts). A provider that cannot get them rejects with the service's own
 * error (its name and message).
 */
export type IdentityCredentials = (request: IdentityCredentialsRequest) => AwsCredentialsProvider;
