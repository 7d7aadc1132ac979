/** Pure rules for a pod's phase and conditions from its container statuses, as the kubelet derives them. */
import type { Container, ContainerStatus, Pod, PodCondition, PodStatus } from './objects.js';

/** The names of a pod's sidecars: init containers with `restartPolicy: Always` (KEP-753), in declaration order. */
export function sidecarNames(pod: Pick<Pod, 'spec'>): string[] {
  return (pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name);
}

/**
 * The kubelet's getPhase for a restartPolicy Never pod. Its ordinary init containers must each end
 * with exit 0 before its containers start; one that fails fails the pod, and until they are through
 * (and every sidecar has started) it is Pending. A sidecar (named in `sidecars`) that runs counts
 * as running; one that has terminated, or waits to restart after terminating, does not count at
 * all: once the containers have all ended and the sidecars are stopped, the containers alone say
 * Succeeded or Failed.
 */
export function derivePhase(statuses: ContainerStatus[], initStatuses: ContainerStatus[] = [], sidecars: ReadonlySet<string> = new Set()): PodStatus['phase'] {
  const regular = initStatuses.filter((s) => !sidecars.has(s.name));
  const side = initStatuses.filter((s) => sidecars.has(s.name));
  if (regular.some((s) => s.state.terminated && s.state.terminated.exitCode !== 0)) return 'Failed';
  if (!regular.every((s) => s.state.terminated?.exitCode === 0)) return 'Pending';
  const sidecarPending = side.some((s) => (s.state.running ? !s.started : !s.state.terminated && !s.lastState.terminated));
  if (sidecarPending) return 'Pending';
  const sidecarRunning = side.some((s) => s.state.running);
  if (statuses.length > 0 && statuses.every((s) => s.state.terminated)) {
    if (sidecarRunning) return 'Running';
    return statuses.some((s) => s.state.terminated?.exitCode !== 0) ? 'Failed' : 'Succeeded';
  }
  return statuses.some((s) => s.state.running) ? 'Running' : 'Pending';
}

/** Sets a condition, keeping lastTransitionTime when its status does not change. */
export function setCondition(
  conditions: PodCondition[],
  type: string,
  status: PodCondition['status'],
  now: string,
  reason?: string,
  message?: string,
): PodCondition[] {
  const existing = conditions.find((c) => c.type === type);
  const next: PodCondition = {
    type,
    status,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
    lastProbeTime: null,
    lastTransitionTime: existing && existing.status === status ? existing.lastTransitionTime : now,
  };
  const others = conditions.filter((c) => c.type !== type);
  return [...others, next];
}

/** Whether an init container no longer holds the pod's initialization: ended with exit 0, or a sidecar that has started (its startup probe passed). */
function initComplete(s: ContainerStatus, sidecars: ReadonlySet<string>): boolean {
  if (!sidecars.has(s.name)) return s.state.terminated?.exitCode === 0;
  return s.started;
}

const ORDER = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

/** The conditions of a pod that is bound to the node, for its current container statuses. */
export function nodeConditions(
  current: PodCondition[],
  statuses: ContainerStatus[],
  phase: PodStatus['phase'],
  now: string,
  initStatuses: ContainerStatus[] = [],
  sidecars: ReadonlySet<string> = new Set(),
): PodCondition[] {
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  // A sidecar's readiness counts towards the pod's, as the kubelet counts it.
  const unready = [...initStatuses.filter((s) => sidecars.has(s.name)), ...statuses].filter((s) => !s.ready).map((s) => s.name);
  // GeneratePodInitializedCondition: once a container has started the pod stays initialized, even
  // while a sidecar restarts; before that, a sidecar restarting (or failing its startup probe)
  // still holds it.
  const containerStarted = statuses.some((s) => s.state.running !== undefined || s.state.terminated !== undefined);
  const incomplete = containerStarted ? [] : initStatuses.filter((s) => !initComplete(s, sidecars)).map((s) => s.name);
  let conditions = setCondition(current, 'PodReadyToStartContainers', terminal ? 'False' : 'True', now);
  conditions =
    incomplete.length === 0
      ? setCondition(conditions, 'Initialized', 'True', now)
      : setCondition(conditions, 'Initialized', 'False', now, 'ContainersNotInitialized', `containers with incomplete status: [${incomplete.join(' ')}]`);
  for (const type of ['Ready', 'ContainersReady']) {
    conditions =
      unready.length === 0
        ? setCondition(conditions, type, 'True', now)
        : terminal
          ? setCondition(conditions, type, 'False', now, 'PodCompleted')
          : setCondition(conditions, type, 'False', now, 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`);
  }
  conditions = setCondition(conditions, 'PodScheduled', 'True', now);
  return conditions.sort((a, b) => ORDER.indexOf(a.type) - ORDER.indexOf(b.type));
}

/** ContainerCreating, or PodInitializing while the pod has init containers to run first. */
function creatingStatus(container: Container, reason: string): ContainerStatus {
  return {
    name: container.name,
    image: container.image,
    imageID: '',
    ready: false,
    started: false,
    restartCount: 0,
    state: { waiting: { reason } },
    lastState: {},
  };
}

/** The status of a pod the node has just taken on: its node's IP, its start time, every container being created. */
export function admittedStatus(pod: Pod, ip: string, startTime: string): PodStatus {
  const initStatuses = (pod.spec.initContainers ?? []).map((c) => creatingStatus(c, 'PodInitializing'));
  const waiting = initStatuses.length > 0 ? 'PodInitializing' : 'ContainerCreating';
  const statuses = pod.spec.containers.map((c) => creatingStatus(c, waiting));
  return {
    ...pod.status,
    phase: 'Pending',
    hostIP: ip,
    hostIPs: [{ ip }],
    // No podIP yet: the pod has one once its sandbox is made (pod-worker.ts runSandbox).
    startTime,
    ...(initStatuses.length > 0 ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
    conditions: nodeConditions(pod.status?.conditions ?? [], statuses, 'Pending', startTime, initStatuses, new Set(sidecarNames(pod))),
  };
}
