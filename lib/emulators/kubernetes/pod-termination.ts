/**
 * Ending a pod before its containers are done, because it was deleted or ran past
 * activeDeadlineSeconds: Killing events, SIGTERM then SIGKILL after the grace period, and a final
 * status saying how each container ended.
 */
import { exitReason } from './container-exit.js';
import type { ContainerStatus, PodStatus } from './objects.js';
import type { PodHandle } from './pod-handle.js';
import { derivePhase, nodeConditions } from './pod-status.js';
import type { ContainerExit, RunningContainer } from './runtime/container-runtime.js';

export type TerminationCause = 'deleted' | 'deadline';

export const DEADLINE_MESSAGE = 'Pod was active on the node longer than the specified deadline';

/** The pod's status once its stopped containers have exited with `exits` (by container name). */
export function terminatedStatus(
  status: PodStatus | undefined,
  exits: ReadonlyMap<string, ContainerExit>,
  cause: TerminationCause,
  finishedAt: string,
  sidecars: ReadonlySet<string> = new Set(),
): PodStatus {
  const stopped = (s: ContainerStatus, exit: ContainerExit): ContainerStatus => {
    const startedAt = s.state.running?.startedAt ?? null;
    return { ...s, ready: false, started: false, state: { terminated: { exitCode: exit.exitCode, reason: exitReason(exit), ...(exit.lost !== undefined ? { message: exit.lost } : {}), startedAt, finishedAt, containerID: s.containerID } } };
  };
  const statuses = (status?.containerStatuses ?? []).map((s): ContainerStatus => {
    const exit = exits.get(s.name);
    if (exit !== undefined) return stopped(s, exit);
    if (s.state.terminated) return s;
    // Never started: the kubelet reports such containers as lost when the pod ends.
    return { ...s, ready: false, started: false, state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt } } };
  });
  // An init container stopped mid-run ends like a container; the ones after it never started.
  const initStatuses = status?.initContainerStatuses?.map((s): ContainerStatus => {
    const exit = exits.get(s.name);
    return exit === undefined ? s : stopped(s, exit);
  });
  const phase = cause === 'deadline' ? 'Failed' : derivePhase(statuses, initStatuses, sidecars);
  return {
    ...status,
    phase,
    ...(cause === 'deadline' ? { reason: 'DeadlineExceeded', message: DEADLINE_MESSAGE } : {}),
    ...(initStatuses ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
    conditions: nodeConditions(status?.conditions ?? [], statuses, phase, finishedAt, initStatuses, sidecars),
  };
}

/**
 * Stops sidecars one by one in the reverse order of their declaration, each with what is left of
 * the grace period (SIGTERM, then SIGKILL), as the kubelet does once the containers have ended.
 */
export async function stopSidecars(
  pod: Pick<PodHandle, 'sidecars' | 'event'>,
  running: ReadonlyMap<string, RunningContainer>,
  graceMs: number,
  until = Date.now() + graceMs,
): Promise<Map<string, ContainerExit>> {
  const exits = new Map<string, ContainerExit>();
  for (const name of [...pod.sidecars].reverse()) {
    const process = running.get(name);
    if (process === undefined) continue;
    pod.event({ type: 'Normal', reason: 'Killing', message: `Stopping container ${name}`, container: name });
    exits.set(name, await process.stop(Math.max(0, until - Date.now())));
  }
  return exits;
}

/**
 * Stops the running processes and records the pod's end: the containers (and an ordinary init
 * container) first, then the sidecars in reverse order, all within one grace period. Returns
 * whether any process was running.
 */
export async function terminatePod(
  pod: PodHandle,
  running: ReadonlyMap<string, RunningContainer>,
  graceMs: number,
  cause: TerminationCause,
): Promise<boolean> {
  const until = Date.now() + graceMs;
  const all = [...running.entries()];
  const stopping = all.filter(([name]) => !pod.isSidecar(name));
  for (const [name] of stopping) pod.event({ type: 'Normal', reason: 'Killing', message: `Stopping container ${name}`, container: name });
  const exits = new Map(await Promise.all(stopping.map(async ([name, p]) => [name, await p.stop(graceMs)] as const)));
  for (const [name, exit] of await stopSidecars(pod, running, graceMs, until)) exits.set(name, exit);
  const finishedAt = pod.stamp();
  pod.patch((p) => {
    p.status = terminatedStatus(p.status, exits, cause, finishedAt, new Set(pod.sidecars));
  });
  return all.length > 0;
}
