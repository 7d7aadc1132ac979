/**
 * Reading a pod's events: which belong to the step's container or to the pod itself, when each
 * one last happened, how often, and in whose words. Events come in two shapes. The kubelet and
 * the volume controllers write core/v1 Events: one object's `count` grows while `lastTimestamp`
 * moves. The scheduler writes through events.k8s.io, which read through core/v1 have
 * `firstTimestamp` and `lastTimestamp` null and no count, but an `eventTime` (first seen) and,
 * once repeated, `series: {count, lastObservedTime}`. So list order means nothing, and no field
 * alone says when or how often.
 */
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { EventReasons, InvolvedKinds, VolumeEventReasons } from './classify-reasons.js';
import { toMillis } from './time.js';

function defined(values: (number | undefined)[]): number[] {
  return values.filter((v): v is number => v !== undefined);
}

/**
 * When the event last happened: the latest of the times it carries (lastTimestamp, else
 * series.lastObservedTime, else eventTime, else firstTimestamp: whichever shape it has).
 */
export function eventLastSeen(event: CoreV1Event): number | undefined {
  const times = defined([
    toMillis(event.series?.lastObservedTime),
    toMillis(event.lastTimestamp),
    toMillis(event.eventTime),
    toMillis(event.firstTimestamp),
  ]);
  if (times.length > 0) return Math.max(...times);
  return toMillis(event.metadata?.creationTimestamp);
}

/** When the event first happened: firstTimestamp, or an events.k8s.io event's eventTime. */
export function eventFirstSeen(event: CoreV1Event): number | undefined {
  const times = defined([toMillis(event.firstTimestamp), toMillis(event.eventTime)]);
  if (times.length > 0) return Math.min(...times);
  return toMillis(event.metadata?.creationTimestamp) ?? eventLastSeen(event);
}

/** How many times it happened: the legacy count, else the series' count (an events.k8s.io singleton has neither). */
export function eventCount(event: CoreV1Event): number {
  return event.count || event.series?.count || 1;
}

/** What the legacy recorder puts before the message of an Event that stands for several similar ones. */
export const COMBINED_EVENTS_PREFIX = '(combined from similar events): ';

/**
 * The event in its own words. The kubelet's recorder sends the tenth different message with one
 * reason about one pod within 10 minutes, and the ones after, to a single Event whose message is
 * `(combined from similar events): ` and the latest message (client-go events_cache.go): a pod
 * with a few images that cannot be pulled gets there. Every reading of the words starts after it.
 */
export function withOwnWords(event: CoreV1Event): CoreV1Event {
  const message = event.message;
  return message?.startsWith(COMBINED_EVENTS_PREFIX) ? { ...event, message: message.slice(COMBINED_EVENTS_PREFIX.length) } : event;
}

/** Newest first; events with no time at all sort last. */
export function latestFirst(events: readonly CoreV1Event[]): CoreV1Event[] {
  // Legacy events are stamped to the second, so the kubelet's Pulling and its Failed verdict often
  // tie: the apiserver lists events by name, which ends in the time of their creation, so of two
  // in the same second the one listed later is the newer.
  return events
    .map((event, index) => ({ event, index, seen: eventLastSeen(event) ?? -Infinity }))
    .sort((a, b) => b.seen - a.seen || b.index - a.index)
    .map(({ event }) => event);
}

/**
 * Events about this pod (null: it is gone, and any pod event may tell why). Pod names are
 * deterministic (a relaunched step reuses its name) and events outlive their pod by an hour, so
 * when both sides carry a uid, an event of an earlier pod with the same name is left out. A side
 * without a name or uid keeps the event: nothing says it is someone else's.
 */
export function isAboutPod(event: CoreV1Event, pod: V1Pod | null): boolean {
  const ref = event.involvedObject;
  if (ref.kind !== undefined && ref.kind !== InvolvedKinds.Pod) return false;
  const name = pod?.metadata?.name;
  if (ref.name !== undefined && name !== undefined && ref.name !== name) return false;
  const uid = pod?.metadata?.uid;
  if (ref.uid !== undefined && uid !== undefined && ref.uid !== uid) return false;
  return true;
}

/**
 * Events about the build's workspace claim. Claims are named per build and live no longer than
 * it, so the name is enough; the claim's uid would cost a read of the claim on every poll.
 */
export function isAboutClaim(event: CoreV1Event, claimName: string): boolean {
  const ref = event.involvedObject;
  return ref.kind === InvolvedKinds.PersistentVolumeClaim && ref.name === claimName;
}

/** How the kubelet's events name a container: init containers under their own list. */
export function containerFieldPath(container: string, init = false): string {
  return `spec.${init ? 'initContainers' : 'containers'}{${container}}`;
}

export function isContainerEvent(event: CoreV1Event, container: string, init = false): boolean {
  return event.involvedObject.fieldPath === containerFieldPath(container, init);
}

/** Scheduler and eviction events name the pod without a fieldPath. */
export function isPodLevelEvent(event: CoreV1Event): boolean {
  return !event.involvedObject.fieldPath;
}

const PULL_FAILED_PREFIX = /^Failed to pull image\b/;
const BACK_OFF_PREFIX = /^Back-off pulling image\b/;

/** An event that reports an image pull problem (not the bare "Error: ErrImagePull" echo). */
export function isPullFailureEvent(event: CoreV1Event): boolean {
  const message = event.message ?? '';
  switch (event.reason) {
    case EventReasons.Failed:
      return PULL_FAILED_PREFIX.test(message) || /^Error: (ErrImagePull|ImagePullBackOff)\b/.test(message);
    case EventReasons.BackOff:
      return BACK_OFF_PREFIX.test(message);
    case EventReasons.InspectFailed:
    case EventReasons.ErrImageNeverPull:
      return true;
    default:
      return false;
  }
}

/**
 * An event that carries the runtime's or registry's own words: "Failed to pull image X: <error>",
 * the newer "Back-off pulling image X: ErrImagePull: <error>", or an inspect failure.
 */
export function carriesPullError(event: CoreV1Event): boolean {
  const message = event.message ?? '';
  if (event.reason === EventReasons.Failed) return PULL_FAILED_PREFIX.test(message);
  if (event.reason === EventReasons.BackOff) return hasBackOffDetail(message);
  return event.reason === EventReasons.InspectFailed || event.reason === EventReasons.ErrImageNeverPull;
}

/** The plain back-off message says only which image; newer kubelets append ": Reason: <error>". */
export function hasBackOffDetail(message: string): boolean {
  return /^Back-off pulling image "(?:[^"\\]|\\.)*": \S/.test(message);
}

export function isSchedulingFailure(event: CoreV1Event): boolean {
  return event.reason === EventReasons.FailedScheduling;
}

/** The attach/detach controller's and the kubelet's reports on the pod's volumes, failed or not. */
export function isVolumeEvent(event: CoreV1Event): boolean {
  return (
    event.reason === VolumeEventReasons.FailedAttachVolume ||
    event.reason === VolumeEventReasons.SuccessfulAttachVolume ||
    event.reason === VolumeEventReasons.FailedMount
  );
}

export function isVolumeFailure(event: CoreV1Event): boolean {
  return event.reason === VolumeEventReasons.FailedAttachVolume || event.reason === VolumeEventReasons.FailedMount;
}

/** The provisioner's outcome on the claim: failed (Warning) or done. */
export function isProvisioningOutcome(event: CoreV1Event): boolean {
  return event.reason === VolumeEventReasons.ProvisioningFailed || event.reason === VolumeEventReasons.ProvisioningSucceeded;
}
