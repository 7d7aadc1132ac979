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
