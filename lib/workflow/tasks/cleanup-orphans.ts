import { deleteOrphanedClaims, deleteOrphanedPods } from '../../kube/orphans.js';
import type { TaskDeps } from '../task-deps.js';

/**
 * The scheduled sweep: deletes the runner's pods and workspace claims in the namespace that are
 * long past their build's deadline.
 */
export async function cleanupOrphans(
  namespace: string,
  marginSeconds: number,
  deps: TaskDeps,
): Promise<{ namespace: string; deletedPods: string[]; deletedClaims: string[] }> {
  const api = await deps.kube();
  const deletedPods = await deleteOrphanedPods(api, namespace, { now: deps.now, marginSeconds });
  const deletedClaims = await deleteOrphanedClaims(api, namespace, { now: deps.now, marginSeconds });
  if (deletedPods.length + deletedClaims.length > 0) {
    deps.log.warn(`Deleted ${deletedPods.length} orphaned runner pod(s) and ${deletedClaims.length} workspace claim(s)`, {
      namespace,
      pods: deletedPods,
      claims: deletedClaims,
    });
  } else deps.log.info('No orphaned runner pods or claims', { namespace });
  return { namespace, deletedPods, deletedClaims };
}
