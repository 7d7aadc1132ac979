/** The defaults the apiserver fills into a new pod, so clients read back what a real cluster returns. */
import type { Container, Pod } from './objects.js';

/** The apiserver's rule: `:latest` or no tag (and no digest) means Always, anything else IfNotPresent. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  if (image.includes('@')) return 'IfNotPresent';
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  const tag = lastPart.includes(':') ? lastPart.slice(lastPart.indexOf(':') + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function qosClass(containers: Container[]): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const any = containers.some((c) => Object.keys(c.resources?.requests ?? {}).length + Object.keys(c.resources?.limits ?? {}).length > 0);
  if (!any) return 'BestEffort';
  const guaranteed = containers.every((c) => {
    const limits = c.resources?.limits ?? {};
    const requests = c.resources?.requests ?? {};
    return limits.cpu !== undefined && limits.memory !== undefined && (requests.cpu ?? limits.cpu) === limits.cpu && (requests.memory ?? limits.memory) === limits.memory;
  });
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export function applyPodDefaults(pod: Pod): void {
  // A real apiserver defaults Always; what this node does, and so what it says, is Never.
  pod.spec.restartPolicy ??= 'Never';
  pod.spec.terminationGracePeriodSeconds ??= 30;
  pod.spec.dnsPolicy ??= 'ClusterFirst';
  pod.spec.schedulerName ??= 'default-scheduler';
  pod.spec.serviceAccountName ??= 'default';
  pod.spec.securityContext ??= {};
  for (const container of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    container.imagePullPolicy ??= defaultPullPolicy(container.image);
    container.terminationMessagePath ??= '/dev/termination-log';
    container.terminationMessagePolicy ??= 'File';
    container.resources ??= {};
    // As the apiserver does: a limit without a request requests the limit.
    const limits = container.resources.limits;
    if (limits !== undefined) {
      container.resources.requests = { ...limits, ...container.resources.requests };
    }
  }
  pod.status = { phase: 'Pending', qosClass: qosClass([...(pod.spec.initContainers ?? []), ...pod.spec.containers]) };
}

/** The API server's message for a gated pod (kubernetes/kubernetes pkg/registry/core/pod/strategy.go). */
const SCHEDULING_GATED_MESSAGE = 'Scheduling is blocked due to non-empty scheduling gates';

/**
 * KEP-3521, as the registry's PrepareForCreate does it (applySchedulingGatedCondition): a pod
 * created with scheduling gates gets PodScheduled=False, reason SchedulingGated, unless it already
 * has a PodScheduled condition. No event: the scheduler's SchedulingGates PreEnqueue plugin keeps
 * the pod out of its queue, and says nothing until the gates are gone (scheduler.ts).
 */
export function applySchedulingGatedCondition(pod: Pod, now: string): void {
  if ((pod.spec.schedulingGates ?? []).length === 0) return;
  const conditions = pod.status?.conditions ?? [];
  if (conditions.some((c) => c.type === 'PodScheduled')) return;
  pod.status = {
    phase: 'Pending',
    ...pod.status,
    conditions: [...conditions, { type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: SCHEDULING_GATED_MESSAGE, lastProbeTime: null, lastTransitionTime: now }],
  };
}
