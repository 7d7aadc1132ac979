/**
 * The credentials a deployed function talks to the cluster with: those of the role the EKS access
 * entry maps (serverless.yml EksClusterRole), assumed with the function's own role. Each function
 * keeps its AWS permissions in a role of its own, and the cluster still knows one identity: the
 * token's (STS GetCallerIdentity signed with these) and DescribeCluster's.
 */
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { AwsCredentials, AwsCredentialsProvider } from '../contract/aws-credentials.js';

/** Assumed again once less than this is left of the session (an EKS token is signed for 15 minutes). */
const RENEW_BEFORE_MS = 20 * 60_000;

export interface ClusterRole {
  roleArn: string;
  region: string;
  /** Who assumed it, in CloudTrail and in the cluster's audit log: the function's name. */
  sessionName?: string;
  /** For tests: the provider that assumes the role, or STS's address and the credentials that ask it. */
  assume?: AwsCredentialsProvider;
  sts?: { endpoint: string; credentials: AwsCredentials };
  now?: () => Date;
}

/** One AssumeRole per hour's session, not one per token: the provider the SDK gives asks STS on every call. */
export function clusterRoleCredentials({ roleArn, region, sessionName, assume, sts, now = () => new Date() }: ClusterRole): AwsCredentialsProvider {
  const provider =
    assume ??
    fromTemporaryCredentials({
      // A role session's name: letters, digits and =,.@- only, at most 64.
      params: { RoleArn: roleArn, RoleSessionName: (sessionName ?? 'step-runner').replace(/[^\w=,.@-]/g, '-').slice(0, 64) },
      clientConfig: { region, ...(sts ? { endpoint: sts.endpoint } : {}) },
      ...(sts ? { masterCredentials: sts.credentials } : {}),
    });
  let held: Promise<AwsCredentials> | undefined;
  return async () => {
    const current = held ? await held.catch(() => undefined) : undefined;
    if (current && (!current.expiration || current.expiration.getTime() - now().getTime() > RENEW_BEFORE_MS)) return current;
    held = provider();
    return held;
  };
}
