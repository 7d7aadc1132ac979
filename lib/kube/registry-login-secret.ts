/**
 * A build step's registry login (lib/workflow/registry-login.ts makes it): a Secret of type
 * kubernetes.io/dockerconfigjson holding the login LaunchStep got for the step's ECR registries with
 * its identity, over the pod's first pull secret's, which the build pod mounts in that pull
 * secret's place (build-container.ts registryAuth). Made before the pod, labelled with the build so
 * that the build's cleanup deletes it; a retried LaunchStep's login replaces the first's.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { createOrReplaceBuildSecret } from './build-secret.js';
import { labelValue, stepRegistryLoginName } from './pod-name.js';
import type { KubeRetryOptions } from './retry.js';
import { Annotations, Labels, MANAGED_BY } from './types.js';

/** The key kubernetes.io/dockerconfigjson Secrets keep their document under. */
export const DOCKER_CONFIG_KEY = '.dockerconfigjson';

export function registryLoginSecretManifest(input: { buildId: string; namespace: string; step: string; dockerConfig: string }): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: {
      name: stepRegistryLoginName(input.buildId, input.step),
      namespace: input.namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: labelValue(input.buildId) },
      annotations: { [Annotations.build]: input.buildId },
    },
    stringData: { [DOCKER_CONFIG_KEY]: input.dockerConfig },
  };
}

export async function ensureRegistryLoginSecret(
  api: Pick<CoreV1Api, 'createNamespacedSecret' | 'replaceNamespacedSecret'>,
  manifest: V1Secret,
  retry?: KubeRetryOptions,
): Promise<string> {
  return createOrReplaceBuildSecret(api, manifest, "The build step's registry login", retry);
}
