import { DEFAULT_ORPHAN_MARGIN_SECONDS, deleteOrphanedPods } from '../../kube/orphans.js';
import type { TaskDeps } from '../task-deps.js';

export const ORPHAN_MARGIN_ENV = 'ORPHAN_MARGIN_SECONDS';

/** The margin past a pod's deadline after which the sweep deletes it (serverless.yml sets it). */
export function orphanMarginSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[ORPHAN_MARGIN_ENV];
  if (raw === undefined || raw === '') return DEFAULT_ORPHAN_MARGIN_SECONDS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${ORPHAN_MARGIN_ENV} must be a whole number of seconds, got "${raw}"`);
  return value;
}

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
