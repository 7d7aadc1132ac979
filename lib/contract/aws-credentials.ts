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
 * what the runner reads for the step (its AWS secrets) is read as the step, and IAM decides.
 */
export interface IdentityCredentialsRequest {
  /** The identity's name, as the pipeline says it (`identity: NAME`). */
  identity: string;
  /** Its service account, `step-runner-id-NAME`, in the build namespace. */
  serviceAccount: string;
  namespace: string;
  /** The step's pod, as LaunchStep names it (the `kubernetes-pod-name` session tag Pod Identity sets). */
  podName: string;
}

/**
 * Credentials for a step's identity, refreshed by the provider as they near expiry. On AWS,
 * EKS Auth's AssumeRoleForPodIdentity with a token of the identity's service account
 * (lib/lambda/pod-identity-credentials.ts); locally, what the embedded cluster's Pod Identity agent
 * hands the step's pod (STS AssumeRole of the identity's role with the user's credentials). A
 * provider that cannot get them rejects with the service's own error (its name and message).
 */
export type IdentityCredentials = (request: IdentityCredentialsRequest) => AwsCredentialsProvider;
