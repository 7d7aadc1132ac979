import type { V1Pod } from '@kubernetes/client-node';
import { podRequests, type StepCluster } from '../kube/index.js';
import type { PodUsage } from './cost-model.js';
import type { PodOnNode } from './state-data.js';
import type { TaskLog } from './task-deps.js';

const iso = (at: Date | string | undefined): string | undefined => (at === undefined ? undefined : new Date(at).toISOString());

/** The latest end of the pod's containers, once the pod itself has ended (its phase says so). */
function endedAt(pod: V1Pod): string | undefined {
  if (pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') return undefined;
  const ends = [...(pod.status.containerStatuses ?? []), ...(pod.status.initContainerStatuses ?? [])]
    .map((status) => iso(status.state?.terminated?.finishedAt as Date | string | undefined))
    .filter((at): at is string => at !== undefined)
    .sort();
  return ends.at(-1);
}

/**
 * Where the pod is and what it reserved, as PollStep keeps it: its node's instance type is read
 * once, when the pod is first seen on a node; its end is added when it has ended. A pod that is
 * gone keeps what was seen of it. The instance type only prices the step: a node that cannot be
 * read leaves it unknown (null), never a failed poll.
 */
export async function podPlacement(pod: V1Pod | null, previous: PodOnNode | undefined, now: Date, deps: { cluster: StepCluster; log: TaskLog }): Promise<PodOnNode | undefined> {
  const node = pod?.spec?.nodeName;
  if (!pod || !node) return previous;
  const base: PodOnNode =
    previous?.node === node
      ? previous
      : {
          node,
          instanceType: await deps.cluster.nodeInstanceType(node).catch((error: unknown) => {
            deps.log.warn(`The instance type of node ${node} could not be read: the step is priced at the flat rate`, { reason: (error as Error).message });
            return null;
          }),
          ...podRequests(pod),
          since: iso(pod.status?.startTime as Date | string | undefined) ?? now.toISOString(),
        };
  const until = endedAt(pod);
  return until ? { ...base, until } : base;
}

/** The pod's requests for the time it held them: from the kubelet's acceptance to its end (or `end`, when no end was seen). */
export function podUsage(step: string, placed: PodOnNode | undefined, end: Date): PodUsage | undefined {
  if (!placed) return undefined;
  const seconds = Math.max(0, (Date.parse(placed.until ?? end.toISOString()) - Date.parse(placed.since)) / 1000);
  return { step, cpu: placed.cpu, memoryBytes: placed.memoryBytes, seconds, instanceType: placed.instanceType };
}
