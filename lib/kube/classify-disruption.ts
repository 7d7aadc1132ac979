/**
 * Reading whether a step's pod was taken away from it (evicted, preempted, its node drained,
 * tainted or gone) rather than ended by its own commands or deleted by someone: the pod's
 * DisruptionTarget condition, the kubelet's eviction and shutdown reasons, and the events that
 * outlive the pod. Pure; the classifier decides where in its order these count.
 */
import type { CoreV1Event, V1Pod, V1PodCondition } from '@kubernetes/client-node';
import {
  DisruptionEventReasons,
  DisruptionReasons,
  PodConditionTypes,
  TAINT_EVICTION_PREFIX,
} from './classify-reasons.js';

/** The pod's DisruptionTarget condition, when it is True: the pod is being, or was, disrupted. */
export function disruptionCondition(pod: V1Pod): V1PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === PodConditionTypes.DisruptionTarget && c.status === 'True');
}

const DISRUPTION_EVENT_REASONS: ReadonlySet<string> = new Set(Object.values(DisruptionEventReasons));

/** A pod-level event saying something other than its containers took the pod away (see DisruptionEventReasons). */
export function isDisruptionEvent(event: CoreV1Event): boolean {
  if (!event.reason || !DISRUPTION_EVENT_REASONS.has(event.reason)) return false;
  if (event.reason === DisruptionEventReasons.TaintManagerEviction) return (event.message ?? '').startsWith(TAINT_EVICTION_PREFIX);
  return true;
}

/** Who wrote an event, as a Cause names them: its source component, else its reporting component. */
export function eventSpeaker(event: CoreV1Event): string | undefined {
  return event.source?.component || event.reportingComponent || undefined;
}

/** What happened to the step, in the runner's words, for a DisruptionTarget reason or a disruption event's. */
const WHAT: Record<string, string> = {
  [DisruptionReasons.EvictionByEvictionAPI]: 'its pod was evicted through the Eviction API, as a node drain or an autoscaler removing the node does',
  [DisruptionReasons.DeletionByPodGC]: 'its node no longer exists, so its pod was deleted',
  [DisruptionReasons.DeletionByTaintManager]: 'its pod was deleted for a NoExecute taint on its node, which a node not ready, unreachable or being removed gets',
  [DisruptionReasons.PreemptionByScheduler]: 'its pod was preempted to make room for a higher-priority pod',
  [DisruptionReasons.TerminationByKubelet]: "its node's kubelet stopped the pod, for node pressure or a node shutdown",
  [DisruptionEventReasons.Evicted]: 'its pod was evicted from its node',
  [DisruptionEventReasons.TaintManagerEviction]: 'its pod was deleted for a NoExecute taint on its node, which a node not ready, unreachable or being removed gets',
  [DisruptionEventReasons.NodeNotReady]: 'its node stopped being ready, and the pod is gone',
  [DisruptionEventReasons.Preempted]: 'its pod was preempted to make room for a higher-priority pod',
  [DisruptionEventReasons.Disrupted]: 'its pod was deleted to let its node terminate',
};

/** The runner's phrase for a disruption reason; a reason it does not know is still a disruption. */
export function disruptionWhat(reason: string | undefined): string {
  return (reason && WHAT[reason]) || 'its pod was marked for disruption';
}

/** One event as a Cause quotes it. */
export interface DisruptionEventWords {
  reason: string;
  speaker?: string;
  message: string;
}

/** The disruption events among the pod-level ones (newest first, as given), each quoted once. */
export function disruptionEventWords(podEvents: readonly CoreV1Event[]): DisruptionEventWords[] {
  const seen = new Set<string>();
  const words: DisruptionEventWords[] = [];
  for (const event of podEvents.filter(isDisruptionEvent)) {
    const message = (event.message ?? '').trim();
    const key = `${event.reason}\n${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const speaker = eventSpeaker(event);
    words.push({ reason: event.reason!, message, ...(speaker ? { speaker } : {}) });
  }
  return words;
}
