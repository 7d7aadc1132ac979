import type { V1Pod } from '@kubernetes/client-node';
import {
  DEFAULT_CLASSIFY_OPTIONS,
  classifyStep,
  disruptionCondition,
  isQuietPending,
  mergePodTimings,
  podTimings,
  maskSecrets,
  secretNeedles,
  STEP_CONTAINER,
  podProgress,
  sameProgress,
  secondsSince,
  serviceStates,
  type PodProgress,
} from '../../kube/index.js';
import { LiveLogCopy, type LiveLogState } from '../live-log.js';
import { nextPollSeconds, pendingWatchFor, runningWatchFor } from '../poll-schedule.js';
import { buildClaimName, type PollState, type StepInput } from '../state-data.js';
import { renewStepUrls } from '../step-urls.js';
import type { TaskDeps } from '../task-deps.js';
import { stepSecretRefs } from '../aws-secrets.js';
import { podPlacement } from '../pod-usage.js';

export interface PollLimits {
  /** What the Lambda invocation has left for a watch (its remaining time less a margin). */
  maxWatchMs?: number;
}

/**
 * One look at the step's pod and its events, classified, with the wait before the next look.
 * The look is a bounded watch: it returns as soon as the pod's progress differs from the last
 * poll's, or when the watch time is up. While the pod is pending that makes a pull failure surface
 * the moment the kubelet reports it; while it runs (for its first `runningWatchUntilSeconds`), the
 * state machine moves on within about a second of the container's exit rather than at the next
 * scheduled poll. The next poll then follows at once, and its own watch is the wait.
 */
export async function pollStep(input: StepInput, deps: TaskDeps, limits: PollLimits = {}): Promise<PollState> {
  const previous = input.poll;
  if (!previous) throw new Error('PollStep needs $.poll from LaunchStep');
  const watchFor = watchSeconds(previous, input, secondsSince(deps.now(), previous.runningSince), secondsSince(deps.now(), previous.launchedAt));
  const keeping = previous.phase === 'running' ? await keepLog(input, previous, deps, watchFor >= 1) : undefined;
  let watched: V1Pod | null | undefined;
  let log: LiveLogState | undefined;
  try {
    watched = await watchPod(input, previous, deps, Math.min(watchFor * 1000, limits.maxWatchMs ?? Infinity));
  } finally {
    log = await keeping?.stop(stepContainerEnded(watched));
  }
  const now = deps.now();
  const claimName = buildClaimName(input.settings);
  const observation = await deps.cluster.observePod(input.namespace, previous.podName, {
    now: () => now,
    ...(watched !== undefined ? { knownPod: watched } : {}),
    ...(claimName ? { claimName } : {}),
  });
  const status = classifyStep(
    observation,
    {
      step: input.step.name,
      // An image named by a build step's digest is the pod's, LaunchStep having written the digest in (step-image.ts).
      image: (input.step.imageFrom !== undefined ? observation.pod?.spec?.containers.find((c) => c.name === STEP_CONTAINER)?.image : undefined) ?? input.step.image ?? '',
      checkout: input.step.name === input.settings.checkoutStep,
    },
    {
      imagePullGraceSeconds: input.settings.imagePullGraceSeconds,
      unschedulableGraceSeconds: input.settings.unschedulableGraceSeconds,
      workspaceGraceSeconds: input.settings.workspaceGraceSeconds ?? DEFAULT_CLASSIFY_OPTIONS.workspaceGraceSeconds,
      serviceStartGraceSeconds: input.settings.serviceStartGraceSeconds ?? DEFAULT_CLASSIFY_OPTIONS.serviceStartGraceSeconds,
      ...(input.step.pendingTimeoutSeconds !== undefined ? { pendingTimeoutSeconds: input.step.pendingTimeoutSeconds } : {}),
    },
  );
  const runningSince = previous.runningSince ?? (status.phase === 'running' ? now.toISOString() : null);
  const elapsedSeconds = secondsSince(now, previous.launchedAt);
  const runningSeconds = secondsSince(now, runningSince);
  // The next poll's watch: its wait, when this poll held one too, and until when the URLs must last.
  const nextWatchSeconds = watchSeconds(status, input, runningSeconds, elapsedSeconds);
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
      // The next poll's watch is its wait, when it will hold one as this poll did.
      watched: watched !== undefined && nextWatchSeconds >= 1,
    }),
    polls: previous.polls + 1,
    progress: podProgress(observation.pod),
  };
  const seenVersion = observation.pod?.metadata?.resourceVersion;
  if (seenVersion) poll.resourceVersion = seenVersion;
  // What this look adds to when the pod was scheduled, started, finished, and its pulls (the step's metrics).
  const timings = mergePodTimings(previous.timings, podTimings(observation.pod, observation.events));
  if (Object.keys(timings).length > 0) poll.timings = timings;
  const liveLog = log ?? previous.log;
  if (liveLog) poll.log = liveLog;
  if ('message' in status && status.message) poll.message = status.message;
  // Gone with the pod: the last poll that saw the services keeps saying how they stood.
  const services = observation.pod ? serviceStates(observation.pod) : previous.services;
  if (services && services.length > 0) poll.services = services;
  const placed = await podPlacement(observation.pod, previous.placed, now, deps);
  if (placed) poll.placed = placed;
  if (status.phase === 'failed') {
    poll.error = status.error;
    poll.cause = status.cause;
    if (status.exitCode !== undefined) poll.exitCode = status.exitCode;
    if (status.service !== undefined) poll.service = status.service;
  }
  if (status.phase === 'succeeded') poll.exitCode = 0;
  if (status.phase === 'succeeded' && status.pushed) poll.pushed = status.pushed;
  if (previous.urls && (status.phase === 'pending' || status.phase === 'running')) {
    // The next chance to sign them again: the next poll's wait, then the end of its watch.
    const urls = await renewStepUrls(input, previous, deps, poll.nextPollSeconds + nextWatchSeconds);
    if (urls) poll.urls = urls;
  }
  deps.log.info(`Step "${input.step.name}" is ${status.phase} (${status.reason})`, { poll: poll.polls });
  return poll;
}

/** The pod once it has moved on (or as it stands when time is up); undefined: read it plainly. */
async function watchPod(input: StepInput, previous: PollState, deps: TaskDeps, watchMs: number): Promise<V1Pod | null | undefined> {
  if (!deps.watchPod || watchMs < 1000) return undefined;
  const watched = await deps.watchPod(
    input.namespace,
    previous.podName,
    (pod) => movedOn(podProgress(pod), previous.progress),
    watchMs,
    undefined,
    previous.resourceVersion,
  );
  // Gone, but taken away by the cluster (evicted, its node deleted): its last state says so, where
  // a plain read would only find it missing.
  if (watched?.pod === null && watched.lastState && disruptionCondition(watched.lastState)) return watched.lastState;
  return watched?.pod;
}

/**
 * The step container's log, kept as it grows (live-log.ts): followed while the watch holds, or
 * read once up to now by a poll without one (a step past the running watch's limit), so the copy
 * is never more than a poll behind. Either way it is streamed into the copy's parts, not read whole
 * into memory first (a step past the watch may have printed what the kubelet keeps, 10 MiB, since
 * the last poll). A follow goes on across the kubelet's log rotation; a plain read sees only the
 * newest file, so what a rotation took before it was read is missing, and the copy says so where
 * (rotationGapNote, lib/kube/log-position.ts). A log that cannot be read now is read on from the
 * same position by the next poll. Not while the pod's own checkout (an init container) runs: the
 * checkout's log comes first, whole.
 */
async function keepLog(input: StepInput, previous: PollState, deps: TaskDeps, follow: boolean): Promise<{ stop(containerEnded: boolean): Promise<LiveLogState> } | undefined> {
  const { followLog, logs } = deps;
  if (!followLog || !previous.log || previous.progress?.init) return undefined;
  const secrets = [...(input.settings.checkout?.secrets ?? []), ...stepSecretRefs(input.build.id, input.step)];
  const needles = secrets.length > 0 ? secretNeedles(await deps.cluster.readSecretValues(input.namespace, secrets)) : [];
  const copy = new LiveLogCopy({ store: logs, buildId: input.build.id, step: input.step.name, mask: (text) => maskSecrets(text, needles) }, previous.log);
  const checkout = input.settings.checkout;
  if (checkout && previous.log.parts === 0 && !previous.log.position && deps.readLogAfter) {
    const first = await deps.readLogAfter(input.namespace, previous.podName, checkout.name, undefined);
    if (first.text) copy.add(first.text);
  }
  const controller = new AbortController();
  const kept = followLog(input.namespace, previous.podName, STEP_CONTAINER, previous.log.position, (text, position) => copy.add(text, position), controller.signal, { follow });
  return {
    async stop(containerEnded) {
      // A follow ends when told; a plain read when it has read what there is. Once the container
      // has exited the kubelet ends the follow itself, after its last line: that is waited for
      // (briefly), since what is still on its way would otherwise be left to FinishStep's plain
      // read, which sees only the newest file of a log that may have rotated meanwhile.
      if (follow) {
        if (containerEnded) await Promise.race([kept.catch(() => undefined), delay(FOLLOW_DRAIN_MS)]);
        controller.abort();
      }
      await kept;
      const { state, failure } = await copy.close();
      // The step goes on: what was not kept now is read on from `state` later.
      if (failure !== undefined) deps.log.warn('Part of the running step\'s log could not be kept yet', { reason: (failure as Error).message ?? String(failure) });
      return state;
    },
  };
}

/** How long a follow may take to send what it has once the step's container has exited. */
const FOLLOW_DRAIN_MS = 2000;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Whether the watch saw the step's container end (so the kubelet is about to end its log's follow). */
function stepContainerEnded(pod: V1Pod | null | undefined): boolean {
  if (!pod) return false;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return true;
  return pod.status?.containerStatuses?.some((c) => c.name === STEP_CONTAINER && c.state?.terminated !== undefined) ?? false;
}

/** How long a poll watches a pod last seen as `phase` (and `reason`), the step having run `runningSeconds` of its `elapsedSeconds` so far. */
function watchSeconds({ phase, reason }: Pick<PollState, 'phase' | 'reason'>, { settings }: StepInput, runningSeconds: number, elapsedSeconds: number): number {
  if (phase === 'pending') return pendingWatchFor(settings.pendingWatchSeconds, { phase, reason }, elapsedSeconds);
  if (phase === 'running') return runningWatchFor(settings, runningSeconds);
  return 0;
}

/**
 * Worth a poll: the pod's progress differs from the last poll's and is not one of the quiet steps
 * every pod goes through on its way to running (a poll there would classify "pending" again).
 */
function movedOn(progress: PodProgress, before: PodProgress | undefined): boolean {
  return !sameProgress(progress, before) && !isQuietPending(progress);
}
