/**
 * The clone step's credentials: a Secret of the build's own, referenced by the clone container
 * (secretKeyRef), so the token never appears in a pod spec, the execution's input or output, or a
 * log; deleted with the build's other objects.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { gitCredentialsName, labelValue } from './pod-name.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';
import { createBuildSecret } from './build-secret.js';
import { Annotations, BUILD_DEADLINE_ANNOTATION, Labels, MANAGED_BY } from './types.js';

export const GIT_TOKEN_KEY = 'token';

/**
 * When the Secret's token stops working (ISO 8601), for tokens that do (a GitHub App's last an
 * hour): LaunchStep renews it before a pod that reads it later than that starts.
 */
export const TOKEN_EXPIRES_ANNOTATION = 'step-runner.dev/token-expires-at';

export function gitCredentialsManifest(input: {
  buildId: string;
  namespace: string;
  token: string;
  deadlineSeconds: number;
  expiresAt?: string | undefined;
}): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: gitCredentialsName(input.buildId),
      namespace: input.namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: labelValue(input.buildId) },
      annotations: {
        [Annotations.build]: input.buildId,
        [BUILD_DEADLINE_ANNOTATION]: String(input.deadlineSeconds),
        ...(input.expiresAt ? { [TOKEN_EXPIRES_ANNOTATION]: input.expiresAt } : {}),
      },
    },
    stringData: { [GIT_TOKEN_KEY]: input.token },
  };
}

/**
 * Creates the Secret, or leaves the one a retried PrepareBuild created: it holds the same token.
 * Returns its name. Refused (no RBAC for secrets, say): PodConfigError, with the API's words.
 */
export async function ensureGitCredentials(
  api: Pick<CoreV1Api, 'createNamespacedSecret'>,
  manifest: V1Secret,
  retry?: KubeRetryOptions,
): Promise<string> {
  return createBuildSecret(api, manifest, "The clone's credentials", async () => {}, retry);
}

type RenewApi = Pick<CoreV1Api, 'readNamespacedSecret' | 'replaceNamespacedSecret'>;

/** When the Secret's token expires (ms since the epoch); undefined for a token that does not, or no Secret. */
export async function gitTokenExpiry(api: Pick<CoreV1Api, 'readNamespacedSecret'>, namespace: string, name: string, retry?: KubeRetryOptions): Promise<number | undefined> {
  const operation = `read secret ${namespace}/${name}`;
  try {
    const secret = await withKubeRetries(operation, () => api.readNamespacedSecret({ namespace, name }), retry);
    const at = Date.parse(secret.metadata?.annotations?.[TOKEN_EXPIRES_ANNOTATION] ?? '');
    return Number.isNaN(at) ? undefined : at;
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw unexpectedKubeError(operation, error);
  }
}

/**
 * Puts a new token (and its expiry) into the Secret. A conflict means another LaunchStep of the
 * build renewed it a moment ago: that token is as fresh, so it is kept.
 */
export async function renewGitCredentials(
  api: RenewApi,
  namespace: string,
  name: string,
  token: { token: string; expiresAt?: string | undefined },
  retry?: KubeRetryOptions,
): Promise<void> {
  const operation = `renew secret ${namespace}/${name}`;
  try {
    await withKubeRetries(
      operation,
      async () => {
        const secret = await api.readNamespacedSecret({ namespace, name });
        const annotations = { ...secret.metadata?.annotations };
        if (token.expiresAt) annotations[TOKEN_EXPIRES_ANNOTATION] = token.expiresAt;
        else delete annotations[TOKEN_EXPIRES_ANNOTATION];
        const body: V1Secret = { ...secret, metadata: { ...secret.metadata, annotations }, data: {}, stringData: { [GIT_TOKEN_KEY]: token.token } };
        return api.replaceNamespacedSecret({ namespace, name, body });
      },
      retry,
    );
  } catch (error) {
    if (httpStatus(error) === 409) return;
    throw unexpectedKubeError(operation, error);
  }
}
