import type { CoreV1Api } from '@kubernetes/client-node';
import { GIT_TOKEN_KEY, gitTokenExpiry, launchStepPod, podProgress, renewGitCredentials, stepPodManifest, workspaceNode, type PodWorkspace } from '../../kube/index.js';
import { buildEnvironment } from '../build-environment.js';
import { firstPollSeconds } from '../poll-schedule.js';
import { buildClaimName, type PollState, type StepInput } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';
import { buildToken, type BuildCredentials } from '../build-credentials.js';

/**
 * A token that expires (a GitHub App's, an hour after PrepareBuild) is renewed when it has less
 * than this left: enough for the pod to be scheduled, pull its images and start its clone.
 */
export const TOKEN_RENEW_MARGIN_MS = 20 * 60 * 1000;

/** Creates the step's pod (or adopts the one a previous attempt created) and schedules the first poll. */
export async function launchStep(input: StepInput, deps: TaskDeps, credentials: BuildCredentials = {}): Promise<PollState> {
  const api = await deps.kube();
  await renewCheckoutToken(input, api, credentials, deps);
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
    buildEnv: buildEnvironment(input.build, input.failure),
    ...(workspace ? { workspace } : {}),
    ...(input.settings.checkout ? { checkout: input.settings.checkout } : {}),
    ...(input.settings.runAsUser !== undefined ? { runAsUser: input.settings.runAsUser } : {}),
    ...(input.settings.pullSecrets ? { pullSecrets: input.settings.pullSecrets } : {}),
    ...(input.settings.placement ? { placement: input.settings.placement } : {}),
    ...(input.settings.serviceStartGraceSeconds !== undefined ? { serviceStartGraceSeconds: input.settings.serviceStartGraceSeconds } : {}),
    ...(input.step.needed && input.settings.deadlineSeconds !== undefined ? { keepForSeconds: input.settings.deadlineSeconds } : {}),
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
    nextPollSeconds: firstPollSeconds(input.settings.pendingWatchSeconds ?? 0),
    polls: 0,
    progress: podProgress(pod),
    log: { location: deps.logs.liveLocation(input.build.id, input.step.name), parts: 0, bytes: 0 },
  };
}

/**
 * With an ephemeral workspace every step's pod clones, with the token PrepareBuild stored in the
 * build's Secret; a step that starts after that token's hour would fail its checkout.
 */
async function renewCheckoutToken(input: StepInput, api: CoreV1Api, credentials: BuildCredentials, deps: Pick<TaskDeps, 'now' | 'log'>): Promise<void> {
  const secret = input.settings.checkout?.secrets.find((ref) => ref.key === GIT_TOKEN_KEY)?.secret;
  if (!secret || !credentials.githubToken) return;
  const expiry = await gitTokenExpiry(api, input.namespace, secret);
  if (expiry === undefined || expiry - deps.now().getTime() > TOKEN_RENEW_MARGIN_MS) return;
  const token = await buildToken(credentials, input.build);
  if (!token) return;
  await renewGitCredentials(api, input.namespace, secret, token);
  deps.log.info(`Renewed the clone's token in secret ${secret}: the one PrepareBuild got expires at ${new Date(expiry).toISOString()}`);
}
