/**
 * A cluster-autoscaler for the one node, opt-in (the cluster's `autoscaler` option): the node is a
 * node group of at most one, registered only when a pod needs it ("scale from zero"), and again
 * after it was deleted. It writes its verdicts on the pod as cluster-autoscaler does, which is
 * what lib/kube reads (autoscaler-signals.ts): TriggeredScaleUp when a node is coming,
 * NotTriggerScaleUp when none the pod fits will come.
 *
 * Wording, from kubernetes/autoscaler cluster-autoscaler:
 * - processors/status/eventing_scale_up_processor.go: both events are Normal, on the pod;
 *   "pod triggered scale-up: %v" of the ScaleUpInfos, and "pod didn't trigger scale-up: %s" of
 *   the reasons aggregated over node groups as "<count> <reason>", joined with ", ";
 * - processors/nodegroupset/nodegroup_set_processor.go (ScaleUpInfo.String): "{%v %v->%v (max: %v)}"
 *   of the group id, current size, new size and max size (printed in a list: "[{...}]");
 * - core/scaleup/orchestrator/skippedreasons.go: "max node group size reached" for a group at its
 *   maximum; the other reasons are the scheduler's own predicate failures on the group's template
 *   node ("Insufficient cpu", "node(s) didn't match Pod's node affinity/selector").
 * Seen in kubernetes/autoscaler#5692 ("pod didn't trigger scale-up: 12 node(s) didn't match Pod's
 * node affinity/selector, 3 max node group size reached") and a public AKS write-up
 * ("pod triggered scale-up: [{aks-gpunp-98036146-vmss 1->2 (max: 2)}]").
 */
import type { Clock } from './clock.js';
import { Scheduling } from './control-plane-messages.js';
import { startController, type Controller } from './controller.js';
import type { EventRecorder } from './events.js';
import { matchesNodeSelection } from './node-affinity.js';
import type { Pod, PodCondition } from './objects.js';
import { insufficient } from './scheduler.js';
import type { NodeCapacity } from './node-context.js';
import type { ObjectStore, StoreEvent } from './store.js';

export interface AutoscalerOptions {
  /** TriggeredScaleUp -> the node registered; default DEFAULT_SCALE_UP_DELAY_MS (an EKS node takes a minute or two). */
  scaleUpDelayMs?: number;
}

export const DEFAULT_SCALE_UP_DELAY_MS = 5_000;

export const CLUSTER_AUTOSCALER = 'cluster-autoscaler';

/** An EKS managed node group's Auto Scaling group is named like this (eks-<group>-<uuid>); one group, one node. */
export const NODE_GROUP = 'eks-embedded-nodes';
const MAX_SIZE = 1;

export const ScaleUpReasons = {
  TriggeredScaleUp: 'TriggeredScaleUp',
  NotTriggerScaleUp: 'NotTriggerScaleUp',
} as const;

/** The node the group would add, as its template: the node's name, labels and capacity. */
export interface NodeTemplate {
  name: string;
  labels: Record<string, string>;
  capacity: NodeCapacity;
}

export type ScaleUpDecision =
  | { reason: typeof ScaleUpReasons.TriggeredScaleUp; message: string }
  | { reason: typeof ScaleUpReasons.NotTriggerScaleUp; message: string };

/** Why the template node would not take the pod, in the scheduler's words (none: it would). */
export function templateMisfits(pod: Pod, template: NodeTemplate): string[] {
  const reasons = matchesNodeSelection(pod, template) ? [] : [Scheduling.nodeAffinityMismatch];
  return [...reasons, ...insufficient(pod, template.capacity)];
}

const scaleUpInfo = (from: number, to: number) => `[{${NODE_GROUP} ${from}->${to} (max: ${MAX_SIZE})}]`;
/** One group, so every count is 1. */
const notTriggered = (reasons: readonly string[]) => `pod didn't trigger scale-up: ${reasons.map((r) => `1 ${r}`).join(', ')}`;

/**
 * What cluster-autoscaler would say about an unschedulable pod, given how many nodes the group
 * has or has been asked for (`targetSize`): a group at its maximum is skipped before any pod is
 * simulated on it; otherwise the pod triggers a scale-up only if it fits the template node.
 * `inFlight`: a scale-up already asked for; the pod is told about it too (the real one says
 * nothing to a pod an upcoming node will take, which leaves it to the plain grace).
 */
export function decideScaleUp(pod: Pod, template: NodeTemplate, targetSize: number, inFlight: boolean): ScaleUpDecision {
  const misfits = templateMisfits(pod, template);
  if (inFlight && misfits.length === 0) return { reason: ScaleUpReasons.TriggeredScaleUp, message: `pod triggered scale-up: ${scaleUpInfo(0, 1)}` };
  if (targetSize >= MAX_SIZE) return { reason: ScaleUpReasons.NotTriggerScaleUp, message: notTriggered(['max node group size reached']) };
  if (misfits.length > 0) return { reason: ScaleUpReasons.NotTriggerScaleUp, message: notTriggered(misfits) };
  return { reason: ScaleUpReasons.TriggeredScaleUp, message: `pod triggered scale-up: ${scaleUpInfo(targetSize, targetSize + 1)}` };
}

export interface AutoscalerContext {
  store: ObjectStore;
  events: EventRecorder;
  now: Clock;
  template: NodeTemplate;
  /** Registers the node (the kubelet's registration); the scheduler then places waiting pods. */
  registerNode: () => void;
  scaleUpDelayMs: number;
}

function unschedulableCondition(pod: Pod | undefined): PodCondition | undefined {
  if (!pod || pod.spec.nodeName || pod.metadata.deletionTimestamp) return undefined;
  const condition = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  return condition?.status === 'False' && condition.reason === 'Unschedulable' ? condition : undefined;
}

/** The scheduler's verdict on the pod is new (first written, or worded otherwise): worth a look. */
function newlyUnschedulable(event: StoreEvent): Pod | undefined {
  if (event.resource !== 'pods' || event.type === 'DELETED') return undefined;
  const now = unschedulableCondition(event.object as Pod);
  if (!now) return undefined;
  const before = unschedulableCondition(event.previous as Pod | undefined);
  return before?.message === now.message ? undefined : (event.object as Pod);
}

/**
 * Looks at each pod the scheduler turns away, as cluster-autoscaler's loop lists unschedulable
 * pods (at once here: its scan interval is 10 s), and registers the node `scaleUpDelayMs` after a
 * scale-up. Real timers: stop() ends a scale-up under way.
 */
export function startAutoscaler(ctx: AutoscalerContext): Controller {
  let scaleUp: NodeJS.Timeout | undefined;
  const nodePresent = () => ctx.store.get('nodes', undefined, ctx.template.name) !== undefined;
  const controller = startController(ctx.store, (event) => {
    const pod = newlyUnschedulable(event);
    if (!pod) return;
    const inFlight = scaleUp !== undefined;
    const decision = decideScaleUp(pod, ctx.template, nodePresent() || inFlight ? 1 : 0, inFlight);
    ctx.events.record(pod, { type: 'Normal', reason: decision.reason, message: decision.message, component: CLUSTER_AUTOSCALER });
    if (decision.reason !== ScaleUpReasons.TriggeredScaleUp || inFlight) return;
    scaleUp = setTimeout(() => {
      scaleUp = undefined;
      if (!nodePresent()) ctx.registerNode();
    }, ctx.scaleUpDelayMs);
  });
  return {
    stop: async () => {
      clearTimeout(scaleUp);
      await controller.stop();
    },
  };
}
