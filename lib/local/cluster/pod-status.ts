/** Pure rules for a pod's phase and conditions from its container statuses, as the kubelet derives them. */
import type { Container, ContainerStatus, Pod, PodCondition, PodStatus } from './objects.js';

/**
 * A pod's init containers must each end with exit 0 before its containers start; one that fails
 * fails the pod (restartPolicy is treated as Never), and until they are through it is Pending.
 */
export function derivePhase(statuses: ContainerStatus[], initStatuses: ContainerStatus[] = []): PodStatus['phase'] {
  if (initStatuses.some((s) => s.state.terminated && s.state.terminated.exitCode !== 0)) return 'Failed';
  if (!initialized(initStatuses)) return 'Pending';
  if (statuses.length > 0 && statuses.every((s) => s.state.terminated)) {
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

function initialized(initStatuses: ContainerStatus[]): boolean {
  return initStatuses.every((s) => s.state.terminated?.exitCode === 0);
}

const ORDER = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

/** The conditions of a pod that is bound to the node, for its current container statuses. */
export function nodeConditions(
  current: PodCondition[],
  statuses: ContainerStatus[],
  phase: PodStatus['phase'],
  now: string,
  initStatuses: ContainerStatus[] = [],
): PodCondition[] {
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  const incomplete = initStatuses.filter((s) => s.state.terminated?.exitCode !== 0).map((s) => s.name);
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

/** The status of a pod the node has just taken on: its IPs, its start time, every container being created. */
export function admittedStatus(pod: Pod, ip: string, startTime: string): PodStatus {
  const initStatuses = (pod.spec.initContainers ?? []).map((c) => creatingStatus(c, 'PodInitializing'));
  const waiting = initStatuses.length > 0 ? 'PodInitializing' : 'ContainerCreating';
  const statuses = pod.spec.containers.map((c) => creatingStatus(c, waiting));
  return {
    ...pod.status,
    phase: 'Pending',
    hostIP: ip,
    hostIPs: [{ ip }],
    podIP: ip,
    podIPs: [{ ip }],
    startTime,
    ...(initStatuses.length > 0 ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
    conditions: nodeConditions(pod.status?.conditions ?? [], statuses, 'Pending', startTime, initStatuses),
  };
}
