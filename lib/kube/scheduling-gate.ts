/**
 * The step pod's scheduling gate (Pod Scheduling Readiness, KEP-3521, GA in Kubernetes 1.30:
 * kubernetes.io/docs/concepts/scheduling-eviction/pod-scheduling-readiness/): a pod created with
 * `spec.schedulingGates` exists, with its name and uid, but the scheduler leaves it alone
 * (PodScheduled=False, SchedulingGated) until every gate is removed, and so does every kubelet.
 *
 * LaunchStep makes a step whose identity reads AWS before it runs (its AWS secrets, its ECR login)
 * this way: EKS Pod Identity credentials need a service account token bound to a pod of that
 * account (lib/lambda/pod-identity-credentials.ts says why), and Kubernetes binds a token only to a
 * pod that exists. So: the gated pod first, its `secretKeyRef`s naming a Secret not made yet (no
 * kubelet reads them before the pod is scheduled, so no CreateContainerConfigError); then the token
 * bound to it, the read, the Secret; then the gate removed, by a patch (an update may remove a gate,
 * never add one: pkg/apis/core/validation ValidatePodUpdate).
 */
import { PatchStrategy, setHeaderOptions, type CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';

/** The runner's gate: a qualified name of its own, so that another controller's gates (Kueue's) are never mistaken for it. */
export const STEP_READINESS_GATE = 'step-runner.dev/identity-reads';

/** The manifest with the runner's gate added (kept once). Pure. */
export function withSchedulingGate(manifest: V1Pod, gate: string = STEP_READINESS_GATE): V1Pod {
  const gates = manifest.spec?.schedulingGates ?? [];
  if (gates.some((g) => g.name === gate)) return manifest;
  return { ...manifest, spec: { ...manifest.spec!, schedulingGates: [...gates, { name: gate }] } };
}

/** Whether the pod still waits on the runner's gate. Pure. */
export function isGated(pod: V1Pod, gate: string = STEP_READINESS_GATE): boolean {
  return (pod.spec?.schedulingGates ?? []).some((g) => g.name === gate);
}

/**
 * The gates left once the runner's is removed: what the patch sets. Pure. A JSON merge patch
 * replaces a list whole (RFC 7386), so the others (another controller's) are written back as
 * they are; none left is `null`, which removes the field.
 */
export function gatesWithout(pod: V1Pod, gate: string = STEP_READINESS_GATE): { name: string }[] | null {
  const left = (pod.spec?.schedulingGates ?? []).filter((g) => g.name !== gate);
  return left.length > 0 ? left : null;
}

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * Removes the runner's gate from the pod, so that it is scheduled. False when the pod is gone; a
 * pod already without the gate (a retried LaunchStep) is left as it is. The patch carries the
 * resourceVersion read, so a gate another controller removed meanwhile is not written back (409, read again).
 */
export async function removeSchedulingGate(
  api: Pick<CoreV1Api, 'readNamespacedPod' | 'patchNamespacedPod'>,
  namespace: string,
  podName: string,
  gate: string = STEP_READINESS_GATE,
  retry?: KubeRetryOptions,
): Promise<boolean> {
  const operation = `remove the scheduling gate of pod ${namespace}/${podName}`;
  for (let round = 0; round < 3; round++) {
    let pod: V1Pod;
    try {
      pod = await withKubeRetries(operation, () => api.readNamespacedPod({ name: podName, namespace }), retry);
    } catch (error) {
      if (httpStatus(error) === 404) return false;
      throw unexpectedKubeError(operation, error);
    }
    if (!isGated(pod, gate)) return true;
    const body = { metadata: { resourceVersion: pod.metadata?.resourceVersion }, spec: { schedulingGates: gatesWithout(pod, gate) } };
    try {
      await withKubeRetries(operation, () => api.patchNamespacedPod({ name: podName, namespace, body }, MERGE_PATCH), retry);
      return true;
    } catch (error) {
      const status = httpStatus(error);
      if (status === 404) return false;
      if (status !== 409) throw unexpectedKubeError(operation, error);
    }
  }
  throw unexpectedKubeError(operation, new Error('the pod kept changing under the patch (409 three times)'));
}
