import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { quantityValue } from '../pipeline/index.js';

/** What the scheduler reserves for a pod on its node: cores and bytes. */
export interface PodRequests {
  cpu: number;
  memoryBytes: number;
}

type Amounts = { cpu: number; memory: number };

const requestsOf = (container: V1Container): Amounts => ({
  cpu: quantityValue(container.resources?.requests?.cpu) ?? 0,
  memory: quantityValue(container.resources?.requests?.memory) ?? 0,
});

const plus = (a: Amounts, b: Amounts): Amounts => ({ cpu: a.cpu + b.cpu, memory: a.memory + b.memory });
const max = (a: Amounts, b: Amounts): Amounts => ({ cpu: Math.max(a.cpu, b.cpu), memory: Math.max(a.memory, b.memory) });

/**
 * The pod's effective requests, as the scheduler and OpenCost count them
 * (kubernetes/kubernetes staging/src/k8s.io/component-helpers/resource/helpers.go, PodRequests and
 * AggregateContainerRequests): the containers' sum plus the sidecars' (init containers with
 * restartPolicy Always), or, when larger, what any init container needs beside the sidecars started
 * before it; pod-level `resources.requests` instead where set; the RuntimeClass's overhead on top.
 * The pod as the API server has it: LimitRange defaults and requests defaulted from limits are in.
 */
export function podRequests(pod: V1Pod): PodRequests {
  const spec = pod.spec;
  let total: Amounts = { cpu: 0, memory: 0 };
  for (const container of spec?.containers ?? []) total = plus(total, requestsOf(container));
  let sidecars: Amounts = { cpu: 0, memory: 0 };
  let init: Amounts = { cpu: 0, memory: 0 };
  for (const container of spec?.initContainers ?? []) {
    const own = requestsOf(container);
    if (container.restartPolicy === 'Always') {
      total = plus(total, own);
      sidecars = plus(sidecars, own);
      init = max(init, sidecars);
    } else {
      init = max(init, plus(own, sidecars));
    }
  }
  total = max(total, init);
  const podLevel = (spec as { resources?: { requests?: Record<string, string> } } | undefined)?.resources?.requests;
  const cpu = quantityValue(podLevel?.cpu) ?? total.cpu;
  const memory = quantityValue(podLevel?.memory) ?? total.memory;
  return {
    cpu: cpu + (quantityValue(spec?.overhead?.cpu) ?? 0),
    memoryBytes: memory + (quantityValue(spec?.overhead?.memory) ?? 0),
  };
}
