/**
 * A local build's identities as the embedded cluster's EKS Pod Identity: one association per
 * identity, its service account (step-runner-id-NAME) in the build namespace to its role, as the
 * deployment's AWS::EKS::PodIdentityAssociation does, and the agent's credentials from STS
 * AssumeRole of that role made with this machine's own AWS credentials
 * (lib/workflow/identity-credentials.ts), tagged as EKS tags the session.
 */
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import type { PodIdentityOptions } from '../emulators/kubernetes/index.js';
import { identityServiceAccount } from '../kube/index.js';
import type { AwsCredentials, AwsCredentialsProvider, IdentityCredentials } from '../contract/aws-credentials.js';
import type { Identity } from '../workflow/identities.js';
import type { RoleSessionCredentials } from '../workflow/identity-credentials.js';

/** The embedded cluster as the session tags name it; its node says it is in us-east-1 (node-labels.ts). */
export const EMBEDDED_CLUSTER_NAME = 'embedded';
const EMBEDDED_REGION = 'us-east-1';

/** The embedded cluster's ARN: in the account of its associations' roles (a role of another account is a cross-account association). */
function embeddedClusterArn(identities: readonly Identity[]): string {
  const account = identities[0]?.roleArn.split(':')[4] ?? '000000000000';
  return `arn:aws:eks:${EMBEDDED_REGION}:${account}:cluster/${EMBEDDED_CLUSTER_NAME}`;
}

export function localPodIdentity(identities: readonly Identity[], namespace: string, credentials: RoleSessionCredentials): PodIdentityOptions {
  const byAccount = new Map(identities.map((identity) => [identityServiceAccount(identity.name), identity]));
  const clusterArn = embeddedClusterArn(identities);
  return {
    clusterName: EMBEDDED_CLUSTER_NAME,
    clusterArn,
    associations: identities.map((identity) => ({ namespace, serviceAccount: identityServiceAccount(identity.name), roleArn: identity.roleArn })),
    credentials: ({ association, clusterName, podName, podUid }) =>
      credentials({
        identity: byAccount.get(association.serviceAccount)?.name ?? association.serviceAccount,
        roleArn: association.roleArn,
        session: { clusterArn, clusterName, namespace: association.namespace, serviceAccount: association.serviceAccount, podName, podUid },
      }),
  };
}

/**
 * What a local build's tasks read AWS with for a step's identity (its AWS secrets, its ECR login):
 * the token LaunchStep got bound to the step's gated pod (lib/workflow/gated-launch.ts), exchanged
 * by the embedded cluster's stand-in for EKS Auth (`assume`: the Pod Identity agent's own check,
 * which refuses a token bound to no pod). So a local run takes the path AWS takes: TokenRequest
 * bound to the pod, then AssumeRoleForPodIdentity; only who answers the second differs
 * (lib/lambda/pod-identity-credentials.ts on AWS).
 */
export function localIdentityCredentials(assume: (token: string) => Promise<AwsCredentials>): IdentityCredentials {
  return (request) => async () => assume(await request.podToken());
}

/** This machine's AWS credentials, as any AWS tool here finds them (AWS_PROFILE, the environment, SSO, ~/.aws...). */
export function machineAwsCredentials(): AwsCredentialsProvider {
  return fromNodeProviderChain();
}

/**
 * Why this machine has no AWS credentials to assume the identities' roles with, in the SDK's words;
 * undefined when it has some. Asked once before a build that declares identities starts.
 */
export async function missingAwsCredentials(provider: AwsCredentialsProvider): Promise<string | undefined> {
  try {
    await provider();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
