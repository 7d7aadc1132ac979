import type { TaskDeps } from '../task-deps.js';

/**
 * The scheduled sweep: deletes the runner's pods, workspace claims and clone credentials in the namespace that are
 * long past their build's deadline.
 */
export async function cleanupOrphans(
  namespace: string,
  marginSeconds: number,
  deps: TaskDeps,
): Promise<{ namespace: string; deletedPods: string[]; deletedClaims: string[]; deletedSecrets: string[] }> {
  const { cluster } = deps;
  const options = { now: deps.now, marginSeconds };
  const deletedPods = await cluster.deleteOrphanedPods(namespace, options);
  const deletedClaims = await cluster.deleteOrphanedBuildObjects('claim', namespace, options);
  const deletedSecrets = await cluster.deleteOrphanedBuildObjects('secret', namespace, options);
  const all = { pods: deletedPods, claims: deletedClaims, secrets: deletedSecrets };
  if (deletedPods.length + deletedClaims.length + deletedSecrets.length > 0) deps.log.warn('Deleted orphaned runner objects', { namespace, ...all });
  else deps.log.info('No orphaned runner pods, claims or Secrets', { namespace });
  return { namespace, deletedPods, deletedClaims, deletedSecrets };
}
