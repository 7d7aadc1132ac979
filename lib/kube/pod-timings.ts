/**
 * When a step's pod went through each point of its life, read off what Kubernetes keeps about it:
 * the one reader of a pod and its events for a step's metrics (lib/workflow/metric-records.ts:
 * queue, pending, pull and run times) and for a build's trace (lib/workflow/build-trace.ts: each
 * step's pending, pulling and running spans). PollStep merges what each poll sees
 * ($.poll.timings); FinishStep's last look before it deletes the pod completes it and keeps it with
 * the step's record. It rides in the Step Functions state, so it is small plain JSON: ISO instants,
 * each absent until seen.
 *
 * The sources, and their precision (RFC 3339 to the second, but the container's own start and end):
 * - `metadata.creationTimestamp`: the API server's, when LaunchStep's create was accepted.
 * - PodScheduled's `lastTransitionTime`, set when the scheduler binds the pod
 *   (kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-conditions).
 * - The kubelet's image manager records `Pulling` ("Pulling image %q") before a pull and `Pulled`
 *   after it ("Successfully pulled image %q in %v (%v including waiting)...", or "Container image %q
 *   already present on machine" when there was nothing to pull), each on the container
 *   (kubernetes/kubernetes pkg/kubelet/images/image_manager.go, EnsureImageExists). A pull retried
 *   after a failure records another Pulling: the first one is when pulling began. The seconds of
 *   the events are too coarse for a pull (a cached layer takes less than one), so the pull ends as
 *   long after its last Pulling as the Pulled says it took ("including waiting": the time since
 *   that Pulling, queueing behind other pulls included), when it says so.
 * - The container's `state.running.startedAt`, or once it ended `state.terminated.startedAt` and
 *   `finishedAt` (k8s.io/api core/v1 types.go ContainerStateRunning, ContainerStateTerminated;
 *   kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#PodStatus).
 */
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { eventFirstSeen, eventLastSeen, isContainerEvent, latestFirst } from './classify-events.js';
import { EventReasons, PodConditionTypes } from './classify-reasons.js';
import { containerStatus, stepContainerName } from './classify-pod.js';
import { toMillis } from './time.js';
import { STEP_CONTAINER } from './types.js';

export interface PodTimings {
  /** metadata.creationTimestamp: when LaunchStep's create was accepted. */
  created?: string;
  /** The PodScheduled condition's lastTransitionTime once True: when the scheduler bound it to a node. */
  scheduled?: string;
  /** The first Pulling of the step container's image; absent: the image was already on the node. */
  pulling?: string;
  /** When that pull ended (the Pulled event's own duration after the last Pulling); absent with `pulling`: the pull never succeeded. */
  pulled?: string;
  /** The step container's state's startedAt (running or terminated): after every init container and every pull. */
  started?: string;
  /** The step container's terminated.finishedAt. */
  finished?: string;
  /**
   * Seconds the kubelet spent pulling the pod's images, every container's, the sum over its Pulled
   * events (an image already present counts 0); absent until one was seen.
   */
  pullSeconds?: number;
}

/** The timings one look at the pod (null: gone, its events alone) and its events give. Pure. */
export function podTimings(pod: V1Pod | null, events: readonly CoreV1Event[]): PodTimings {
  const timings: PodTimings = {};
  const container = pod ? stepContainerName(pod) : STEP_CONTAINER;
  if (pod) {
    set(timings, 'created', toMillis(pod.metadata?.creationTimestamp));
    const scheduled = pod.status?.conditions?.find((c) => c.type === PodConditionTypes.PodScheduled && c.status === 'True');
    set(timings, 'scheduled', toMillis(scheduled?.lastTransitionTime));
  }
  Object.assign(timings, stepPull(events, container));
  if (pod) {
    const state = containerStatus(pod, container)?.state;
    set(timings, 'started', toMillis(state?.running?.startedAt ?? state?.terminated?.startedAt));
    set(timings, 'finished', toMillis(state?.terminated?.finishedAt));
  }
  const pulls = events.filter((event) => event.reason === EventReasons.Pulled);
  if (pulls.length > 0) timings.pullSeconds = round(pulls.reduce((sum, event) => sum + pulledSeconds(event.message ?? ''), 0));
  return timings;
}

/** When the step container's own image pull began and ended (an init container's pull is not the step's). */
function stepPull(events: readonly CoreV1Event[], container: string): Pick<PodTimings, 'pulling' | 'pulled'> {
  const own = events.filter((event) => isContainerEvent(event, container));
  const pullings = own.filter((event) => event.reason === EventReasons.Pulling);
  const pulling = earliest(pullings.map(eventFirstSeen));
  if (pulling === undefined) return {};
  const timings: PodTimings = {};
  set(timings, 'pulling', pulling);
  // Only a Pulled after a Pulling ended a pull ("already present" is a Pulled with no pull before it).
  // The newest by its time: list order means nothing (classify-events.ts).
  const pulled = latestFirst(own.filter((event) => event.reason === EventReasons.Pulled && pulledDurations(event.message) !== undefined))[0];
  if (pulled) {
    const last = latest(pullings.map(eventLastSeen));
    const took = pulledDurations(pulled.message)!.withWaiting * 1000;
    set(timings, 'pulled', last !== undefined ? last + took : eventLastSeen(pulled));
  }
  return timings;
}

const INSTANTS = ['created', 'scheduled', 'pulling', 'pulled', 'started', 'finished'] as const;

/**
 * What the polls have seen so far, and now: a point once seen stays (the pod may be gone by the
 * last poll, and events expire after an hour: the API server's --event-ttl), and the pull's sum
 * only grows (a later look may list more Pulled events, never fewer that still count).
 */
export function mergePodTimings(before: PodTimings | undefined, now: PodTimings): PodTimings {
  const merged: PodTimings = { ...before };
  for (const key of INSTANTS) {
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

function set(timings: PodTimings, key: (typeof INSTANTS)[number], ms: number | undefined): void {
  if (ms !== undefined) timings[key] = new Date(ms).toISOString();
}

const earliest = (times: (number | undefined)[]) => pick(times, Math.min);
const latest = (times: (number | undefined)[]) => pick(times, Math.max);

function pick(times: (number | undefined)[], choose: (...values: number[]) => number): number | undefined {
  const known = times.filter((t): t is number => t !== undefined);
  return known.length > 0 ? choose(...known) : undefined;
}

/** Milliseconds are as fine as any of these instants are (the API server's are seconds). */
function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
