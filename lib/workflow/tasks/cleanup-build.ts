import { deleteBuildPods } from '../../kube/index.js';
import type { CleanupResult, PreparedBuild } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';

/** Deletes every pod of the build: the Catch path, an abort and a timeout all end here. */
export async function cleanupBuild(
  input: Pick<PreparedBuild, 'build'> & { namespace?: string },
  defaultNamespace: string,
  deps: TaskDeps,
): Promise<CleanupResult> {
  const namespace = input.namespace ?? defaultNamespace;
  const deletedPods = await deleteBuildPods(await deps.kube(), namespace, input.build.id);
  deps.log.info(`Deleted ${deletedPods} pod(s) of build ${input.build.id}`, { namespace });
  return { deletedPods };
}
