/**
 * The step's cache Secret (cacheSecretManifest), made before its pod. A retried LaunchStep finds
 * the Secret its first attempt made and replaces its URLs with the ones it has just presigned, so
 * a pod created now never reads URLs older than its own launch.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { createBuildSecret } from './build-secret.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';

export async function ensureCacheSecret(
  api: Pick<CoreV1Api, 'createNamespacedSecret' | 'replaceNamespacedSecret'>,
  manifest: V1Secret,
  retry?: KubeRetryOptions,
): Promise<string> {
  const namespace = manifest.metadata!.namespace!;
  const name = manifest.metadata!.name!;
  return createBuildSecret(
    api,
    manifest,
    "The step's cache URLs",
    async () => {
      await withKubeRetries(`replace secret ${namespace}/${name}`, () => api.replaceNamespacedSecret({ namespace, name, body: manifest }), retry);
    },
    retry,
  );
}
