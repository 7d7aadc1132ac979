/**
 * When a step that others need has ended for them. Its pod's phase is not it: the pod succeeds
 * before the step's FinishStep has stored what the step leaves to the next ones (the clone's cache
 * key hashes, which the next steps' LaunchStep reads), and a step that needs it, watching the
 * build's pods, would start in that gap. So FinishStep marks the pod it keeps (Annotations.finished)
 * once all of that is stored, and WaitForNeeds waits for the mark: a change of the pod's metadata
 * is a MODIFIED event on the watch it already holds, so the wait still ends at once.
 */
import { PatchStrategy, setHeaderOptions, type CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';
import { Annotations } from './types.js';

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * Marks the step's pod finished for the steps that need it; false when the pod is gone. Only its
 * annotations change: a pod's spec is all but immutable once made ("spec: Forbidden: pod updates
 * may not change fields other than ...", kubernetes/kubernetes pkg/apis/core/validation
 * ValidatePodUpdate), its metadata's labels and annotations are not (ValidateObjectMetaUpdate).
 */
export async function markStepFinished(api: Pick<CoreV1Api, 'patchNamespacedPod'>, namespace: string, podName: string, now: Date, retry?: KubeRetryOptions): Promise<boolean> {
  const operation = `mark pod ${namespace}/${podName} finished`;
  const body = { metadata: { annotations: { [Annotations.finished]: now.toISOString() } } };
  try {
    await withKubeRetries(operation, () => api.patchNamespacedPod({ name: podName, namespace, body }, MERGE_PATCH), retry);
    return true;
  } catch (error) {
    if (httpStatus(error) === 404) return false;
    throw unexpectedKubeError(operation, error);
  }
}

/** Whether a needed step's pod says its step has ended for the steps that need it: it succeeded and its FinishStep is done. Pure. */
export function finishedForDependants(pod: V1Pod): boolean {
  return pod.status?.phase === 'Succeeded' && pod.metadata?.annotations?.[Annotations.finished] !== undefined;
}
