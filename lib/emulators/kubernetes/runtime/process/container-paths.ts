/**
 * Where a container's paths are on this machine, since its process runs on the host, not in a
 * mount namespace: a path under a volume mount is under that volume's host directory; any other
 * path is under a directory standing in for the container's own filesystem. Pure: the caller makes
 * the directories.
 */
import { join } from 'node:path';
import { normaliseContainerPath as normalise } from '../../container-mounts.js';
import type { Container } from '../../objects.js';
import type { ContainerMount } from '../container-runtime.js';

/** The mount a container path is in, and the rest of the path below it. */
function mountOf(path: string, mounts: readonly ContainerMount[]): { mount: ContainerMount; rest: string } | undefined {
  for (const mount of mounts) {
    if (path === mount.containerPath) return { mount, rest: '' };
    const prefix = mount.containerPath === '/' ? '/' : `${mount.containerPath}/`;
    if (path.startsWith(prefix)) return { mount, rest: path.slice(prefix.length) };
  }
  return undefined;
}

/** Where the host has a container path: in its mount, else under the container's own root. */
export function hostPathOf(path: string, mounts: readonly ContainerMount[], containerRoot: string): string {
  const absolute = normalise(path);
  const found = mountOf(absolute, mounts);
  return found === undefined ? join(containerRoot, absolute) : join(found.mount.hostPath, found.rest);
}

/**
 * The process's working directory: its workingDir on the host; without one, `fallback` (the
 * cluster's workspace folder), since there is no image to say where a process starts.
 */
export function workingDirectory(container: Pick<Container, 'workingDir'>, mounts: readonly ContainerMount[], containerRoot: string, fallback: string): string {
  return container.workingDir ? hostPathOf(container.workingDir, mounts, containerRoot) : fallback;
}

/**
 * The environment with every value that is a mount path, or a path below one, turned into the
 * host's path for it, so that `cd "$CI_WORKSPACE"` reaches the volume. Other values, including
 * paths outside every mount, are left as they are.
 */
export function hostEnv(env: Readonly<Record<string, string>>, mounts: readonly ContainerMount[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const found = value.startsWith('/') ? mountOf(value, mounts) : undefined;
    out[name] = found === undefined ? value : join(found.mount.hostPath, found.rest);
  }
  return out;
}
