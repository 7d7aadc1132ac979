/**
 * The default scheduler for the single node: whether a pod can go there, plugin by plugin in the
 * scheduler's order (claims, node affinity, resources, pod affinity); for claims that wait for their first
 * consumer, selecting this node and waiting for their volumes; then binding (`Scheduled`) or
 * saying why not (`FailedScheduling`).
 */
import { ClaimAnnotations, Preemption, Scheduling, nodeRejection, preFilterRejection } from './control-plane-messages.js';
import { matchesNodeSelection, type NodeIdentity } from './node-affinity.js';
import { mayChangePodAffinity, NO_PEERS, satisfiesPodAffinity, storePeers, type AffinityPeers } from './pod-affinity.js';
import type { NodeCapacity, NodeContext } from './node-context.js';
import type { Container, KubeObject, PersistentVolumeClaim, Pod, StorageClass } from './objects.js';
import type { PodHandle } from './pod-handle.js';
import { SCHEDULER } from './events.js';
import { setCondition } from './pod-status.js';
import type { StoreEvent } from './store.js';
import { parseQuantity } from './quantity.js';
import { checkClaims, claimNames, isBound, type ClaimOf, type ClassOf } from './volume-binding.js';

export type Placement =
  | { fits: true; claimsToProvision: PersistentVolumeClaim[] }
  /**
   * `claimsMayHelp`: a change to the pod's claims can change the verdict, so it is worth retrying
   * then; `nodeMayHelp`: so can a change to the node (uncordoned); `podsMayHelp`: and to other
   * pods (the ones its pod affinity needs arriving, or those that count all ending); `roomMayHelp`:
   * pods on the node ending or going, which gives their requests back (NodeResourcesFit's requeue).
   */
  | { fits: false; message: string; claimsMayHelp: boolean; nodeMayHelp?: true; podsMayHelp?: true; roomMayHelp?: true };

/** The taint a cordoned node carries; a pod that tolerates it may still go there (NodeUnschedulable plugin). */
const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';

interface Toleration {
  key?: string;
  operator?: string;
  effect?: string;
}

function toleratesUnschedulable(pod: Pod): boolean {
  const tolerations = (pod.spec as { tolerations?: Toleration[] }).tolerations ?? [];
  return tolerations.some(
    (t) => (t.key === UNSCHEDULABLE_TAINT || ((t.key ?? '') === '' && t.operator === 'Exists')) && ((t.effect ?? '') === '' || t.effect === 'NoSchedule'),
  );
}

/** As the scheduler counts it: init containers run one at a time, before the containers, so the largest of them or the sum of the rest. */
function requested(pod: Pod, resource: 'cpu' | 'memory'): number {
  const amount = (c: Container) => parseQuantity(c.resources?.requests?.[resource] ?? '0') ?? 0;
  const containers = pod.spec.containers.reduce((sum, c) => sum + amount(c), 0);
  return Math.max(containers, ...(pod.spec.initContainers ?? []).map(amount));
}

/** Compares the pod's requests with the node's whole capacity (other pods' requests are not counted). */
export function insufficient(pod: Pod, capacity: NodeCapacity): string[] {
  return (['cpu', 'memory'] as const).filter((r) => requested(pod, r) > (parseQuantity(capacity[r]) ?? 0)).map(Scheduling.insufficient);
}

/**
 * What the pods already on the node hold, as kube-scheduler's NodeInfo counts it: every pod bound
 * there but the terminal ones, which its pod informer does not even see (kubernetes/kubernetes
 * pkg/scheduler/scheduler.go newPodInformer: field selector status.phase!=Succeeded,Failed).
 */
function heldOnNode(pod: Pod, nodeName: string, pods: readonly Pod[]): { cpu: number; memory: number; pods: number } {
  const others = pods.filter((p) => p.spec.nodeName === nodeName && p.metadata.uid !== pod.metadata.uid && !isTerminal(p));
  return {
    cpu: others.reduce((sum, p) => sum + requested(p, 'cpu'), 0),
    memory: others.reduce((sum, p) => sum + requested(p, 'memory'), 0),
    pods: others.length,
  };
}

function isTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/**
 * NodeResourcesFit's Filter (kubernetes/kubernetes pkg/scheduler/framework/plugins/noderesources/
 * fit.go fitsRequest): the pod's requests against what the node has left, in its order and words
 * ("Too many pods", "Insufficient cpu", "Insufficient memory").
 */
function insufficientRoom(pod: Pod, capacity: NodeCapacity, held: { cpu: number; memory: number; pods: number }): string[] {
  const reasons: string[] = [];
  if (held.pods + 1 > (parseQuantity(capacity.pods) ?? Infinity)) reasons.push(Scheduling.tooManyPods);
  for (const r of ['cpu', 'memory'] as const) {
    const asked = requested(pod, r);
    if (asked > 0 && asked + held[r] > (parseQuantity(capacity[r]) ?? 0)) reasons.push(Scheduling.insufficient(r));
  }
  return reasons;
}

export function placePod(
  pod: Pod,
  node: NodeIdentity & { capacity: NodeCapacity; unschedulable?: boolean },
  claimOf: ClaimOf,
  classOf: ClassOf,
  peers: AffinityPeers = NO_PEERS,
): Placement {
  const claims = checkClaims(pod, claimOf, classOf);
  if (!claims.ok) return { fits: false, message: preFilterRejection(claims.message), claimsMayHelp: true };
  if (node.unschedulable === true && !toleratesUnschedulable(pod)) {
    return { fits: false, message: nodeRejection([Scheduling.nodeUnschedulable], Preemption.notHelpful), claimsMayHelp: false, nodeMayHelp: true };
  }
  if (!matchesNodeSelection(pod, node)) {
    return { fits: false, message: nodeRejection([Scheduling.nodeAffinityMismatch], Preemption.notHelpful), claimsMayHelp: false };
  }
  const short = insufficient(pod, node.capacity);
  if (short.length > 0) return { fits: false, message: nodeRejection(short, Preemption.noVictims), claimsMayHelp: false };
  // It would fit the node alone: other pods hold the room, and give it back as they end.
  const taken = insufficientRoom(pod, node.capacity, heldOnNode(pod, node.name, peers.pods));
  if (taken.length > 0) return { fits: false, message: nodeRejection(taken, Preemption.noVictims), claimsMayHelp: false, roomMayHelp: true };
  if (!satisfiesPodAffinity(pod, node.labels, peers)) {
    return { fits: false, message: nodeRejection([Scheduling.podAffinityMismatch], Preemption.notHelpful), claimsMayHelp: false, nodeMayHelp: true, podsMayHelp: true };
  }
  return { fits: true, claimsToProvision: claims.unbound };
}

/** The scheduler's name for itself, the API server's default for a pod's schedulerName. */
export const DEFAULT_SCHEDULER = 'default-scheduler';

/** A pod on the node ended (its phase terminal) or went: its requests are free again. */
function freesRoom(e: StoreEvent, nodeName: string): boolean {
  if (e.resource !== 'pods' || (e.object as Pod).spec?.nodeName !== nodeName) return false;
  return e.type === 'DELETED' || (isTerminal(e.object as Pod) && !(e.previous && isTerminal(e.previous as Pod)));
}

type SchedulerNode = Pick<NodeContext, 'store' | 'nodeName' | 'capacity' | 'timings'>;

/** The events API refuses a note over 1024 bytes; the scheduler cuts its message first (truncateMessage). */
const NOTE_LENGTH_LIMIT = 1024;

function eventNote(message: string): string {
  if (Buffer.byteLength(message) <= NOTE_LENGTH_LIMIT) return message;
  const suffix = ' ...';
  return Buffer.from(message).subarray(0, NOTE_LENGTH_LIMIT - suffix.length).toString() + suffix;
}

/**
 * As kube-scheduler's failure handler: the event names the pod as this attempt read it, then the
 * condition is written (a no-op when it says the same, so the next attempt's event, naming the
 * same resourceVersion, joins the first one's series).
 */
function unschedulable(pod: PodHandle, tried: Pod, message: string): void {
  pod.event({ type: 'Warning', reason: 'FailedScheduling', message: eventNote(message), component: SCHEDULER, action: 'Scheduling' }, tried);
  pod.patch((p) => {
    p.status = { ...p.status, phase: 'Pending', conditions: setCondition(p.status?.conditions ?? [], 'PodScheduled', 'False', pod.stamp(), 'Unschedulable', message) };
  });
}

/**
 * The scheduler's PreBind for claims that wait for their first consumer: the selected-node
 * annotation tells the volume controllers where to make the volume; then it waits until each claim
 * is bound, or is no longer there to wait for.
 */
async function provisionOnNode(pod: PodHandle, claims: PersistentVolumeClaim[], node: SchedulerNode): Promise<void> {
  const { store } = node;
  for (const claim of claims) {
    store.update(
      'persistentvolumeclaims',
      pod.namespace,
      claim.metadata.name ?? '',
      (draft) => {
        draft.metadata.annotations = { ...draft.metadata.annotations, [ClaimAnnotations.selectedNode]: node.nodeName };
      },
      claim.metadata.uid,
    );
  }
  const settled = () =>
    claims.every((c) => {
      const now = store.get('persistentvolumeclaims', pod.namespace, c.metadata.name ?? '') as PersistentVolumeClaim | undefined;
      return now === undefined || now.metadata.uid !== c.metadata.uid || Boolean(now.metadata.deletionTimestamp) || isBound(now);
    });
  if (!settled()) await pod.waitForChange(settled);
}

/**
 * Binds the pod to the node (Scheduled) or leaves it Pending as Unschedulable (FailedScheduling).
 * A pod turned away for its claims is tried again whenever a claim of its namespace changes, as the
 * real scheduler requeues it; with one node of fixed capacity, nothing else would change the answer.
 * Returns the pod when it was bound.
 */
export async function schedule(pod: PodHandle, node: SchedulerNode): Promise<Pod | undefined> {
  const { store } = node;
  const claimOf: ClaimOf = (name) => store.get('persistentvolumeclaims', pod.namespace, name) as PersistentVolumeClaim | undefined;
  const classOf: ClassOf = (name) => store.get('storageclasses', undefined, name) as StorageClass | undefined;
  const nodeChanged = (e: StoreEvent) => e.resource === 'nodes' && e.object.metadata.name === node.nodeName;
  await pod.wait(node.timings.scheduleMs);
  for (;;) {
    const current = pod.current();
    if (current === undefined) return undefined;
    // kube-scheduler takes only the pods that name one of its profiles' schedulerName (kubernetes/
    // kubernetes pkg/scheduler/eventhandlers.go responsibleForPod): another scheduler's pod gets
    // nothing from it, no binding, no condition, no event.
    if ((current.spec.schedulerName ?? DEFAULT_SCHEDULER) !== DEFAULT_SCHEDULER) return undefined;
    // KEP-3521: the SchedulingGates PreEnqueue plugin keeps a gated pod out of the scheduling
    // queue, without a word (the API server set its SchedulingGated condition); removing the last
    // gate is a pod update that lets it in.
    if ((current.spec.schedulingGates ?? []).length > 0) {
      await pod.waitForChange((e) => e.resource === 'pods' && e.object.metadata.uid === pod.uid && ((e.object as Pod).spec.schedulingGates ?? []).length === 0);
      continue;
    }
    const nodeObject = store.get('nodes', undefined, node.nodeName) as KubeObject | undefined;
    if (nodeObject === undefined) {
      // Deleted (kubectl delete node): nothing to bind to until a node registers again.
      unschedulable(pod, current, Scheduling.noNodes);
      await pod.waitForChange(nodeChanged);
      continue;
    }
    const labels = nodeObject.metadata.labels ?? {};
    const unschedulableNode = (nodeObject.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true;
    const placement = placePod(current, { name: node.nodeName, labels, capacity: node.capacity, unschedulable: unschedulableNode }, claimOf, classOf, storePeers(store));
    if (!placement.fits) {
      unschedulable(pod, current, placement.message);
      if (placement.roomMayHelp) {
        await pod.waitForChange((e) => nodeChanged(e) || freesRoom(e, node.nodeName));
        continue;
      }
      if (placement.nodeMayHelp) {
        await pod.waitForChange(placement.podsMayHelp ? (e) => nodeChanged(e) || mayChangePodAffinity(e, pod.uid) : nodeChanged);
        continue;
      }
      if (!placement.claimsMayHelp) return undefined;
      const names = claimNames(current);
      await pod.waitForChange((e) => e.resource === 'persistentvolumeclaims' && e.object.metadata.namespace === pod.namespace && names.includes(e.object.metadata.name ?? ''));
      await pod.wait(node.timings.scheduleMs);
      continue;
    }
    if (placement.claimsToProvision.length > 0) {
      await provisionOnNode(pod, placement.claimsToProvision, node);
      // Bound now, or a claim went away meanwhile: the next look says which.
      continue;
    }
    pod.patch((p) => {
      p.spec.nodeName = node.nodeName;
      p.status = { ...p.status, phase: 'Pending', conditions: setCondition(p.status?.conditions ?? [], 'PodScheduled', 'True', pod.stamp()) };
    });
    // The scheduler's event names the pod it assumed, as it was before the binding.
    pod.event(
      { type: 'Normal', reason: 'Scheduled', message: `Successfully assigned ${pod.namespace}/${pod.name} to ${node.nodeName}`, component: SCHEDULER, action: 'Binding' },
      current,
    );
    return current;
  }
}
