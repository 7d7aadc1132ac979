/**
 * Containers an earlier cluster on this machine left behind: labelled with an owner `host:pid`
 * whose process is gone. Ones of a live process (another cluster running now) and of other hosts
 * (a daemon shared over the network) are not ours to judge.
 */
import type Docker from 'dockerode';
import { ContainerTypes, DockerLabels, parseOwnerLabel } from './labels.js';

/** Whether pid is a live process here: signal 0 checks without sending; EPERM is someone else's, alive. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

export interface LeftoverCandidate {
  Id: string;
  Labels: Record<string, string>;
}

/** The ones to remove, sandboxes last (their containers live in their namespaces). Pure but for `alive`. */
export function leftovers<T extends LeftoverCandidate>(containers: readonly T[], hostname: string, alive: (pid: number) => boolean): T[] {
  const dead = containers.filter((c) => {
    const owner = parseOwnerLabel(c.Labels[DockerLabels.owner]);
    return owner !== undefined && owner.hostname === hostname && !alive(owner.pid);
  });
  const isSandbox = (c: T) => c.Labels[DockerLabels.type] === ContainerTypes.sandbox;
  return [...dead.filter((c) => !isSandbox(c)), ...dead.filter(isSandbox)];
}

export async function removeLeftovers(docker: Docker, hostname: string, alive: (pid: number) => boolean = processAlive): Promise<number> {
  const listed = await docker.listContainers({ all: true, filters: { label: [DockerLabels.owner] } });
  let removed = 0;
  for (const container of leftovers(listed, hostname, alive)) {
    try {
      await docker.getContainer(container.Id).remove({ force: true });
      removed++;
    } catch (error) {
      // Removed, or being removed, meanwhile (by a cluster starting alongside): not ours to count.
      const status = (error as { statusCode?: number }).statusCode;
      if (status !== 404 && status !== 409) throw error;
    }
  }
  return removed;
}
