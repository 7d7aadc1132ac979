/**
 * The clone step's credentials: a Secret of the build's own, referenced by the clone container
 * (secretKeyRef), so the token never appears in a pod spec, the execution's input or output, or a
 * log; deleted with the build's other objects.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { PodConfigError } from './errors.js';
import { describeKubeFailure, httpStatus, kubeFailure, unexpectedKubeError } from './api-error.js';
import { gitCredentialsName, labelValue } from './pod-name.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';
import { Annotations, BUILD_DEADLINE_ANNOTATION, Labels, MANAGED_BY } from './types.js';

export const GIT_TOKEN_KEY = 'token';

export function gitCredentialsManifest(input: { buildId: string; namespace: string; token: string; deadlineSeconds: number }): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: gitCredentialsName(input.buildId),
      namespace: input.namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: labelValue(input.buildId) },
      annotations: { [Annotations.build]: input.buildId, [BUILD_DEADLINE_ANNOTATION]: String(input.deadlineSeconds) },
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
  const namespace = manifest.metadata!.namespace!;
  const name = manifest.metadata!.name!;
  const operation = `create secret ${namespace}/${name}`;
  try {
    await withKubeRetries(operation, () => api.createNamespacedSecret({ namespace, body: manifest }), retry);
  } catch (error) {
    const status = httpStatus(error);
    if (status === 409) return name;
    if (status === 400 || status === 403 || status === 404 || status === 422) {
      throw new PodConfigError(
        `The clone's credentials could not be stored: the Kubernetes API refused the Secret "${name}" in namespace "${namespace}": ${describeKubeFailure(kubeFailure(error))}`,
        { cause: error },
      );
    }
    throw unexpectedKubeError(operation, error);
  }
  return name;
}
