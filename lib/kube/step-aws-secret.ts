/**
 * The Secret of a step's AWS secrets (lib/workflow/aws-secrets.ts reads them, with the step's
 * identity): one key per variable, made before the step's pod, whose env reads it by secretKeyRef
 * as it reads any Kubernetes Secret, so the values are in no pod spec and the masking of a step's
 * Secrets covers them. Labelled with the build, so that the build's cleanup deletes it. A retried
 * LaunchStep (a fresh attempt, a re-run) read them again: its values replace the first's.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { createOrReplaceBuildSecret } from './build-secret.js';
import { stepAwsSecretName, labelValue } from './pod-name.js';
import type { KubeRetryOptions } from './retry.js';
import { Annotations, Labels, MANAGED_BY } from './types.js';

export function stepAwsSecretManifest(input: { buildId: string; namespace: string; step: string; values: Record<string, string> }): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: stepAwsSecretName(input.buildId, input.step),
      namespace: input.namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: labelValue(input.buildId) },
      annotations: { [Annotations.build]: input.buildId },
    },
    stringData: input.values,
  };
}

export async function ensureStepAwsSecret(
  api: Pick<CoreV1Api, 'createNamespacedSecret' | 'replaceNamespacedSecret'>,
  manifest: V1Secret,
  retry?: KubeRetryOptions,
): Promise<string> {
  return createOrReplaceBuildSecret(api, manifest, "The step's AWS secrets", retry);
}
