/** Pure rules for a pod's phase and conditions from its container statuses, as the kubelet derives them. */
import type { Container, ContainerStatus, Pod, PodCondition, PodStatus } from './objects.js';

export function derivePhase(statuses: ContainerStatus[]): PodStatus['phase'] {
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

const ORDER = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

/** The conditions of a pod that is bound to the node, for its current container statuses. */
export function nodeConditions(current: PodCondition[], statuses: ContainerStatus[], phase: PodStatus['phase'], now: string): PodCondition[] {
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  let conditions = setCondition(current, 'PodReadyToStartContainers', terminal ? 'False' : 'True', now);
  conditions = setCondition(conditions, 'Initialized', 'True', now);
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

function creatingStatus(container: Container): ContainerStatus {
  return {
    name: container.name,
    image: container.image,
    imageID: '',
    ready: false,
    started: false,
    restartCount: 0,
    state: { waiting: { reason: 'ContainerCreating' } },
    lastState: {},
  };
}

/** The status of a pod the node has just taken on: its IPs, its start time, every container being created. */
export function admittedStatus(pod: Pod, ip: string, startTime: string): PodStatus {
  const statuses = pod.spec.containers.map(creatingStatus);
  return {
    ...pod.status,
    phase: 'Pending',
    hostIP: ip,
    hostIPs: [{ ip }],
    podIP: ip,
    podIPs: [{ ip }],
    startTime,
    containerStatuses: statuses,
    conditions: nodeConditions(pod.status?.conditions ?? [], statuses, 'Pending', startTime),
  };
}
