import type { V1Pod } from '@kubernetes/client-node';
import { STEP_CONTAINER } from './types.js';

/**
 * A short word for where a pod stands, e.g. `Pending/waiting:ErrImagePull` or `Running/running`.
 * Two polls that see the same progress would classify it the same way, so a watch waits for this
 * to change rather than for any update (the kubelet rewrites a pod's status often).
 */
export function podProgress(pod: V1Pod | null): string {
  if (!pod) return 'gone';
  const container =
    pod.status?.containerStatuses?.find((c) => c.name === STEP_CONTAINER) ?? pod.status?.containerStatuses?.[0];
  const state = container?.state;
  const containerWord = state?.terminated
    ? `terminated:${state.terminated.exitCode}`
    : state?.running
      ? 'running'
      : state?.waiting
        ? `waiting:${state.waiting.reason ?? ''}`
        : 'none';
  const unschedulable = pod.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False');
  const deleting = pod.metadata?.deletionTimestamp ? '/deleting' : '';
  return `${pod.status?.phase ?? 'Unknown'}${unschedulable ? '/unschedulable' : ''}/${containerWord}${deleting}`;
}
