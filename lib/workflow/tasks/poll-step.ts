import type { V1Pod } from '@kubernetes/client-node';
import {
  DEFAULT_CLASSIFY_OPTIONS,
  classifyStep,
  isQuietPending,
  observeStep,
  podProgress,
  sameProgress,
  secondsSince,
  type PodProgress,
} from '../../kube/index.js';
import { nextPollSeconds } from '../poll-schedule.js';
import { buildClaimName, type PollState, type StepInput } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';

export interface PollLimits {
  /** What the Lambda invocation has left for a watch (its remaining time less a margin). */
  maxWatchMs?: number;
}

/**
 * One look at the step's pod and its events, classified, with the wait before the next look.
 * While the pod is pending, the look is a bounded watch: it returns as soon as the pod's progress
 * differs from the last poll's (so a pull failure surfaces the moment the kubelet reports it), or
 * when the watch time is up. A running step is polled on the schedule instead: holding a Lambda
 * for the whole run would cost more than the few polls the schedule makes.
 */
export async function pollStep(input: StepInput, deps: TaskDeps, limits: PollLimits = {}): Promise<PollState> {
  const previous = input.poll;
  if (!previous) throw new Error('PollStep needs $.poll from LaunchStep');
  const watched = previous.phase === 'pending' ? await watchPendingPod(input, previous, deps, limits) : undefined;
  const now = deps.now();
  const claimName = buildClaimName(input.settings);
  const observation = await observeStep(await deps.kube(), input.namespace, previous.podName, {
    now: () => now,
    ...(watched !== undefined ? { knownPod: watched } : {}),
    ...(claimName ? { claimName } : {}),
  });
  const status = classifyStep(
    observation,
    { step: input.step.name, image: input.step.image, checkout: input.step.name === input.settings.checkoutStep },
    {
      imagePullGraceSeconds: input.settings.imagePullGraceSeconds,
      unschedulableGraceSeconds: input.settings.unschedulableGraceSeconds,
      workspaceGraceSeconds: input.settings.workspaceGraceSeconds ?? DEFAULT_CLASSIFY_OPTIONS.workspaceGraceSeconds,
    },
  );
  const runningSince = previous.runningSince ?? (status.phase === 'running' ? now.toISOString() : null);
  const elapsedSeconds = secondsSince(now, previous.launchedAt);
  const runningSeconds = secondsSince(now, runningSince);
  const poll: PollState = {
    podName: previous.podName,
    launchedAt: previous.launchedAt,
    runningSince,
    phase: status.phase,
    reason: status.reason,
    nextPollSeconds: nextPollSeconds(status, {
      elapsedSeconds,
      runningSeconds,
      timeoutSeconds: input.step.timeoutSeconds,
      watched: watched !== undefined,
    }),
    polls: previous.polls + 1,
    progress: podProgress(observation.pod),
  };
  if ('message' in status && status.message) poll.message = status.message;
  if (status.phase === 'failed') {
    poll.error = status.error;
    poll.cause = status.cause;
    if (status.exitCode !== undefined) poll.exitCode = status.exitCode;
  }
  if (status.phase === 'succeeded') poll.exitCode = 0;
  deps.log.info(`Step "${input.step.name}" is ${status.phase} (${status.reason})`, { poll: poll.polls });
  return poll;
}

/** The pod once it has moved on (or as it stands when time is up); undefined: read it plainly. */
async function watchPendingPod(
  input: StepInput,
  previous: PollState,
  deps: TaskDeps,
  limits: PollLimits,
): Promise<V1Pod | null | undefined> {
  const watchMs = Math.min((input.settings.pendingWatchSeconds ?? 0) * 1000, limits.maxWatchMs ?? Infinity);
  if (!deps.watchPod || watchMs < 1000) return undefined;
  const watched = await deps.watchPod(
    input.namespace,
    previous.podName,
    (pod) => movedOn(podProgress(pod), previous.progress),
    watchMs,
  );
  return watched?.pod;
}

/**
 * Worth a poll: the pod's progress differs from the last poll's and is not one of the quiet steps
 * every pod goes through on its way to running (a poll there would classify "pending" again).
 */
function movedOn(progress: PodProgress, before: PodProgress | undefined): boolean {
  return !sameProgress(progress, before) && !isQuietPending(progress);
}
