/** The default scheduler for the single node: whether a pod fits, and binding it (or saying why not). */
import type { NodeContext } from './node-context.js';
import type { Pod } from './objects.js';
import type { PodHandle } from './pod-handle.js';
import { setCondition } from './pod-status.js';
import { parseQuantity } from './quantity.js';

export interface NodeCapacity {
  cpu: string;
  memory: string;
  pods: string;
}

export type Fit = { fits: true } | { fits: false; message: string };

function requested(pod: Pod, resource: 'cpu' | 'memory'): number {
  return pod.spec.containers.reduce((sum, c) => sum + (parseQuantity(c.resources?.requests?.[resource] ?? '0') ?? 0), 0);
}

/** Compares the pod's requests with the node's whole capacity (other pods' requests are not counted). */
export function fitPod(pod: Pod, capacity: NodeCapacity): Fit {
  const short: string[] = [];
  if (requested(pod, 'cpu') > (parseQuantity(capacity.cpu) ?? 0)) short.push('1 Insufficient cpu');
  if (requested(pod, 'memory') > (parseQuantity(capacity.memory) ?? 0)) short.push('1 Insufficient memory');
  if (short.length === 0) return { fits: true };
  return {
    fits: false,
    message: `0/1 nodes are available: ${short.join(', ')}. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.`,
  };
}

/**
 * Binds the pod to the node (Scheduled) or leaves it Pending as Unschedulable (FailedScheduling).
 * Returns the pod when it was bound.
 */
export async function schedule(
  pod: PodHandle,
  node: Pick<NodeContext, 'nodeName' | 'capacity' | 'timings'>,
): Promise<Pod | undefined> {
  await pod.wait(node.timings.scheduleMs);
  const current = pod.current();
  if (current === undefined) return undefined;
  const fit = fitPod(current, node.capacity);
  if (!fit.fits) {
    // The real scheduler retries; with one node of fixed capacity the answer would not change.
    pod.patch((p) => {
      p.status = { ...p.status, phase: 'Pending', conditions: setCondition([], 'PodScheduled', 'False', pod.stamp(), 'Unschedulable', fit.message) };
    });
    pod.event({ type: 'Warning', reason: 'FailedScheduling', message: fit.message, component: 'default-scheduler' });
    return undefined;
  }
  pod.patch((p) => {
    p.spec.nodeName = node.nodeName;
    p.status = { ...p.status, phase: 'Pending', conditions: setCondition(p.status?.conditions ?? [], 'PodScheduled', 'True', pod.stamp()) };
  });
  pod.event({
    type: 'Normal',
    reason: 'Scheduled',
    message: `Successfully assigned ${pod.namespace}/${pod.name} to ${node.nodeName}`,
    component: 'default-scheduler',
  });
  return current;
}
