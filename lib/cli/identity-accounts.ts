/**
 * The service accounts of a local build's identities (`run --identity`): a deployment applies them
 * from deploy/identities.yaml, a local run makes the missing ones, since the cluster refuses a pod
 * whose service account does not exist (the ServiceAccount admission plugin).
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from '../kube/api-error.js';
import { identityServiceAccountManifest, withKubeRetries } from '../kube/index.js';
import type { Identity } from '../workflow/identities.js';

/** Makes each missing account; returns what deletes those it made (one already there is left alone: it is someone's). */
export async function ensureIdentityAccounts(api: CoreV1Api, namespace: string, identities: readonly Identity[]): Promise<() => Promise<void>> {
  const made: string[] = [];
  for (const identity of identities) {
    const body = identityServiceAccountManifest(identity.name, namespace);
    const name = body.metadata!.name!;
    const operation = `create serviceaccount ${namespace}/${name}`;
    try {
      await withKubeRetries(operation, () => api.createNamespacedServiceAccount({ namespace, body }));
      made.push(name);
    } catch (error) {
      if (httpStatus(error) !== 409) throw unexpectedKubeError(operation, error);
    }
  }
  return async () => {
    for (const name of made) {
      await api.deleteNamespacedServiceAccount({ name, namespace }).catch((error: unknown) => {
        if (httpStatus(error) !== 404) throw error;
      });
    }
  };
}
