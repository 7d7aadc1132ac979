/**
 * A step's pod as the console page shows it: its status and the kubelet's and scheduler's events.
 * Pure: an Observation (lib/kube's observeStep) in, plain JSON out, so the registry can keep it
 * after the pod is deleted.
 */
import type { CoreV1Event, V1ContainerStatus } from '@kubernetes/client-node';
import { STEP_CONTAINER, eventCount, eventFirstSeen, eventLastSeen, serviceStates, type Observation } from '../kube/index.js';

export interface PodEventView {
  /** The container it is about (its fieldPath's name, a service's too); null for the pod itself. */
  container?: string | null;
  type: string;
  reason: string;
  message: string;
  count: number;
  /** Who said it: kubelet, default-scheduler... */
  source: string;
  firstSeen: string | null;
  lastSeen: string | null;
}

export interface StepPodView {
  podName: string;
  /** Pending / Running / Succeeded / Failed, or "Deleted" once the pod is gone. */
  phase: string;
  /** The step container's state: waiting / running / terminated, with kubelet's reason and message. */
  container: { state: string; reason: string | null; message: string | null; exitCode: number | null } | null;
  node: string | null;
  /** Oldest first, as `kubectl describe pod` lists them. */
  events: PodEventView[];
  observedAt: string;
  /** True once the pod was seen gone: the status above is how it was last seen. */
  deleted: boolean;
  /** The step's services (its sidecars), as last seen; absent or empty when it has none. */
  services?: ServiceContainerView[];
}

/** A service's container, as the step's panel lists it beside the step's own. */
export interface ServiceContainerView {
  name: string;
  /** waiting / starting (ports not open yet) / running / terminated. */
  state: string;
  reason: string | null;
  message: string | null;
  exitCode: number | null;
  restarts: number;
}

/**
 * `previous` is the view from an earlier poll: once the pod is deleted the cluster has only its
 * events left, so its last seen status is kept.
 */
export function podView(podName: string, observation: Observation, previous?: StepPodView): StepPodView {
  const pod = observation.pod;
  const events = observation.events.map(eventView).sort((a, b) => (a.firstSeen ?? '').localeCompare(b.firstSeen ?? ''));
  // The runner deletes the pod when its step ends; a terminating pod's status (its container
  // killed) says nothing about the step, so how it was seen before stays on show.
  const terminating = Boolean(pod?.metadata?.deletionTimestamp);
  if (!pod || (terminating && previous)) {
    return {
      podName,
      phase: previous?.phase ?? 'Unknown',
      container: previous?.container ?? null,
      node: previous?.node ?? null,
      // Events outlive the pod; an empty list from a later read (expired events) keeps the earlier ones.
      events: events.length > 0 ? events : (previous?.events ?? []),
      observedAt: observation.observedAt.toISOString(),
      deleted: true,
      services: previous?.services ?? [],
    };
  }
  const status = pod.status?.containerStatuses?.find((c) => c.name === STEP_CONTAINER) ?? pod.status?.containerStatuses?.[0];
  return {
    podName,
    phase: terminating ? `${pod.status?.phase ?? 'Unknown'} (terminating)` : (pod.status?.phase ?? 'Unknown'),
    container: status ? containerView(status) : null,
    node: pod.spec?.nodeName ?? null,
    events,
    observedAt: observation.observedAt.toISOString(),
    deleted: terminating,
    services: serviceStates(pod).map((service) => {
      const status = pod.status?.initContainerStatuses?.find((c) => c.name === service.name);
      const message = status?.state?.waiting?.message ?? status?.state?.terminated?.message ?? null;
      return { name: service.name, state: service.state, reason: service.reason ?? null, message, exitCode: service.exitCode ?? null, restarts: service.restarts ?? 0 };
    }),
  };
}

function containerView(status: V1ContainerStatus): NonNullable<StepPodView['container']> {
  const { waiting, running, terminated } = status.state ?? {};
  if (terminated) {
    return { state: 'terminated', reason: terminated.reason ?? null, message: terminated.message ?? null, exitCode: terminated.exitCode ?? null };
  }
  if (running) return { state: 'running', reason: null, message: null, exitCode: null };
  return { state: 'waiting', reason: waiting?.reason ?? null, message: waiting?.message ?? null, exitCode: null };
}

/** A scheduler event (events.k8s.io: source {}, no timestamps or count, but eventTime and series) reads as a kubelet one. */
function eventView(event: CoreV1Event): PodEventView {
  const time = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    container: /\{([^}]*)\}$/.exec(event.involvedObject?.fieldPath ?? '')?.[1] ?? null,
    type: event.type ?? 'Normal',
    reason: event.reason ?? '',
    message: event.message ?? '',
    count: eventCount(event),
    source: event.source?.component || event.reportingComponent || '',
    firstSeen: time(eventFirstSeen(event)),
    lastSeen: time(eventLastSeen(event)),
  };
}
