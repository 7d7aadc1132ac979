/** Small predicates over a step pod's spec and status, for the classifier and its callers. */
import type { V1Container, V1ContainerStateTerminated, V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { STEP_CONTAINER } from './types.js';
import {
  NodeLabels,
  PodConditionReasons,
  PodConditionTypes,
  PodPhases,
  PodReasons,
  TerminatedReasons,
} from './classify-reasons.js';
import { toMillis } from './time.js';

/**
 * The step's container: `step` when the pod has one, else the first container. Pods created by
 * older versions, or by hand for debugging, may name it differently.
 */
export function stepContainerName(pod: V1Pod): string {
  const specNames = (pod.spec?.containers ?? []).map((c) => c.name);
  const statusNames = (pod.status?.containerStatuses ?? []).map((c) => c.name);
  if (specNames.includes(STEP_CONTAINER) || statusNames.includes(STEP_CONTAINER)) return STEP_CONTAINER;
  return specNames[0] ?? statusNames[0] ?? STEP_CONTAINER;
}

/** The container a poll is about: an init container until they have all done their part, then the step's. */
export interface FocusContainer {
  name: string;
  /** An init container (the checkout of an ephemeral workspace): its events and status live apart. */
  init: boolean;
}

/**
 * The kubelet runs init containers one by one, each to a successful end, before any other: so the
 * first one that has not finished is where the pod stands, and the step container only waits
 * (PodInitializing) until then. A sidecar (restartPolicy Always, a step's service) has done its
 * part once it has run at all: what becomes of it then (an exit, a restart, a startup probe that
 * keeps failing) the classifier reads from every service (classify-services.ts), not the focus.
 */
export function focusContainer(pod: V1Pod): FocusContainer {
  for (const spec of pod.spec?.initContainers ?? []) {
    const state = containerStatus(pod, spec.name, true);
    const done = spec.restartPolicy === 'Always' ? hasRun(state) : state?.state?.terminated?.exitCode === 0;
    if (!done) return { name: spec.name, init: true };
  }
  return { name: stepContainerName(pod), init: false };
}

function hasRun(status: V1ContainerStatus | undefined): boolean {
  return Boolean(status?.started || status?.state?.running || status?.state?.terminated || (status?.restartCount ?? 0) > 0 || status?.lastState?.terminated);
}

export function containerStatus(pod: V1Pod, name: string, init = false): V1ContainerStatus | undefined {
  const statuses = init ? pod.status?.initContainerStatuses : pod.status?.containerStatuses;
  return statuses?.find((c) => c.name === name);
}

export function containerSpec(pod: V1Pod, name: string, init = false): V1Container | undefined {
  return (init ? pod.spec?.initContainers : pod.spec?.containers)?.find((c) => c.name === name);
}

export function isDeadlineExceeded(pod: V1Pod): boolean {
  return pod.status?.reason === PodReasons.DeadlineExceeded;
}

export function isEvictedStatus(pod: V1Pod): boolean {
  return pod.status?.reason === PodReasons.Evicted;
}

export function isBeingDeleted(pod: V1Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

export function isOomKilled(terminated: V1ContainerStateTerminated | undefined): boolean {
  return terminated?.reason === TerminatedReasons.OOMKilled;
}

/** The runtime never started the process (command not found, bad mount): exit code 128 and no logs. */
export function isStartError(terminated: V1ContainerStateTerminated | undefined): boolean {
  return terminated?.reason === TerminatedReasons.StartError || terminated?.reason === TerminatedReasons.ContainerCannotRun;
}

function scheduledCondition(pod: V1Pod) {
  return pod.status?.conditions?.find((c) => c.type === PodConditionTypes.PodScheduled);
}

/** The scheduler has said it cannot place the pod (condition PodScheduled=False, Unschedulable). */
export function isUnschedulableCondition(pod: V1Pod): boolean {
  const condition = scheduledCondition(pod);
  return condition?.status === 'False' && condition.reason === PodConditionReasons.Unschedulable;
}

export function unschedulableMessage(pod: V1Pod): string | undefined {
  return isUnschedulableCondition(pod) ? scheduledCondition(pod)?.message || undefined : undefined;
}

/** The scheduler's word on a pod its scheduling gates hold back (PodScheduled=False, SchedulingGated). */
export function schedulingGatedMessage(pod: V1Pod): string | undefined {
  const condition = scheduledCondition(pod);
  return condition?.status === 'False' && condition.reason === PodConditionReasons.SchedulingGated ? condition.message || undefined : undefined;
}

export function isScheduled(pod: V1Pod): boolean {
  return Boolean(pod.spec?.nodeName) || scheduledCondition(pod)?.status === 'True';
}

/**
 * Still waiting for a node: pending and not scheduled (nor being deleted). The only time the
 * claim's own events can tell more than the pod's: provisioning happens before the pod is placed.
 */
export function isAwaitingNode(pod: V1Pod): boolean {
  return isPhase(pod, PodPhases.Pending) && !isScheduled(pod) && !isBeingDeleted(pod);
}

/** The claim the pod mounts: step pods mount one, the build's workspace. */
export function workspaceClaim(pod: V1Pod): string | undefined {
  return pod.spec?.volumes?.find((v) => v.persistentVolumeClaim)?.persistentVolumeClaim?.claimName || undefined;
}

/**
 * The one node the pod may run on, when a required node affinity pins it there by hostname (as a
 * step is pinned to where the build's workspace volume is attached). Several terms are
 * alternatives and several values several nodes: neither is a pin.
 */
export function pinnedNode(pod: V1Pod): string | undefined {
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length !== 1) return undefined;
  const hostname = terms[0]?.matchExpressions?.find((e) => e.key === NodeLabels.hostname && e.operator === 'In');
  return hostname?.values?.length === 1 ? hostname.values[0] : undefined;
}

export function isPhase(pod: V1Pod, phase: (typeof PodPhases)[keyof typeof PodPhases]): boolean {
  return pod.status?.phase === phase;
}

export function createdAt(pod: V1Pod): number | undefined {
  return toMillis(pod.metadata?.creationTimestamp);
}

export function startedAt(pod: V1Pod): number | undefined {
  return toMillis(pod.status?.startTime);
}

export function memoryLimit(pod: V1Pod, container: string, init = false): string | undefined {
  const limit = containerSpec(pod, container, init)?.resources?.limits?.memory;
  return limit === undefined ? undefined : String(limit);
}
