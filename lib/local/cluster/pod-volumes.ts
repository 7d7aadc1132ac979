/**
 * The kubelet's volume manager for the kinds of volume this node can give a pod: a claim's volume
 * (the host directory its provisioner made) and an emptyDir (a fresh directory of the pod's, gone
 * with the pod). Any other kind (configMap, secret, hostPath...) cannot be mounted here: the pod
 * stays ContainerCreating with a FailedMount event, where EKS would run it.
 */
import { mkdir } from 'node:fs/promises';
import type { NodeContext } from './node-context.js';
import type { NodeDirs } from './node-dirs.js';
import type { PersistentVolumeClaim, Pod } from './objects.js';
import type { PodHandle } from './pod-handle.js';
import { podSecurityContext } from './security-context.js';
import { isBound, type ClaimOf } from './volume-binding.js';
import { applyFsGroup } from './volume-ownership.js';
import { volumeSource } from './volume-validation.js';

type VolumeDirs = { ok: true; dirs: Map<string, string> } | { ok: false; volume: string; problem: string };

/** Each volume's host directory, by volume name; or the first volume the node cannot provide. */
function volumeDirs(pod: Pod, claimOf: ClaimOf, dirs: NodeDirs): VolumeDirs {
  const found = new Map<string, string>();
  const uid = pod.metadata.uid ?? '';
  for (const volume of pod.spec.volumes ?? []) {
    const source = volumeSource(volume);
    if (source === 'emptyDir') {
      found.set(volume.name, dirs.emptyDir(uid, volume.name));
    } else if (source === 'persistentVolumeClaim') {
      const claimName = volume.persistentVolumeClaim?.claimName ?? '';
      const claim = claimOf(claimName);
      if (claim === undefined || !isBound(claim) || !claim.spec.volumeName) {
        return { ok: false, volume: volume.name, problem: `persistentvolumeclaim "${claimName}" has no volume bound on this node` };
      }
      found.set(volume.name, dirs.volume(claim.spec.volumeName));
    } else {
      return { ok: false, volume: volume.name, problem: `the embedded cluster cannot mount ${source} volumes, only persistentVolumeClaim and emptyDir` };
    }
  }
  return { ok: true, dirs: found };
}

/** The pod's volumes ready on the host, before any container starts; undefined when one cannot be. */
export async function mountVolumes(pod: PodHandle, spec: Pod, node: Pick<NodeContext, 'store' | 'dirs'>): Promise<ReadonlyMap<string, string> | undefined> {
  const claimOf: ClaimOf = (name) => node.store.get('persistentvolumeclaims', pod.namespace, name) as PersistentVolumeClaim | undefined;
  const result = volumeDirs(spec, claimOf, node.dirs);
  if (!result.ok) {
    pod.event({ type: 'Warning', reason: 'FailedMount', message: `MountVolume.SetUp failed for volume "${result.volume}" : ${result.problem}` });
    return undefined;
  }
  await Promise.all([...result.dirs.values()].map((dir) => mkdir(dir, { recursive: true })));
  const { fsGroup, fsGroupChangePolicy } = podSecurityContext(spec);
  await applyFsGroup(result.dirs.values(), fsGroup, fsGroupChangePolicy);
  return result.dirs;
}
