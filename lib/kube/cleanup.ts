import type { CoreV1Api, V1ObjectMeta } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { labelValue } from './pod-name.js';
import { listWithRetries, withKubeRetries, type KubeRetryOptions } from './retry.js';
import { Annotations, Labels, MANAGED_BY } from './types.js';

export type CleanupApi = Pick<CoreV1Api, 'deleteNamespacedPod' | 'listNamespacedPod'>;

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
  for (const name of toDelete(pods, buildId)) if (await deleteStepPod(api, namespace, name, retry)) deleted++;
  return deleted;
}

/**
 * The names of the listed objects that are the build's to delete: the build label is sanitised and
 * could in theory be shared by two builds, so one whose annotation names another build is left
 * alone, and one already on its way out (FinishStep deleted it, the kubelet is stopping it) needs
 * nothing. Pure: the in-memory cluster (fake-cluster.ts) deletes by it too.
 */
export function toDelete(objects: readonly { metadata?: V1ObjectMeta }[], buildId: string): string[] {
  return objects.flatMap(({ metadata }) => {
    const exactBuild = metadata?.annotations?.[Annotations.build];
    if (!metadata?.name || (exactBuild !== undefined && exactBuild !== buildId) || metadata.deletionTimestamp) return [];
    return [metadata.name];
  });
}

/**
 * What the runner makes once per build besides its pods, found and deleted the same way: its
 * workspace claim, and the Secret that holds its clone credentials. Each is labelled with the build
 * and annotated with the build's deadline (for the orphan sweep).
 */
export interface BuildObjectKind {
  /** For operation names: `persistentvolumeclaim`. */
  name: string;
  list(api: CoreV1Api, namespace: string, labelSelector: string): Promise<{ items: { metadata?: V1ObjectMeta }[] }>;
  remove(api: CoreV1Api, namespace: string, name: string): Promise<unknown>;
}

export const BuildObjectKinds = {
  claim: {
    name: 'persistentvolumeclaim',
    list: (api, namespace, labelSelector) => api.listNamespacedPersistentVolumeClaim({ namespace, labelSelector }),
    remove: (api, namespace, name) => api.deleteNamespacedPersistentVolumeClaim({ namespace, name }),
  },
  secret: {
    name: 'secret',
    list: (api, namespace, labelSelector) => api.listNamespacedSecret({ namespace, labelSelector }),
    remove: (api, namespace, name) => api.deleteNamespacedSecret({ namespace, name }),
  },
} as const satisfies Record<string, BuildObjectKind>;

/**
 * Deletes the build's objects of one kind. A claim still mounted by a pod that is stopping is only
 * marked for deletion: Kubernetes removes it (and its volume) once the pod is gone.
 */
export async function deleteBuildObjects(
  api: CoreV1Api,
  kind: BuildObjectKind,
  namespace: string,
  buildId: string,
  retry?: KubeRetryOptions,
): Promise<number> {
  const objects = await listWithRetries(
    `list ${kind.name}s of build ${buildId} in ${namespace}`,
    () => kind.list(api, namespace, buildSelector(buildId)),
    retry,
  );
  let deleted = 0;
  for (const name of toDelete(objects, buildId)) if (await deleteBuildObject(api, kind, namespace, name, retry)) deleted++;
  return deleted;
}

/** Deletes one object; false when it was already gone, which is just as good. */
export async function deleteBuildObject(
  api: CoreV1Api,
  kind: BuildObjectKind,
  namespace: string,
  name: string,
  retry?: KubeRetryOptions,
): Promise<boolean> {
  const operation = `delete ${kind.name} ${namespace}/${name}`;
  try {
    await withKubeRetries(operation, () => kind.remove(api, namespace, name), retry);
    return true;
  } catch (error) {
    if (httpStatus(error) === 404) return false;
    throw unexpectedKubeError(operation, error);
  }
}

/** The label selector of every pod (and object) of a build. */
export function buildSelector(buildId: string): string {
  return `${Labels.managedBy}=${MANAGED_BY},${Labels.build}=${labelValue(buildId)}`;
}
