import { launchStepPod, podProgress, stepPodManifest, workspaceNode, type PodWorkspace } from '../../kube/index.js';
import { buildEnvironment } from '../build-environment.js';
import { buildClaimName, type PollState, type StepInput } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';

/** Creates the step's pod (or adopts the one a previous attempt created) and schedules the first poll. */
export async function launchStep(input: StepInput, deps: TaskDeps): Promise<PollState> {
  const api = await deps.kube();
  const claimName = buildClaimName(input.settings);
  // The first pod of the build puts the volume on a node; every later one must go there too.
  const node = claimName ? await workspaceNode(api, input.namespace, claimName) : undefined;
  const workspace: PodWorkspace | undefined = claimName
    ? { claimName, ...(node ? { node } : {}) }
    : input.settings.workspace && 'ephemeral' in input.settings.workspace
      ? { ephemeral: true }
      : undefined;
  const manifest = stepPodManifest({
    buildId: input.build.id,
    step: input.step,
    namespace: input.namespace,
    buildEnv: buildEnvironment(input.build),
    ...(workspace ? { workspace } : {}),
    ...(input.settings.checkout ? { checkout: input.settings.checkout } : {}),
  });
  const { pod, adopted } = await launchStepPod(api, manifest);
  const podName = pod.metadata?.name ?? manifest.metadata!.name!;
  // An adopted pod keeps its own creation time, so the step's deadline and grace periods do not restart.
  const launchedAt = pod.metadata?.creationTimestamp ?? deps.now();
  deps.log.info(`${adopted ? 'Adopted' : 'Created'} pod ${podName} for step "${input.step.name}"`, { pod: podName });
  return {
    podName,
    launchedAt: new Date(launchedAt).toISOString(),
    runningSince: null,
    phase: 'pending',
    // Visible in the execution history: a retried LaunchStep says it found its pod, not made one.
    reason: adopted ? 'PodAdopted' : 'PodCreated',
    // With a watch the first poll may start at once: it waits for the pod's first change itself.
    nextPollSeconds: (input.settings.pendingWatchSeconds ?? 0) > 0 ? 0 : 1,
    polls: 0,
    progress: podProgress(pod),
  };
}
