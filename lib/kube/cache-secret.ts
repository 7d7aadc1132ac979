/**
 * The step's cache Secret (cacheSecretManifest), made before its pod. A retried LaunchStep finds
 * the Secret its first attempt made and replaces its URLs with the ones it has just presigned, so
 * a pod created now never reads URLs older than its own launch. While the step runs, PollStep signs
 * them again (cacheSecretSigning, replaceCacheSecretUrls; lib/workflow/step-urls.ts).
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { createOrReplaceBuildSecret } from './build-secret.js';
import { URL_SIGNING_ANNOTATION, type UrlSigning } from './cache-containers.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';

export async function ensureCacheSecret(
  api: Pick<CoreV1Api, 'createNamespacedSecret' | 'replaceNamespacedSecret'>,
  manifest: V1Secret,
  retry?: KubeRetryOptions,
): Promise<string> {
  return createOrReplaceBuildSecret(api, manifest, "The step's cache URLs", retry);
}

/**
 * How the Secret's URLs are signed (URL_SIGNING_ANNOTATION), for signing them again; undefined
 * when the Secret is gone (the build's cleanup) or says nothing of it (made before it did).
 */
export async function cacheSecretSigning(
  api: Pick<CoreV1Api, 'readNamespacedSecret'>,
  namespace: string,
  name: string,
  retry?: KubeRetryOptions,
): Promise<Record<string, UrlSigning> | undefined> {
  const operation = `read secret ${namespace}/${name}`;
  try {
    const secret = await withKubeRetries(operation, () => api.readNamespacedSecret({ namespace, name }), retry);
    return parseSigning(secret.metadata?.annotations?.[URL_SIGNING_ANNOTATION]);
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw unexpectedKubeError(operation, error);
  }
}

/**
 * Puts freshly signed URLs in place of the Secret's, keeping its other keys, labels and
 * annotations: a read, then a replace of what was read (its resourceVersion, so a change made in
 * between is not overwritten: the read and replace are made again). The Secret is never made anew:
 * false when it is gone. The kubelet brings the new content into the pods' volumes ("Mounted
 * Secrets are updated automatically", Kubernetes docs, Secrets).
 */
export async function replaceCacheSecretUrls(
  api: Pick<CoreV1Api, 'readNamespacedSecret' | 'replaceNamespacedSecret'>,
  namespace: string,
  name: string,
  urls: Record<string, string>,
  retry?: KubeRetryOptions,
): Promise<boolean> {
  const operation = `replace secret ${namespace}/${name}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await withKubeRetries(
        operation,
        async () => {
          const secret = await api.readNamespacedSecret({ namespace, name });
          const data = { ...secret.data };
          for (const [key, url] of Object.entries(urls)) data[key] = Buffer.from(url, 'utf8').toString('base64');
          return api.replaceNamespacedSecret({ namespace, name, body: { ...secret, data } });
        },
        retry,
      );
      return true;
    } catch (error) {
      const status = httpStatus(error);
      if (status === 404) return false;
      if (status === 409 && attempt < 2) continue;
      throw unexpectedKubeError(operation, error);
    }
  }
}

/** The URL_SIGNING_ANNOTATION's signings; undefined when it says nothing usable. Pure. */
export function parseSigning(text: string | undefined): Record<string, UrlSigning> | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const entries = Object.entries(parsed as Record<string, unknown>);
    return entries.every(([, value]) => isSigning(value)) ? (parsed as Record<string, UrlSigning>) : undefined;
  } catch {
    return undefined;
  }
}

function isSigning(value: unknown): value is UrlSigning {
  const { how, object, seconds } = (value ?? {}) as Partial<UrlSigning>;
  return (how === 'get' || how === 'put-new' || how === 'put') && typeof object === 'string' && typeof seconds === 'number' && seconds > 0;
}
