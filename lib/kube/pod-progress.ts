import { isDeepStrictEqual } from 'node:util';
import type { V1ContainerState, V1Pod } from '@kubernetes/client-node';
import { ContainerWaitingReasons, PodConditionTypes, PodPhases } from './classify-reasons.js';
import { containerStatus, focusContainer } from './classify-pod.js';
import { isServiceContainer } from './classify-services.js';

/**
 * Where a pod stands, in the few facts a poll's classification turns on. Two polls that see the
 * same progress would classify it the same way, so a watch waits for this to change rather than
 * for any update (the kubelet rewrites a pod's status often). It rides in the Step Functions state
 * ($.poll.progress), so it is plain JSON and small: a flag is only present when true, and no field
 * is ever undefined, which keeps a value equal to itself after a trip through JSON.
 */
export interface PodProgress {
  /** The pod's status.phase (Unknown when it has none), or Gone once the pod no longer exists. */
  phase: string;
  /** The scheduler has said it cannot place the pod (PodScheduled=False). */
  unschedulable?: true;
  /** The focus container's state (see focusContainer); absent until the kubelet reports one. */
  container?: ContainerProgress;
  /** The focus is this init container (the checkout), not the step's own. */
  init?: string;
  /** A deletion has been asked for. */
  deleting?: true;
  /**
   * The cluster has said it is taking the pod away (condition DisruptionTarget: an eviction, the
   * pod GC of a gone node): a watch returns at once, while the pod is still there to say why.
   */
  disrupted?: true;
  /**
   * The step's services' ends so far (restarts plus services terminated); absent while none. A
   * service that exits or restarts changes it, so a watch on a running step returns at once.
   */
  serviceEnds?: number;
}

export type ContainerProgress =
  | { state: 'waiting'; reason: string }
  | { state: 'running' }
  | { state: 'terminated'; exitCode: number };

/** Not a Kubernetes phase: the pod was deleted, or never made. */
const GONE = 'Gone';

export function podProgress(pod: V1Pod | null): PodProgress {
  if (!pod) return { phase: GONE };
  const focus = focusContainer(pod);
  const container = containerProgress(containerStatus(pod, focus.name, focus.init)?.state);
  const serviceEnds = (pod.status?.initContainerStatuses ?? [])
    .filter((s) => isServiceContainer(pod.spec?.initContainers?.find((c) => c.name === s.name)))
    .reduce((sum, s) => sum + (s.restartCount ?? 0) + (s.state?.terminated ? 1 : 0), 0);
  return {
    phase: pod.status?.phase ?? PodPhases.Unknown,
    ...(isUnschedulable(pod) ? { unschedulable: true } : {}),
    ...(container ? { container } : {}),
    ...(focus.init ? { init: focus.name } : {}),
    ...(pod.metadata?.deletionTimestamp ? { deleting: true } : {}),
    ...(pod.status?.conditions?.some((c) => c.type === PodConditionTypes.DisruptionTarget && c.status === 'True') ? { disrupted: true } : {}),
    ...(serviceEnds > 0 ? { serviceEnds } : {}),
  };
}

function containerProgress(state: V1ContainerState | undefined): ContainerProgress | undefined {
  if (state?.terminated) return { state: 'terminated', exitCode: state.terminated.exitCode };
  if (state?.running) return { state: 'running' };
  if (state?.waiting) return { state: 'waiting', reason: state.waiting.reason ?? '' };
  return undefined;
}

function isUnschedulable(pod: V1Pod): boolean {
  return Boolean(pod.status?.conditions?.some((c) => c.type === PodConditionTypes.PodScheduled && c.status === 'False'));
}

/**
 * Whether two looks saw the pod in the same place. One side usually comes out of the state JSON,
 * where it may be missing, or a string left by an execution that started before progress had this
 * shape: neither matches a real progress, so the worst case is one poll that was not needed.
 */
export function sameProgress(a: PodProgress | undefined, b: PodProgress | undefined): boolean {
  return isDeepStrictEqual(a, b);
}

/** Container waiting reasons that are only the way to running, not a problem. */
const QUIET_WAITING_REASONS: ReadonlySet<string> = new Set([
  ContainerWaitingReasons.ContainerCreating,
  ContainerWaitingReasons.PodInitializing,
]);

/**
 * The quiet steps every pod goes through on its way to running: waiting for the scheduler or the
 * kubelet's first report, its container being created, its init containers running. A poll there
 * would only classify "pending" again, so a watch waits past them.
 */
export function isQuietPending(progress: PodProgress): boolean {
  // A service that ended is news whatever the step's container is doing.
  if (progress.phase !== PodPhases.Pending || progress.unschedulable || progress.deleting || progress.serviceEnds) return false;
  const { container } = progress;
  return !container || (container.state === 'waiting' && QUIET_WAITING_REASONS.has(container.reason));
}
