/**
 * A bound on every wait (classify.ts rules 2a, 10b and 12a): a pod no one answers, a pod waiting
 * for room on a fixed-size cluster, and a pod that never started within the step's timeout. Pure:
 * every time comes from the observation.
 *
 * - The last signal: the newest of the pod's creationTimestamp, startTime, its conditions'
 *   lastTransitionTime, its containers' state times and the events about it (and, before a node,
 *   its workspace claim's). A scheduler's FailedScheduling is a signal, so a capacity wait is not
 *   cut by the pending-timeout's default.
 * - Capacity: kube-scheduler's NodeResourcesFit reasons (kubernetes/kubernetes
 *   pkg/scheduler/framework/plugins/noderesources/fit.go fitsRequest: "Too many pods",
 *   "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage" and
 *   "Insufficient <extended resource>"), read from the FitError message ("0/N nodes are available:
 *   <count> <reason>, .... preemption: ...", pkg/scheduler/framework/types.go FitError.Error, the
 *   reasons sorted and counted per node). Room frees up as other pods end.
 */
import type { CoreV1Event, V1ContainerState, V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { ErrorNames } from '../contract/index.js';
import { EventReasons, PodPhases, StepReasons } from './classify-reasons.js';
import { eventLastSeen } from './classify-events.js';
import { createdAt, isBeingDeleted, isPhase, isScheduled, schedulingGatedMessage, startedAt, unschedulableMessage } from './classify-pod.js';
import { composeCause, seconds, subject, type CauseSubject } from './cause.js';
import { hasAutoscalerWord, isSchedulerFailure } from './autoscaler-signals.js';
import { toMillis } from './time.js';
import { DEFAULT_PENDING_TIMEOUT_SECONDS, StepPhases, type ClassifyOptions, type StepStatus } from './types.js';

/** The scheduler every pod names unless something sets another (the API server's default). */
export const DEFAULT_SCHEDULER = 'default-scheduler';

/** What the rules here read of classify.ts's facts. */
export interface StallFacts {
  pod: V1Pod;
  subject: CauseSubject;
  /** Every event about the pod (its containers' too), in any order. */
  events: CoreV1Event[];
  /** Pod-level events, newest first. */
  podEvents: CoreV1Event[];
  /** The focus container's events, newest first. */
  containerEvents: CoreV1Event[];
  claimEvents: CoreV1Event[];
  claim?: string;
  running: boolean;
  terminated?: unknown;
  waiting?: { reason?: string };
  now: number;
  options: ClassifyOptions;
}

function stateTimes(state: V1ContainerState | undefined): (number | undefined)[] {
  return [toMillis(state?.running?.startedAt), toMillis(state?.terminated?.startedAt), toMillis(state?.terminated?.finishedAt)];
}

function containerTimes(statuses: V1ContainerStatus[] | undefined): (number | undefined)[] {
  return (statuses ?? []).flatMap((s) => [...stateTimes(s.state), ...stateTimes(s.lastState)]);
}

/** When anything last moved about the pod (ms), or undefined when nothing carries a time. */
export function lastSignalAt(pod: V1Pod, events: readonly CoreV1Event[], claimEvents: readonly CoreV1Event[] = []): number | undefined {
  const status = pod.status;
  const times = [
    createdAt(pod),
    startedAt(pod),
    ...(status?.conditions ?? []).map((c) => toMillis(c.lastTransitionTime)),
    ...containerTimes(status?.initContainerStatuses),
    ...containerTimes(status?.containerStatuses),
    ...containerTimes(status?.ephemeralContainerStatuses),
    ...events.map(eventLastSeen),
    // The provisioner reports on the claim while the pod waits for it to be placed.
    ...(isScheduled(pod) ? [] : claimEvents.map(eventLastSeen)),
  ].filter((t): t is number => t !== undefined);
  return times.length > 0 ? Math.max(...times) : undefined;
}

/** The per-node reasons of a FitError message, without their counts; undefined when it is not one. */
export function schedulerReasons(words: string): string[] | undefined {
  const match = /^0\/\d+ nodes are available: (.*?)(?:\.\s+preemption: .*)?\.?$/s.exec(words.trim());
  if (!match?.[1]) return undefined;
  return match[1]
    .split(/,\s+(?=\d+ )/)
    .map((part) => part.replace(/^\d+ /, '').trim())
    .filter((part) => part !== '');
}

/** NodeResourcesFit's reasons (fit.go): room that other pods ending gives back. */
function isCapacityReason(reason: string): boolean {
  return reason === 'Too many pods' || /^Insufficient \S+$/.test(reason);
}

/**
 * The affinity plugins' reasons (nodeaffinity ErrReasonPod, interpodaffinity
 * ErrReasonAffinityRulesNotMatch): for a pod that keeps to its workspace's node by design, they
 * only say the other nodes are not that node.
 */
function isAffinityReason(reason: string): boolean {
  return reason === "node(s) didn't match Pod's node affinity/selector" || reason === "node(s) didn't match pod affinity rules";
}

/**
 * The scheduler turned the pod away for room alone: every reason is capacity, or, for a pod that
 * keeps to its workspace's node, every reason besides the affinity that keeps it there.
 */
export function isCapacityVerdict(words: string, keepsToWorkspace = false): boolean {
  const reasons = schedulerReasons(words);
  if (!reasons || reasons.length === 0) return false;
  const relevant = keepsToWorkspace ? reasons.filter((r) => !isAffinityReason(r)) : reasons;
  return relevant.length > 0 && relevant.every(isCapacityReason);
}

/** Go's Duration.String for whole seconds ("5m0s", "3s", "1h0m0s"), as kubectl shows ages. */
export function goSpan(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return `${h}h${m}m${rest}s`;
  if (m > 0) return `${m}m${rest}s`;
  return `${rest}s`;
}

function failed(error: typeof ErrorNames.PodStalled | typeof ErrorNames.StepTimedOut | typeof ErrorNames.Unschedulable, reason: string, cause: string): StepStatus {
  return { phase: StepPhases.Failed, reason, error, cause };
}

function schedulerWords(f: StallFacts): string | undefined {
  return unschedulableMessage(f.pod) ?? f.podEvents.find(isSchedulerFailure)?.message ?? undefined;
}

/**
 * Rule 10b. Unschedulable for capacity alone on a cluster no node autoscaler answers for: a
 * queue, not a failure. The step waits (WaitingForCapacity, the scheduler's words) until its
 * timeout (rule 2a), or until an explicit pending-timeout after the pod's creation (Unschedulable).
 */
export function capacityWait(f: StallFacts): StepStatus | undefined {
  if (isScheduled(f.pod) || hasAutoscalerWord(f.podEvents)) return undefined;
  const words = schedulerWords(f);
  if (!words || !isCapacityVerdict(words, f.claim !== undefined)) return undefined;
  const limit = f.options.pendingTimeoutSeconds;
  const waited = Math.max(0, (f.now - (createdAt(f.pod) ?? f.now)) / 1000);
  if (limit === undefined || waited < limit) return { phase: StepPhases.Pending, reason: StepReasons.WaitingForCapacity, message: words.trim() };
  return failed(
    ErrorNames.Unschedulable,
    StepReasons.Unschedulable,
    composeCause(
      `${subject(f.subject)} waited ${seconds(waited)} for room on the cluster's nodes, its pending-timeout (${goSpan(limit)}), and none freed up (Unschedulable)`,
      'The scheduler said',
      words,
      'No node autoscaler answered for the pod: room comes only as other pods end. Ask for less (resources), or raise pending-timeout to queue longer.',
    ),
  );
}

/**
 * Rule 2a. The step's timeout has passed and no node ever started its pod: activeDeadlineSeconds
 * counts from the pod's startTime, which only a kubelet sets (kubernetes/kubernetes
 * pkg/kubelet/active_deadline.go), so it would never fire. StepTimedOut, as if it had.
 */
export function neverStarted(f: StallFacts): StepStatus | undefined {
  const deadline = f.pod.spec?.activeDeadlineSeconds;
  if (deadline === undefined || startedAt(f.pod) !== undefined || !isPhase(f.pod, PodPhases.Pending) || isBeingDeleted(f.pod)) return undefined;
  const waited = (f.now - (createdAt(f.pod) ?? f.now)) / 1000;
  if (waited < deadline) return undefined;
  const words = schedulerWords(f) ?? schedulingGatedMessage(f.pod);
  const doing = words && isCapacityVerdict(words, f.claim !== undefined) ? ', waiting for capacity' : '';
  return failed(
    ErrorNames.StepTimedOut,
    StepReasons.NeverStarted,
    composeCause(
      `${subject(f.subject)} timed out after its limit of ${seconds(deadline)}${doing}: no node ever started its pod (${f.pod.spec?.nodeName ? `bound to node "${f.pod.spec.nodeName}", which never took it on` : 'never scheduled'})`,
      'The scheduler last said',
      words,
    ),
  );
}

/** The kubelet says nothing while it downloads an image: its Pulling, not yet answered, is not a stall. */
function pullInProgress(f: StallFacts): boolean {
  return f.containerEvents[0]?.reason === EventReasons.Pulling;
}

/**
 * Rule 12a. Pending, not pulling, and nothing about the pod has moved for its pending-timeout:
 * PodStalled, saying what was missing (a scheduler's answer, the kubelet's) and what to check.
 */
export function stalled(f: StallFacts): StepStatus | undefined {
  if (!isPhase(f.pod, PodPhases.Pending) || f.running || f.terminated || isBeingDeleted(f.pod) || pullInProgress(f)) return undefined;
  const limit = f.options.pendingTimeoutSeconds ?? DEFAULT_PENDING_TIMEOUT_SECONDS;
  const last = lastSignalAt(f.pod, f.events, f.claimEvents) ?? f.now;
  const quiet = (f.now - last) / 1000;
  if (quiet < limit) return undefined;
  return failed(ErrorNames.PodStalled, StepReasons.Stalled, stalledCause(f, quiet, limit));
}

function stalledCause(f: StallFacts, quiet: number, limit: number): string {
  const lead = `${subject(f.subject)} stalled: nothing about its pod has moved for ${goSpan(quiet)} (pending-timeout ${goSpan(limit)}, PodStalled)`;
  const node = f.pod.spec?.nodeName;
  if (node || isScheduled(f.pod)) {
    const state = f.waiting?.reason || 'ContainerCreating';
    return composeCause(
      `${lead}: ${state} with no event from the kubelet on node "${node ?? '?'}"`,
      undefined,
      undefined,
      `Check that node: kubectl describe node ${node ?? '<node>'}, and its kubelet's and container runtime's logs (a CRI call or a volume mount that hangs says nothing until it returns).`,
    );
  }
  const gates = (f.pod.spec?.schedulingGates ?? []).map((g) => g.name).filter((name): name is string => !!name);
  if (gates.length > 0) {
    return composeCause(
      `${lead}: no scheduler takes the pod while it has scheduling gates [${gates.join(', ')}] (SchedulingGated)`,
      undefined,
      undefined,
      'Check what added them (an admission webhook, a queue controller such as Kueue) and why it has not removed them.',
    );
  }
  const scheduler = f.pod.spec?.schedulerName;
  if (scheduler && scheduler !== DEFAULT_SCHEDULER) {
    return composeCause(
      `${lead}: no scheduler has answered; the pod names schedulerName "${scheduler}", which only a scheduler of that name takes`,
      undefined,
      undefined,
      `Check that "${scheduler}" runs in the cluster, or what set it (a mutating admission webhook: kubectl get mutatingwebhookconfigurations).`,
    );
  }
  return composeCause(
    `${lead}: no scheduler has placed the pod or said why not (no FailedScheduling)`,
    undefined,
    undefined,
    `Check that the cluster's ${DEFAULT_SCHEDULER} (kube-scheduler) is running and healthy.`,
  );
}
