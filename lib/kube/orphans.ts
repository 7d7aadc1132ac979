import type { CoreV1Api, V1ObjectMeta, V1Pod } from '@kubernetes/client-node';
import { deleteBuildObject, deleteStepPod, type BuildObjectKind } from './cleanup.js';
import { listWithRetries, type KubeRetryOptions } from './retry.js';
import { toMillis } from './time.js';
import { Labels, MANAGED_BY } from './types.js';
import { BUILD_DEADLINE_ANNOTATION } from './types.js';

/**
 * Runner pods that no execution will ever clean up: CleanupBuild could not reach the cluster, an
 * execution was deleted, a Lambda died between two states. A scheduled sweep finds them by the
 * runner's label and by their own deadline, so it needs no record of which executions are alive.
 */

/**
 * How long after a pod's deadline it counts as orphaned. Past activeDeadlineSeconds the kubelet
 * stops the pod and the very next poll fails the step; the margin covers FinishStep and
 * CleanupBuild retries, so the sweep never deletes a pod whose build is still reading its log.
 */
export const DEFAULT_ORPHAN_MARGIN_SECONDS = 600;

const RUNNER_SELECTOR = `${Labels.managedBy}=${MANAGED_BY}`;

/** Why a pod is or is not an orphan; `orphan` only for a runner pod past its deadline and margin. */
export type OrphanVerdict =
  | 'orphan'
  | 'not-ours'
  | 'already-deleting'
  | 'no-deadline'
  | 'within-deadline';

/**
 * The one decision of the sweep, pure so it can be checked case by case. A pod is only ever
 * touched if the runner created it (its managed-by label) and if its own spec says when it
 * had to be done by: a pod without activeDeadlineSeconds is not the runner's doing, whatever
 * its labels say, and there is no deadline to be past.
 */
export function orphanVerdict(pod: V1Pod, now: Date, marginSeconds: number): OrphanVerdict {
  // A pod kept for the steps that need it carries its build's deadline too (stepPodManifest).
  const kept = Number(pod.metadata?.annotations?.[BUILD_DEADLINE_ANNOTATION]);
  const deadline = pod.spec?.activeDeadlineSeconds;
  return verdict(pod.metadata, deadline !== undefined && kept > deadline ? kept : deadline, now, marginSeconds);
}

/**
 * The same decision for a build's claim or Secret, whose deadline (its build's longest possible
 * run) PrepareBuild wrote in an annotation, since neither has a deadline of its own.
 */
export function buildObjectOrphanVerdict(object: { metadata?: V1ObjectMeta }, now: Date, marginSeconds: number): OrphanVerdict {
  const written = object.metadata?.annotations?.[BUILD_DEADLINE_ANNOTATION];
  return verdict(object.metadata, written === undefined ? undefined : Number(written), now, marginSeconds);
}

function verdict(metadata: V1ObjectMeta | undefined, deadline: number | undefined, now: Date, marginSeconds: number): OrphanVerdict {
  if (metadata?.labels?.[Labels.managedBy] !== MANAGED_BY) return 'not-ours';
  if (metadata.deletionTimestamp) return 'already-deleting';
  const created = toMillis(metadata.creationTimestamp);
  if (created === undefined || typeof deadline !== 'number' || !(deadline > 0)) return 'no-deadline';
  const orphanAt = created + (deadline + marginSeconds) * 1000;
  return now.getTime() >= orphanAt ? 'orphan' : 'within-deadline';
}

export function selectOrphanedPods(pods: readonly V1Pod[], now: Date, marginSeconds: number): V1Pod[] {
  return pods.filter((pod) => orphanVerdict(pod, now, marginSeconds) === 'orphan');
}

export interface OrphanSweepOptions {
  now: () => Date;
  marginSeconds: number;
  retry?: KubeRetryOptions;
}

/**
 * Lists the runner's pods in one namespace and deletes the orphans among them; returns their
 * names. The label selector keeps the listing small; the verdict checks the label again, so a
 * server that ignored the selector still could not lead the sweep to someone else's pod.
 */
export async function deleteOrphanedPods(
  api: Pick<CoreV1Api, 'listNamespacedPod' | 'deleteNamespacedPod'>,
  namespace: string,
  options: OrphanSweepOptions,
): Promise<string[]> {
  const pods = await listWithRetries(
    `list runner pods in ${namespace}`,
    () => api.listNamespacedPod({ namespace, labelSelector: RUNNER_SELECTOR }),
    options.retry,
  );
  const deleted: string[] = [];
  for (const pod of selectOrphanedPods(pods, options.now(), options.marginSeconds)) {
    const name = pod.metadata?.name;
    if (name && await deleteStepPod(api, namespace, name, options.retry)) deleted.push(name);
  }
  return deleted;
}

/**
 * The same sweep for the build objects of one kind (workspace claims, clone credentials); returns
 * the names of those it deleted.
 */
export async function deleteOrphanedBuildObjects(
  api: CoreV1Api,
  kind: BuildObjectKind,
  namespace: string,
  options: OrphanSweepOptions,
): Promise<string[]> {
  const objects = await listWithRetries(`list runner ${kind.name}s in ${namespace}`, () => kind.list(api, namespace, RUNNER_SELECTOR), options.retry);
  const now = options.now();
  const deleted: string[] = [];
  for (const object of objects) {
    const name = object.metadata?.name;
    if (!name || buildObjectOrphanVerdict(object, now, options.marginSeconds) !== 'orphan') continue;
    if (await deleteBuildObject(api, kind, namespace, name, options.retry)) deleted.push(name);
  }
  return deleted;
}
