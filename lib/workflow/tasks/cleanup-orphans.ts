import { deleteOrphanedPods } from '../../kube/orphans.js';
import type { TaskDeps } from '../task-deps.js';

/** The scheduled sweep: deletes the runner's pods in the namespace that are long past their deadline. */
export async function cleanupOrphans(
  namespace: string,
  marginSeconds: number,
  deps: TaskDeps,
): Promise<{ namespace: string; deletedPods: string[] }> {
  const deletedPods = await deleteOrphanedPods(await deps.kube(), namespace, { now: deps.now, marginSeconds });
  if (deletedPods.length > 0) deps.log.warn(`Deleted ${deletedPods.length} orphaned runner pod(s)`, { namespace, pods: deletedPods });
  else deps.log.info('No orphaned runner pods', { namespace });
  return { namespace, deletedPods };
}
