/**
 * Credentials of an identity's role, as EKS Pod Identity would give them to the step's pod: STS
 * `AssumeRole` of the role with the session tags EKS Pod Identity sets, all transitive
 * (docs.aws.amazon.com/eks/latest/userguide/pod-id-abac.html: eks-cluster-arn, eks-cluster-name,
 * kubernetes-namespace, kubernetes-service-account, kubernetes-pod-name, kubernetes-pod-uid), so a
 * role's policy that conditions on `aws:PrincipalTag/...` decides the same way here. What calls
 * STS is whoever holds credentials that may assume the role: locally the user's own (the default
 * credential chain: AWS_PROFILE, the environment, SSO...). The STS client honours
 * AWS_ENDPOINT_URL_STS and AWS_ENDPOINT_URL, as every AWS SDK v3 client does (@smithy/core
 * getEndpointUrlConfig), so a local stand-in (moto) answers when they name it.
 *
 * `RoleSessionCredentials` is how the local runner gets "credentials of identity X for this pod":
 * the embedded cluster's Pod Identity Agent and a local build's AWS secrets (lib/local/pod-identity.ts
 * adapts it to lib/contract's `IdentityCredentials`, which the workflow asks).
 */
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { AwsCredentials, AwsCredentialsProvider } from '../contract/aws-credentials.js';

/** The pod a session is for, as EKS Auth knows it when it assumes the role. */
export interface PodIdentitySession {
  clusterArn: string;
  clusterName: string;
  namespace: string;
  serviceAccount: string;
  podName: string;
  podUid: string;
}

export interface RoleSessionRequest {
  /** The identity's name (`identity: NAME`), for messages. */
  identity: string;
  roleArn: string;
  session: PodIdentitySession;
}

export type RoleSessionCredentials = (request: RoleSessionRequest) => Promise<AwsCredentials>;

export interface SessionTag {
  Key: string;
  Value: string;
}

/** The session tags EKS Pod Identity sets on the role session, in its documented order. Pure. */
export function podIdentitySessionTags(session: PodIdentitySession): SessionTag[] {
  return [
    { Key: 'eks-cluster-arn', Value: session.clusterArn },
    { Key: 'eks-cluster-name', Value: session.clusterName },
    { Key: 'kubernetes-namespace', Value: session.namespace },
    { Key: 'kubernetes-service-account', Value: session.serviceAccount },
    { Key: 'kubernetes-pod-name', Value: session.podName },
    { Key: 'kubernetes-pod-uid', Value: session.podUid },
  ];
}

/**
 * The role session's name: `eks-CLUSTER-POD`, cut to STS's 64 characters of [\w+=,.@-]. EKS's own
 * naming is not documented; this one makes the pod readable in CloudTrail and in the assumed
 * role's ARN (`arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`). Pure.
 */
export function podIdentityRoleSessionName(session: Pick<PodIdentitySession, 'clusterName' | 'podName'>): string {
  return `eks-${session.clusterName}-${session.podName}`.replace(/[^\w+=,.@-]/g, '-').slice(0, 64);
}

export interface StsIdentityCredentialsOptions {
  /** The credentials that assume the roles; default: the SDK's default chain (the user's profile). */
  base?: AwsCredentialsProvider;
  /** STS's region; default: AWS_REGION, the profile's, else us-east-1 (fromTemporaryCredentials). */
  region?: string;
}

/** `RoleSessionCredentials` through STS AssumeRole, with Pod Identity's session tags, each tag transitive as EKS sets them. */
export function stsIdentityCredentials(options: StsIdentityCredentialsOptions = {}): RoleSessionCredentials {
  return async ({ roleArn, session }) => {
    const tags = podIdentitySessionTags(session);
    const provider = fromTemporaryCredentials({
      params: { RoleArn: roleArn, RoleSessionName: podIdentityRoleSessionName(session), Tags: tags, TransitiveTagKeys: tags.map((tag) => tag.Key) },
      ...(options.base ? { masterCredentials: options.base } : {}),
      ...(options.region ? { clientConfig: { region: options.region } } : {}),
    });
    const credentials = await provider();
    return {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      ...(credentials.sessionToken !== undefined ? { sessionToken: credentials.sessionToken } : {}),
      ...(credentials.expiration !== undefined ? { expiration: credentials.expiration } : {}),
    };
  };
}
