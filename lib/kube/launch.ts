import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { PodConfigError } from './errors.js';
import { describeKubeFailure, httpStatus, isAdmissionRefusal, kubeFailure, unexpectedKubeError } from './api-error.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';
import { Annotations, Labels } from './types.js';

export type LaunchApi = Pick<CoreV1Api, 'createNamespacedPod' | 'readNamespacedPod'>;

export interface LaunchResult {
  pod: V1Pod;
  /** True when the pod already existed for this very step (a retried LaunchStep) and was reused. */
  adopted: boolean;
}

/**
 * Creates a step's pod, idempotently: LaunchStep may run twice for one step (a Lambda retry after a
 * timeout), and the second run must find the first run's pod and adopt it rather than fail or start
 * the step again. A pod with the same name that belongs to another build or step is never adopted:
 * that is PodConfigError, since nothing the runner can do will free the name.
 */
export async function launchStepPod(api: LaunchApi, manifest: V1Pod, retry?: KubeRetryOptions): Promise<LaunchResult> {
  const namespace = manifest.metadata?.namespace;
  const name = manifest.metadata?.name;
  if (!namespace || !name) throw new TypeError('a step pod manifest needs metadata.name and metadata.namespace');
  const what = describeStep(manifest);
  const create = `create pod ${namespace}/${name}`;
  const read = `read pod ${namespace}/${name}`;

  // Twice at most: the existing pod may vanish between our 409 and our read of it.
  for (let round = 0; round < 2; round++) {
    try {
      const pod = await withKubeRetries(
        create,
        () => api.createNamespacedPod({ namespace, body: manifest, fieldValidation: 'Strict' }),
        retry,
      );
      return { pod, adopted: false };
    } catch (error) {
      const status = httpStatus(error);
      if (status === 400 || status === 404 || status === 422) {
        throw new PodConfigError(
          `The Kubernetes API rejected the pod for ${what} in namespace "${namespace}": ${describeKubeFailure(kubeFailure(error))}`,
          { cause: error },
        );
      }
      if (isAdmissionRefusal(kubeFailure(error))) {
        throw new PodConfigError(
          `Namespace "${namespace}" refused the pod for ${what} at admission (Pod Security, a ResourceQuota or LimitRange, or an admission webhook): ` +
            describeKubeFailure(kubeFailure(error)),
          { cause: error },
        );
      }
      if (status !== 409) throw unexpectedKubeError(create, error);
    }
    let existing: V1Pod;
    try {
      existing = await withKubeRetries(read, () => api.readNamespacedPod({ name, namespace }), retry);
    } catch (error) {
      if (httpStatus(error) === 404) continue;
      throw unexpectedKubeError(read, error);
    }
    return adoptPod(existing, manifest);
  }
  throw new PodConfigError(`Cannot launch ${what}: the pod "${namespace}/${name}" keeps appearing and disappearing`);
}

/**
 * The pod found under the step's pod name, adopted when it is this very step's; one of another
 * build or step is PodConfigError, since nothing the runner can do will free the name. Pure: the
 * in-memory cluster (fake-cluster.ts) adopts by it too.
 */
export function adoptPod(existing: V1Pod, manifest: V1Pod): LaunchResult {
  if (!sameStep(existing, manifest)) {
    throw new PodConfigError(
      `Cannot launch ${describeStep(manifest)}: a pod named "${manifest.metadata?.name}" already exists in namespace "${manifest.metadata?.namespace}" and belongs to ` +
        `${describeStep(existing)}. Delete that pod or use another namespace.`,
    );
  }
  return { pod: existing, adopted: true };
}

/** The runner's labels, and the exact ids in the annotations where the existing pod has them. */
function sameStep(existing: V1Pod, wanted: V1Pod): boolean {
  const labels = existing.metadata?.labels ?? {};
  const wantedLabels = wanted.metadata?.labels ?? {};
  for (const key of [Labels.managedBy, Labels.build, Labels.step]) {
    if (labels[key] === undefined || labels[key] !== wantedLabels[key]) return false;
  }
  const annotations = existing.metadata?.annotations ?? {};
  const wantedAnnotations = wanted.metadata?.annotations ?? {};
  return [Annotations.build, Annotations.step].every(
    (key) => annotations[key] === undefined || annotations[key] === wantedAnnotations[key],
  );
}

function describeStep(pod: V1Pod): string {
  const labels = pod.metadata?.labels ?? {};
  const annotations = pod.metadata?.annotations ?? {};
  const build = annotations[Annotations.build] ?? labels[Labels.build];
  const step = annotations[Annotations.step] ?? labels[Labels.step];
  if (build === undefined && step === undefined) return 'something other than this runner';
  return `step "${step ?? '?'}" of build "${build ?? '?'}"`;
}
