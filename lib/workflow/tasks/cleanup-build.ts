import { succeededSteps } from '../../kube/index.js';
import { rerunPlan } from '../rerun-plan.js';
import { buildClaimName, type CleanupResult, type PreparedBuild } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';

/**
 * What CleanupBuild is handed: on the failure path the whole state (the steps, their settings and
 * the failure), elsewhere the build and its namespace. `succeeded` (CleanupSucceededBuild): a
 * state that still holds a re-run's earlier failure is not a failed build's.
 */
export type CleanupInput = Pick<PreparedBuild, 'build'> &
  Partial<Pick<PreparedBuild, 'steps' | 'settings'>> & { namespace?: string; keepWorkspace?: boolean; succeeded?: boolean; failure?: unknown };

/** How long a failed build's claim is kept for a re-run of its failed steps (FAILED_WORKSPACE_KEEP_SECONDS). */
export interface CleanupOptions {
  keepFailedSeconds: number;
}

/**
 * Deletes every pod of the build, then its workspace claim and clone credentials: the end of a build on every path
 * (success, the Catch, an abort and a timeout all end here). A failed build with a workspace claim
 * keeps it, and its credentials, for `keepFailedSeconds`: the steps that did not succeed may run again in it
 * (`rerun`, which AwaitRerun reads), and the orphan sweep deletes them afterwards.
 */
export async function cleanupBuild(input: CleanupInput, defaultNamespace: string, deps: TaskDeps, options?: CleanupOptions): Promise<CleanupResult> {
  const namespace = input.namespace ?? defaultNamespace;
  const { cluster } = deps;
  const deletedPods = await cluster.deleteBuildPods(namespace, input.build.id);
  if (input.keepWorkspace) {
    // StopSteps: the steps that run after a failure still need the workspace and the clone's credentials.
    deps.log.info(`Stopped build ${input.build.id}: deleted ${deletedPods} pod(s)`, { namespace });
    return { deletedPods, deletedClaims: 0, deletedSecrets: 0 };
  }
  const claimName = input.settings ? buildClaimName(input.settings) : undefined;
  if (options && options.keepFailedSeconds > 0 && !input.succeeded && input.failure !== undefined && input.steps && claimName) {
    const kept = await cluster.keepBuildObjects(namespace, input.build.id, claimName, { now: deps.now(), seconds: options.keepFailedSeconds });
    const steps = kept.claim ? rerunPlan(input.steps, succeededSteps(kept.claim)) : [];
    if (steps.length > 0) {
      deps.log.info(
        `Deleted ${deletedPods} pod(s) of build ${input.build.id}; kept claim ${claimName} and ${kept.keptSecrets} credential Secret(s) for ${options.keepFailedSeconds} s, for a re-run of ${steps.map((s) => `"${s.name}"`).join(', ')}`,
        { namespace },
      );
      return { deletedPods, deletedClaims: 0, deletedSecrets: 0, rerun: { steps, keptSeconds: options.keepFailedSeconds } };
    }
  }
  const deletedClaims = await cluster.deleteBuildObjects('claim', namespace, input.build.id);
  const deletedSecrets = await cluster.deleteBuildObjects('secret', namespace, input.build.id);
  deps.log.info(`Deleted ${deletedPods} pod(s), ${deletedClaims} workspace claim(s) and ${deletedSecrets} credential Secret(s) of build ${input.build.id}`, {
    namespace,
  });
  return { deletedPods, deletedClaims, deletedSecrets };
}
