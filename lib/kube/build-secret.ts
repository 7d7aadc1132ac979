/**
 * Creates one of a build's Secrets (the clone's credentials, a step's cache URLs, its AWS secrets,
 * an approval's token). What a Secret
 * of that name already there means is the caller's: the same content left by a retried task, or
 * content to replace. Refused (no RBAC for secrets, say): PodConfigError, with the API's words.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { describeKubeFailure, httpStatus, kubeFailure, unexpectedKubeError } from './api-error.js';
import { PodConfigError } from './errors.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';

export async function createBuildSecret(
  api: Pick<CoreV1Api, 'createNamespacedSecret'>,
  manifest: V1Secret,
  /** For the refusal: `The clone's credentials`. */
  what: string,
  onConflict: () => Promise<void>,
  retry?: KubeRetryOptions,
): Promise<string> {
  const namespace = manifest.metadata!.namespace!;
  const name = manifest.metadata!.name!;
  const operation = `create secret ${namespace}/${name}`;
  try {
    await withKubeRetries(operation, () => api.createNamespacedSecret({ namespace, body: manifest }), retry);
  } catch (error) {
    const status = httpStatus(error);
    if (status === 409) {
      await onConflict();
      return name;
    }
    if (status === 400 || status === 403 || status === 404 || status === 422) {
      throw new PodConfigError(`${what} could not be stored: the Kubernetes API refused the Secret "${name}" in namespace "${namespace}": ${describeKubeFailure(kubeFailure(error))}`, {
        cause: error,
      });
    }
    throw unexpectedKubeError(operation, error);
  }
  return name;
}

/** Creates the Secret, or replaces one of that name: an earlier attempt's, whose content this one's supersedes. */
export async function createOrReplaceBuildSecret(
  api: Pick<CoreV1Api, 'createNamespacedSecret' | 'replaceNamespacedSecret'>,
  manifest: V1Secret,
  what: string,
  retry?: KubeRetryOptions,
): Promise<string> {
  const namespace = manifest.metadata!.namespace!;
  const name = manifest.metadata!.name!;
  const replace = async () => {
    await withKubeRetries(`replace secret ${namespace}/${name}`, () => api.replaceNamespacedSecret({ namespace, name, body: manifest }), retry);
  };
  return createBuildSecret(api, manifest, what, replace, retry);
}
