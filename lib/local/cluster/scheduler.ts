/** Whether a pod fits the single node, with the scheduler's FailedScheduling wording. */
import type { Pod } from './objects.js';
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
