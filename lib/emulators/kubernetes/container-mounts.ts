/**
 * A container's volume mounts as the runtime makes them: each at its volume's directory on the node
 * (plus subPath), its path made absolute as the kubelet makes it, the deepest first. Pure.
 */
import { join, posix } from 'node:path';
import type { VolumeMount } from './objects.js';
import type { ContainerMount } from './runtime/container-runtime.js';

/** A relative mount path is taken from the root, as the kubelet makes it absolute; no trailing slash. */
export function normaliseContainerPath(path: string): string {
  const absolute = posix.normalize(posix.join('/', path));
  return absolute.length > 1 ? absolute.replace(/\/+$/, '') : absolute;
}

/** A mount of a volume the pod lacks is dropped (validation refuses such pods before they get here). */
export function containerMounts(mounts: readonly VolumeMount[], volumeDirs: ReadonlyMap<string, string>): ContainerMount[] {
  return mounts
    .flatMap((m) => {
      const dir = volumeDirs.get(m.name);
      return dir === undefined ? [] : [{ containerPath: normaliseContainerPath(m.mountPath), hostPath: m.subPath ? join(dir, m.subPath) : dir, readOnly: m.readOnly === true }];
    })
    .sort((a, b) => b.containerPath.length - a.containerPath.length);
}
