import type { CoreV1Api } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { labelValue } from './pod-name.js';
import { listWithRetries, withKubeRetries, type KubeRetryOptions } from './retry.js';
import { Annotations, Labels, MANAGED_BY } from './types.js';

export type CleanupApi = Pick<CoreV1Api, 'deleteNamespacedPod' | 'listNamespacedPod'>;
export type ClaimCleanupApi = Pick<CoreV1Api, 'deleteNamespacedPersistentVolumeClaim' | 'listNamespacedPersistentVolumeClaim'>;

/** Deletes a step's pod. Returns false when it was already gone, which is just as good. */
export async function deleteStepPod(
  api: Pick<CoreV1Api, 'deleteNamespacedPod'>,
  namespace: string,
  podName: string,
  retry?: KubeRetryOptions,
): Promise<boolean> {
  const operation = `delete pod ${namespace}/${podName}`;
  try {
    await withKubeRetries(
      operation,
      () => api.deleteNamespacedPod({ name: podName, namespace, propagationPolicy: 'Background' }),
      retry,
    );
    return true;
  } catch (error) {
    if (httpStatus(error) === 404) return false;
    throw unexpectedKubeError(operation, error);
  }
}

/**
 * Deletes every pod of a build (what the state machine's Catch does, whatever failed), found by the
 * runner's labels. Returns how many it deleted. The build label is sanitised and could in theory be
 * shared by two builds, so a pod whose annotation names another build is left alone.
 */
export async function deleteBuildPods(
  api: CleanupApi,
  namespace: string,
  buildId: string,
  retry?: KubeRetryOptions,
): Promise<number> {
  const pods = await listWithRetries(
    `list pods of build ${buildId} in ${namespace}`,
    () => api.listNamespacedPod({ namespace, labelSelector: buildSelector(buildId) }),
    retry,
  );
  let deleted = 0;
  for (const pod of pods) {
    const name = pod.metadata?.name;
    const exactBuild = pod.metadata?.annotations?.[Annotations.build];
    if (!name || (exactBuild !== undefined && exactBuild !== buildId)) continue;
    // Already on its way out (FinishStep deleted it, the kubelet is stopping it): nothing to do.
    if (pod.metadata?.deletionTimestamp) continue;
    if (await deleteStepPod(api, namespace, name, retry)) deleted++;
  }
  return deleted;
}

/**
 * Deletes the build's workspace claim(s), found like its pods. A claim still mounted by a pod that
 * is stopping is only marked for deletion: Kubernetes removes it (and its volume) once the pod is gone.
 */
export async function deleteBuildClaims(
  api: ClaimCleanupApi,
  namespace: string,
  buildId: string,
  retry?: KubeRetryOptions,
): Promise<number> {
  const claims = await listWithRetries(
    `list persistentvolumeclaims of build ${buildId} in ${namespace}`,
    () => api.listNamespacedPersistentVolumeClaim({ namespace, labelSelector: buildSelector(buildId) }),
    retry,
  );
  let deleted = 0;
  for (const claim of claims) {
    const name = claim.metadata?.name;
    const exactBuild = claim.metadata?.annotations?.[Annotations.build];
    if (!name || (exactBuild !== undefined && exactBuild !== buildId) || claim.metadata?.deletionTimestamp) continue;
    if (await deleteClaim(api, namespace, name, retry)) deleted++;
  }
  return deleted;
}

export async function deleteClaim(
  api: Pick<CoreV1Api, 'deleteNamespacedPersistentVolumeClaim'>,
  namespace: string,
  name: string,
  retry?: KubeRetryOptions,
): Promise<boolean> {
  const operation = `delete persistentvolumeclaim ${namespace}/${name}`;
  try {
    await withKubeRetries(operation, () => api.deleteNamespacedPersistentVolumeClaim({ name, namespace }), retry);
    return true;
  } catch (error) {
    if (httpStatus(error) === 404) return false;
    throw unexpectedKubeError(operation, error);
  }
}

function buildSelector(buildId: string): string {
  return `${Labels.managedBy}=${MANAGED_BY},${Labels.build}=${labelValue(buildId)}`;
}
