/**
 * The service accounts of a deployment's identities (lib/workflow/identities.ts): one per identity,
 * `step-runner-id-NAME`, in the build namespace, each associated with its IAM role by an EKS Pod
 * Identity association (serverless.yml). They are the deployment's, applied from
 * deploy/identities.yaml (`npm run identities`); the runner never creates one.
 */
import type { V1ServiceAccount } from '@kubernetes/client-node';
import { IDENTITY_SERVICE_ACCOUNT_PREFIX } from '../pipeline/names.js';
import { Labels, MANAGED_BY } from './types.js';

export function identityServiceAccount(identity: string): string {
  return `${IDENTITY_SERVICE_ACCOUNT_PREFIX}${identity}`;
}

/** The identity a pod runs as, from its service account; undefined for any other account. */
export function identityOfServiceAccount(serviceAccount: string | undefined): string | undefined {
  return serviceAccount?.startsWith(IDENTITY_SERVICE_ACCOUNT_PREFIX) ? serviceAccount.slice(IDENTITY_SERVICE_ACCOUNT_PREFIX.length) : undefined;
}

/**
 * An identity's service account. No token of it is mounted in any pod by default
 * (`automountServiceAccountToken: false`): EKS Pod Identity hands its pods a token of its own
 * (audience pods.eks.amazonaws.com), and a build has no business with the Kubernetes API.
 */
export function identityServiceAccountManifest(identity: string, namespace: string): V1ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: identityServiceAccount(identity), namespace, labels: { [Labels.managedBy]: MANAGED_BY, 'step-runner/identity': identity } },
    automountServiceAccountToken: false,
  };
}
