/**
 * A step's services as its pod shows them: Kubernetes native sidecars, init containers with
 * `restartPolicy: Always` (KEP-753), which start in order before the step's container and run
 * beside it. Pure helpers for the classifier (classify.ts) and the views: which containers are
 * services, how each one stands, when one has ended, and what its startup probe said.
 *
 * A sidecar is always restarted by the kubelet, whatever the pod's restartPolicy, so a service that
 * exits shows as `terminated`, or (after the restart) `waiting: CrashLoopBackOff` / `running` again
 * with `restartCount > 0` and its last exit in `lastState.terminated`.
 */
import type { CoreV1Event, V1Container, V1ContainerStateTerminated, V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { EventReasons } from './classify-reasons.js';
import { eventFirstSeen, eventLastSeen, isContainerEvent, latestFirst } from './classify-events.js';
import { isServiceItself, portGateOf } from './service-containers.js';
import { toMillis } from './time.js';

/**
 * A sidecar of the step's pod: an init container the kubelet keeps running, a service's own
 * container or one of its port gates (service-containers.ts).
 */
export function isServiceContainer(spec: Pick<V1Container, 'restartPolicy'> | undefined): boolean {
  return spec?.restartPolicy === 'Always';
}

/** The pod's services' own containers (not their port gates), in the order they start. */
export function serviceContainers(pod: V1Pod): V1Container[] {
  return (pod.spec?.initContainers ?? []).filter(isServiceItself);
}

function initStatus(pod: V1Pod, name: string): V1ContainerStatus | undefined {
  return pod.status?.initContainerStatuses?.find((s) => s.name === name);
}

/** How a service stands, for the step's result and the views (small: it rides in the state data). */
export interface ServiceState {
  name: string;
  /**
   * waiting: not running (pulling, CrashLoopBackOff, ...: `reason` says); starting: running, its
   * ports not open yet (the step waits); running: started, the step may use it; terminated: ended.
   */
  state: 'waiting' | 'starting' | 'running' | 'terminated';
  reason?: string;
  /** Its last exit: the current one when terminated, else the one before the kubelet restarted it. */
  exitCode?: number;
  /** Times the kubelet restarted it; absent when none. */
  restarts?: number;
}

export function serviceStates(pod: V1Pod | null): ServiceState[] {
  if (!pod) return [];
  return serviceContainers(pod).map((spec) => {
    const status = initStatus(pod, spec.name);
    const state = status?.state;
    const last = state?.terminated ?? status?.lastState?.terminated;
    const restarts = status?.restartCount ?? 0;
    const word: ServiceState['state'] = state?.terminated ? 'terminated' : state?.running ? (status?.started ? 'running' : 'starting') : 'waiting';
    const reason = state?.waiting?.reason ?? state?.terminated?.reason;
    return {
      name: spec.name,
      state: word,
      ...(reason ? { reason } : {}),
      ...(last ? { exitCode: last.exitCode } : {}),
      ...(restarts > 0 ? { restarts } : {}),
    };
  });
}

/**
 * One sidecar as a poll saw it: spec, status and its own events (newest first). `service` is the
 * service it belongs to: itself, or for a port gate the service that declares the gate's port.
 */
export interface ObservedService {
  /** The container's name. */
  name: string;
  service: string;
  /** For a port gate: the port it waits for (its startup probe's). */
  gatePort?: number;
  spec: V1Container;
  /** The service's own container spec (a gate's is the step's image, idling). */
  serviceSpec?: V1Container;
  status?: V1ContainerStatus;
  events: CoreV1Event[];
}

export function observedServices(pod: V1Pod, events: readonly CoreV1Event[]): ObservedService[] {
  const sidecars = (pod.spec?.initContainers ?? []).filter(isServiceContainer);
  return sidecars.map((spec) => {
    const status = initStatus(pod, spec.name);
    const gate = isServiceItself(spec) ? undefined : portGateOf(pod, spec.name);
    const serviceSpec = gate ? sidecars.find((c) => c.name === gate.service) : spec;
    return {
      name: spec.name,
      service: gate?.service ?? spec.name,
      ...(gate ? { gatePort: gate.port } : {}),
      spec,
      ...(serviceSpec ? { serviceSpec } : {}),
      ...(status ? { status } : {}),
      events: latestFirst(events.filter((e) => isContainerEvent(e, spec.name, true))),
    };
  });
}

/**
 * The kubelet's Killing event when a startup probe gave up on the container: "Container db failed
 * startup probe, will be restarted", or for a sidecar "Init container db failed startup probe"
 * (pkg/kubelet/kuberuntime).
 */
export function isStartupProbeKill(event: CoreV1Event): boolean {
  return event.reason === EventReasons.Killing && /\bfailed startup probe\b/.test(event.message ?? '');
}

/** "Startup probe failed: dial tcp 10.0.0.5:5432: connect: connection refused" (reason Unhealthy). */
export function isStartupProbeFailure(event: CoreV1Event): boolean {
  return event.reason === EventReasons.Unhealthy && /^Startup probe failed\b/.test(event.message ?? '');
}

/**
 * The service's last end, if it has ended: its current state when terminated, else the exit the
 * kubelet restarted it after. Undefined for a service that never ran or runs without a restart.
 */
export function lastExit(service: ObservedService): V1ContainerStateTerminated | undefined {
  const status = service.status;
  if (status?.state?.terminated) return status.state.terminated;
  if ((status?.restartCount ?? 0) > 0 || status?.state?.waiting) return status?.lastState?.terminated;
  return undefined;
}

/**
 * The service's end before the step's own container ended at `stepFinishedAt` (any end, while the
 * step has not ended), not one its startup probe caused: its current end, else the one before it.
 * The kubelet keeps the previous run of a container in lastState whatever the current one is
 * (kubernetes/kubernetes pkg/kubelet/kubelet_pods.go convertToAPIContainerStatuses: the second
 * newest container of the name is LastTerminationState), so a service that crashed while the
 * step ran, was restarted, and was stopped by the kubelet after the step's end still shows that
 * crash. Termination times have whole seconds: an end in the step's own second counts as after.
 */
export function endedBeforeStep(service: ObservedService, stepFinishedAt: number | undefined): V1ContainerStateTerminated | undefined {
  const status = service.status;
  const candidates = [lastExit(service), status?.state?.terminated ? status.lastState?.terminated : undefined];
  return candidates.find((exit): exit is V1ContainerStateTerminated => {
    if (!exit || killedByStartupProbe(service, exit)) return false;
    if (stepFinishedAt === undefined) return true;
    const finished = toMillis(exit.finishedAt);
    return finished !== undefined && finished < stepFinishedAt;
  });
}

/**
 * Whether that end was the kubelet's doing after the startup probe gave up (the ports never
 * opened), not the service's own: a startup-probe Killing event from within its run.
 */
export function killedByStartupProbe(service: ObservedService, exit: V1ContainerStateTerminated): boolean {
  const from = toMillis(exit.startedAt);
  const to = toMillis(exit.finishedAt);
  return service.events.some((e) => {
    if (!isStartupProbeKill(e)) return false;
    const seen = eventLastSeen(e);
    if (seen === undefined || from === undefined || to === undefined) return true;
    // Event times have whole seconds; the kill comes just before the exit it causes.
    return seen >= from - 1000 && seen <= to + 5000;
  });
}

/** The newest startup probe failure about the service, for its words and its port. */
export function lastProbeFailure(service: ObservedService): CoreV1Event | undefined {
  return service.events.find(isStartupProbeFailure);
}

/** When the service first started: its startup grace counts from here (restarts do not reset it). */
export function firstStarted(service: ObservedService): number | undefined {
  const started = service.events
    .filter((e) => e.reason === EventReasons.Started)
    .map(eventFirstSeen)
    .filter((t): t is number => t !== undefined);
  const candidates = [
    ...started,
    toMillis(service.status?.lastState?.terminated?.startedAt),
    toMillis(service.status?.state?.running?.startedAt),
    toMillis(service.status?.state?.terminated?.startedAt),
    ...service.events.filter(isStartupProbeFailure).map(eventFirstSeen),
  ].filter((t): t is number => t !== undefined && t > 0);
  return candidates.length > 0 ? Math.min(...candidates) : undefined;
}

/**
 * The ports the service has not opened: the one its probe dialled ("dial tcp HOST:PORT"), else
 * its startup probe's tcpSocket port, else every port its container declares.
 */
export function unopenedPorts(service: ObservedService): (number | string)[] {
  if (service.gatePort !== undefined) return [service.gatePort];
  const words = lastProbeFailure(service)?.message ?? '';
  const dialled = /\bdial tcp \[?[^\s\]]*\]?:(\d+)\b/.exec(words)?.[1];
  if (dialled) return [Number(dialled)];
  const probePort = service.spec.startupProbe?.tcpSocket?.port;
  if (probePort !== undefined) return [probePort];
  return (service.spec.ports ?? []).map((p) => p.containerPort);
}

/** The probe's own words, without the kubelet's "Startup probe failed:" lead. */
export function probeWords(event: CoreV1Event | undefined): string | undefined {
  const text = event?.message?.replace(/^Startup probe failed:\s*/, '').trim();
  return text || undefined;
}
