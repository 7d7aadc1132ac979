/**
 * What a node autoscaler last said about a pending pod: a node is coming, or none will come.
 * Pure: reads the pod's events only. cluster-autoscaler and Karpenter both write their verdicts
 * as events on the pod; the scheduler's own FailedScheduling says nothing about new nodes.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { AutoscalerEventReasons, EventReasons } from './classify-reasons.js';
import { eventLastSeen, isSchedulingFailure } from './classify-events.js';

export const NodeOutlooks = {
  /** cluster-autoscaler scaled a node group up for the pod, or Karpenter nominated a node claim. */
  Coming: 'coming',
  /** cluster-autoscaler would not scale up for it, or Karpenter found no NodePool or instance type. */
  NoneComing: 'none-coming',
} as const;
export type NodeOutlook = (typeof NodeOutlooks)[keyof typeof NodeOutlooks];

export const Autoscalers = {
  ClusterAutoscaler: 'cluster-autoscaler',
  Karpenter: 'Karpenter',
} as const;
export type Autoscaler = (typeof Autoscalers)[keyof typeof Autoscalers];

export interface AutoscalerSignal {
  outlook: NodeOutlook;
  autoscaler: Autoscaler;
  words: string;
  /** When the autoscaler last said it (ms): a node "coming" is believed for a grace from here. */
  at: number;
}

/**
 * Karpenter's refusal: a FailedScheduling whose message is "Failed to schedule pod, " and the
 * per-NodePool reasons (PodFailedToScheduleEvent). Matched by words, not by the reporting
 * component, which EKS Auto Mode's Karpenter names differently ("eks-auto-mode/compute").
 */
export const KARPENTER_REFUSAL_PREFIX = 'Failed to schedule pod, ';
const KARPENTER_NOMINATION_PREFIX = 'Pod should schedule on: ';

/**
 * A node group in back-off after a failed scale-up is retried once the back-off ends (5 min at
 * first), so a NotTriggerScaleUp naming one does not say no node will come.
 */
const BACKOFF = /in backoff after failed scale-up/i;

export function isKarpenterRefusal(event: CoreV1Event): boolean {
  return event.reason === EventReasons.FailedScheduling && (event.message ?? '').startsWith(KARPENTER_REFUSAL_PREFIX);
}

/** The scheduler's own FailedScheduling: Karpenter's refusals share the reason. */
export function isSchedulerFailure(event: CoreV1Event): boolean {
  return isSchedulingFailure(event) && !isKarpenterRefusal(event);
}

function outlookOf(event: CoreV1Event): { outlook: NodeOutlook; autoscaler: Autoscaler } | 'unsure' | undefined {
  const message = event.message ?? '';
  switch (event.reason) {
    case AutoscalerEventReasons.TriggeredScaleUp:
      return { outlook: NodeOutlooks.Coming, autoscaler: Autoscalers.ClusterAutoscaler };
    case AutoscalerEventReasons.NotTriggerScaleUp:
      return BACKOFF.test(message) ? 'unsure' : { outlook: NodeOutlooks.NoneComing, autoscaler: Autoscalers.ClusterAutoscaler };
    case AutoscalerEventReasons.Nominated:
      return message.startsWith(KARPENTER_NOMINATION_PREFIX) ? { outlook: NodeOutlooks.Coming, autoscaler: Autoscalers.Karpenter } : undefined;
    default:
      return isKarpenterRefusal(event) ? { outlook: NodeOutlooks.NoneComing, autoscaler: Autoscalers.Karpenter } : undefined;
  }
}

/**
 * The newest autoscaler word among the pod's events (newest first). Undefined when there is
 * none, or when the newest is unsure (a back-off): then an older "coming" is stale too, and the
 * plain grace decides.
 */
export function autoscalerSignal(podEvents: readonly CoreV1Event[]): AutoscalerSignal | undefined {
  let newest: { event: CoreV1Event; at: number; read: ReturnType<typeof outlookOf> } | undefined;
  for (const event of podEvents) {
    const read = outlookOf(event);
    const at = eventLastSeen(event);
    if (read === undefined || at === undefined) continue;
    if (!newest || at > newest.at) newest = { event, at, read };
  }
  if (!newest || newest.read === 'unsure' || newest.read === undefined) return undefined;
  return { ...newest.read, words: (newest.event.message ?? '').trim(), at: newest.at };
}

/**
 * Whether a node autoscaler has said anything at all about the pod (coming, none coming, or a
 * group in back-off): a cluster where one answers is not a fixed-size cluster, so a capacity verdict
 * there is the autoscaler's to settle (classify.ts rule 11), not a queue to wait in.
 */
export function hasAutoscalerWord(podEvents: readonly CoreV1Event[]): boolean {
  return podEvents.some((event) => outlookOf(event) !== undefined);
}
