import { BuildObjectKinds, deleteBuildObjects, deleteBuildPods } from '../../kube/index.js';
import type { CleanupResult, PreparedBuild } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';

/**
 * Deletes every pod of the build, then its workspace claim and clone credentials: the end of a build on every path
 * (success, the Catch, an abort and a timeout all end here).
 */
export async function cleanupBuild(
  input: Pick<PreparedBuild, 'build'> & { namespace?: string; keepWorkspace?: boolean },
  defaultNamespace: string,
  deps: TaskDeps,
): Promise<CleanupResult> {
  const namespace = input.namespace ?? defaultNamespace;
  const api = await deps.kube();
  const deletedPods = await deleteBuildPods(api, namespace, input.build.id);
  if (input.keepWorkspace) {
    // StopSteps: the steps that run after a failure still need the workspace and the clone's credentials.
    deps.log.info(`Stopped build ${input.build.id}: deleted ${deletedPods} pod(s)`, { namespace });
    return { deletedPods, deletedClaims: 0, deletedSecrets: 0 };
  }
  const deletedClaims = await deleteBuildObjects(api, BuildObjectKinds.claim, namespace, input.build.id);
  const deletedSecrets = await deleteBuildObjects(api, BuildObjectKinds.secret, namespace, input.build.id);
  deps.log.info(`Deleted ${deletedPods} pod(s), ${deletedClaims} workspace claim(s) and ${deletedSecrets} credential Secret(s) of build ${input.build.id}`, {
    namespace,
  });
  return { deletedPods, deletedClaims, deletedSecrets };
}
