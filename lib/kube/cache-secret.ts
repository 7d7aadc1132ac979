/**
 * The step's cache Secret (cacheSecretManifest), made before its pod. A retried LaunchStep finds
 * the Secret its first attempt made and replaces its URLs with the ones it has just presigned, so
 * a pod created now never reads URLs older than its own launch.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { describeKubeFailure, httpStatus, kubeFailure, unexpectedKubeError } from './api-error.js';
import { PodConfigError } from './errors.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';

export async function ensureCacheSecret(
  api: Pick<CoreV1Api, 'createNamespacedSecret' | 'replaceNamespacedSecret'>,
  manifest: V1Secret,
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
      await withKubeRetries(`replace secret ${namespace}/${name}`, () => api.replaceNamespacedSecret({ namespace, name, body: manifest }), retry);
      return name;
    }
    if (status === 400 || status === 403 || status === 404 || status === 422) {
      throw new PodConfigError(
        `The step's cache URLs could not be stored: the Kubernetes API refused the Secret "${name}" in namespace "${namespace}": ${describeKubeFailure(kubeFailure(error))}`,
        { cause: error },
      );
    }
    throw unexpectedKubeError(operation, error);
  }
  return name;
}
