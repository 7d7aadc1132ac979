import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { EventReasons, PodConditionTypes } from './classify-reasons.js';
import { containerStatus, stepContainerName } from './classify-pod.js';
import { toMillis } from './time.js';

/**
 * When a step's pod reached each point of its life, as the pod and its events say: what a step's
 * metrics are measured from (lib/workflow/step-metrics.ts). It rides in the Step Functions state
 * ($.poll.timings), so it is small plain JSON: ISO instants, each absent until seen.
 */
export interface PodTimings {
  /** metadata.creationTimestamp: the API server's, when LaunchStep's create was accepted. */
  created?: string;
  /** The PodScheduled condition's lastTransitionTime once True: when the scheduler bound it to a node. */
  scheduled?: string;
  /** The step container's state's startedAt (running or terminated): after every init container and every pull. */
  started?: string;
  /** The step container's terminated.finishedAt. */
  finished?: string;
  /**
   * Seconds the kubelet spent pulling the pod's images, the sum over its Pulled events (an image
   * already present counts 0); absent until one was seen.
   */
  pullSeconds?: number;
}

/**
 * The timings one look at the pod gives. The pod's status is the kubelet's and the scheduler's own
 * record (k8s.io/api core/v1 types.go: PodCondition.lastTransitionTime, ContainerStateRunning and
 * ContainerStateTerminated startedAt/finishedAt); the pull's duration only the kubelet's Pulled
 * event tells. A pod that is gone (null) gives only its events.
 */
export function podTimings(pod: V1Pod | null, events: readonly CoreV1Event[]): PodTimings {
  const timings: PodTimings = {};
  if (pod) {
    const created = iso(pod.metadata?.creationTimestamp);
    if (created) timings.created = created;
    const scheduled = pod.status?.conditions?.find((c) => c.type === PodConditionTypes.PodScheduled && c.status === 'True');
    const scheduledAt = iso(scheduled?.lastTransitionTime);
    if (scheduledAt) timings.scheduled = scheduledAt;
    const state = containerStatus(pod, stepContainerName(pod))?.state;
    const started = iso(state?.running?.startedAt ?? state?.terminated?.startedAt);
    if (started) timings.started = started;
    const finished = iso(state?.terminated?.finishedAt);
    if (finished) timings.finished = finished;
  }
  const pulls = events.filter((event) => event.reason === EventReasons.Pulled);
  if (pulls.length > 0) timings.pullSeconds = round(pulls.reduce((sum, event) => sum + pulledSeconds(event.message ?? ''), 0));
  return timings;
}

/**
 * What the polls have seen so far, and now: a point once seen stays (the pod may be gone by the
 * last poll, and events expire after an hour: the API server's --event-ttl), and the pull's sum
 * only grows (a later look may list more Pulled events, never fewer that still count).
 */
export function mergePodTimings(before: PodTimings | undefined, now: PodTimings): PodTimings {
  const merged: PodTimings = { ...before };
  for (const key of ['created', 'scheduled', 'started', 'finished'] as const) {
    if (merged[key] === undefined && now[key] !== undefined) merged[key] = now[key];
  }
  // A restarted container's later start is the one its finish belongs to.
  if (now.started !== undefined && now.finished !== undefined) Object.assign(merged, { started: now.started, finished: now.finished });
  if (now.pullSeconds !== undefined) merged.pullSeconds = Math.max(merged.pullSeconds ?? 0, now.pullSeconds);
  return merged;
}

const GO_DURATION = '([0-9.]+[a-zµ]+(?:[0-9.]+[a-zµ]+)*)';
const PULLED = new RegExp(`^Successfully pulled image .* in ${GO_DURATION}(?: \\(${GO_DURATION} including waiting\\))?(?:\\.|$)`);

/**
 * A Pulled event's durations, in seconds. The kubelet's words (kubernetes/kubernetes
 * pkg/kubelet/images/image_manager.go, EnsureImageExists): `Successfully pulled image "X" in 796ms
 * (1.594s including waiting). Image size: N bytes.`, the first duration the pull itself, the second
 * with the wait for an earlier pull (serialized pulls; before 1.28 there is no second); or
 * `Container image "X" already present on machine`: no pull, undefined.
 */
export function pulledDurations(message: string | undefined): { pull: number; withWaiting: number } | undefined {
  const match = PULLED.exec(message ?? '');
  const pull = match ? goDurationSeconds(match[1]!) : undefined;
  if (pull === undefined) return undefined;
  return { pull, withWaiting: (match![2] !== undefined ? goDurationSeconds(match![2]) : undefined) ?? pull };
}

/**
 * A Pulled event's pull time (pulledDurations): the pull itself is counted, since the wait is
 * another pull's time, which summing both would count twice.
 */
export function pulledSeconds(message: string): number {
  return pulledDurations(message)?.pull ?? 0;
}

const GO_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Go's time.Duration.String() back to seconds ("1m2.5s", "812ms"); undefined when it is not one. */
export function goDurationSeconds(text: string): number | undefined {
  const parts = [...text.matchAll(/([0-9]+(?:\.[0-9]+)?)([a-zµ]+)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return undefined;
  let seconds = 0;
  for (const [, value, unit] of parts) {
    const factor = GO_UNITS[unit!];
    if (factor === undefined) return undefined;
    seconds += Number(value) * factor;
  }
  return seconds;
}

/** Seconds from one instant to another, never negative (clocks of the API server and a node differ a little); undefined unless both are known. */
export function secondsBetween(from: string | undefined, to: string | undefined): number | undefined {
  const a = toMillis(from);
  const b = toMillis(to);
  return a === undefined || b === undefined ? undefined : round(Math.max(0, (b - a) / 1000));
}

function iso(value: Date | string | undefined | null): string | undefined {
  const ms = toMillis(value);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

/** Milliseconds are as fine as any of these instants are (the API server's are seconds). */
function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
