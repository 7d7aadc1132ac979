/**
 * When a step's pod went through its phases, read off what Kubernetes keeps about it: the pod's
 * PodScheduled condition, the kubelet's Pulling and Pulled events for the step's container, and
 * the container's own state. A build's trace (lib/workflow/build-trace.ts) splits each step into
 * pending, pulling and running with these; nothing else records them.
 *
 * The sources, and their precision (all RFC 3339 to the second, but the step's own start and end):
 * - PodScheduled's `lastTransitionTime`, set when the scheduler binds the pod
 *   (kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-conditions).
 * - The kubelet's image manager records `Pulling` ("Pulling image %q") before a pull and `Pulled`
 *   after it ("Successfully pulled image %q in %v (%v including waiting)...", or "Container image %q
 *   already present on machine" when there was nothing to pull), each on the container
 *   (kubernetes/kubernetes pkg/kubelet/images/image_manager.go, EnsureImageExists). A pull retried
 *   after a failure records another Pulling: the first one is when pulling began.
 *   The seconds of the events are too coarse for a pull (a cached layer takes less than one), so
 *   the pull ends as long after its last Pulling as the Pulled says it took ("including waiting": the
 *   time since that Pulling, queueing behind other pulls included), when it says so.
 * - The container's `state.running.startedAt`, or once it ended `state.terminated.startedAt` and
 *   `finishedAt` (kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#PodStatus).
 */
import type { CoreV1Event, V1ContainerState, V1Pod } from '@kubernetes/client-node';
import { eventFirstSeen, eventLastSeen, isContainerEvent, latestFirst } from './classify-events.js';
import { EventReasons } from './classify-reasons.js';
import { pulledDurations } from './pod-timings.js';
import { toMillis } from './time.js';
import { STEP_CONTAINER } from './types.js';

/** ISO 8601 times; each absent when it did not happen (or nothing says when). */
export interface StepTimeline {
  scheduledAt?: string;
  /** The first Pulling of the step container's image; absent: the image was already on the node. */
  pullingAt?: string;
  /** When the pull ended (the Pulled event's own duration after the last Pulling); absent with `pullingAt`: the pull never succeeded. */
  pulledAt?: string;
  runningAt?: string;
  finishedAt?: string;
}

/** The step container's timeline from its pod (null: gone) and the pod's events. Pure. */
export function podTimeline(pod: V1Pod | null, events: readonly CoreV1Event[]): StepTimeline {
  const timeline: StepTimeline = {};
  const scheduled = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'True')?.lastTransitionTime;
  set(timeline, 'scheduledAt', toMillis(scheduled));
  const own = events.filter((event) => isContainerEvent(event, STEP_CONTAINER));
  const pullings = own.filter((event) => event.reason === EventReasons.Pulling);
  const pulling = earliest(pullings.map(eventFirstSeen));
  set(timeline, 'pullingAt', pulling);
  // Only a Pulled after a Pulling ended a pull ("already present" is a Pulled with no pull before it).
  // The newest by its time: list order means nothing (classify-events.ts).
  const pulled = latestFirst(own.filter((event) => event.reason === EventReasons.Pulled && pullTook(event.message) !== undefined))[0];
  if (pulling !== undefined && pulled) {
    const last = latest(pullings.map(eventLastSeen));
    const took = pullTook(pulled.message);
    set(timeline, 'pulledAt', last !== undefined && took !== undefined ? last + took : eventLastSeen(pulled));
  }
  const state: V1ContainerState | undefined = pod?.status?.containerStatuses?.find((c) => c.name === STEP_CONTAINER)?.state;
  set(timeline, 'runningAt', toMillis(state?.running?.startedAt ?? state?.terminated?.startedAt));
  set(timeline, 'finishedAt', toMillis(state?.terminated?.finishedAt));
  return timeline;
}

/**
 * How long a successful pull took, in ms, from the kubelet's Pulled message: `in 15.981s (15.981s
 * including waiting)` (the second figure, since 1.28), or `in 15.981s` before it; undefined for any
 * other Pulled ("already present on machine"). Go's Duration.String(): `1m2.5s`, `850ms`, `0s`.
 */
export function pullTook(message: string | undefined): number | undefined {
  const took = pulledDurations(message);
  return took === undefined ? undefined : took.withWaiting * 1000;
}

function set(timeline: StepTimeline, key: keyof StepTimeline, ms: number | undefined): void {
  if (ms !== undefined) timeline[key] = new Date(ms).toISOString();
}

const earliest = (times: (number | undefined)[]) => pick(times, Math.min);
const latest = (times: (number | undefined)[]) => pick(times, Math.max);

function pick(times: (number | undefined)[], choose: (...values: number[]) => number): number | undefined {
  const known = times.filter((t): t is number => t !== undefined);
  return known.length > 0 ? choose(...known) : undefined;
}
