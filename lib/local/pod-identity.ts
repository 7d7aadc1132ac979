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
import type { AwsCredentialsProvider, IdentityCredentials } from '../contract/aws-credentials.js';
import type { Identity } from '../workflow/identities.js';
import type { PodIdentitySession, RoleSessionCredentials } from '../workflow/identity-credentials.js';

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
 * What a local build's tasks read AWS with for a step's identity (its AWS secrets): the same
 * session the embedded cluster's agent gives the step's pod, before the pod exists, so with no pod
 * uid yet (STS takes an empty tag value). On AWS, EKS Auth answers instead
 * (lib/lambda/pod-identity-credentials.ts).
 */
export function localIdentityCredentials(identities: readonly Identity[], credentials: RoleSessionCredentials): IdentityCredentials {
  const clusterArn = embeddedClusterArn(identities);
  return ({ identity, serviceAccount, namespace, podName }) => {
    const declared = identities.find((candidate) => candidate.name === identity);
    const session: PodIdentitySession = { clusterArn, clusterName: EMBEDDED_CLUSTER_NAME, namespace, serviceAccount, podName, podUid: '' };
    return async () => {
      if (!declared) throw new Error(`this run was given no role for the identity "${identity}" (run --identity ${identity}=ROLE_ARN)`);
      return credentials({ identity, roleArn: declared.roleArn, session });
    };
  };
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
