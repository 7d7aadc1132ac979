/**
 * The kubelet's volume manager for the kinds of volume this node can give a pod: a claim's volume
 * (the host directory its provisioner made), an emptyDir (a fresh directory of the pod's, gone
 * with the pod) and a Secret's (its keys as files, kept current: secret-volume.ts). Any other kind
 * (configMap, hostPath...) cannot be mounted here: the pod stays ContainerCreating with a
 * FailedMount event, where EKS would run it.
 */
import { mkdir } from 'node:fs/promises';
import type { NodeContext } from './node-context.js';
import type { NodeDirs } from './node-dirs.js';
import type { PersistentVolumeClaim, Pod, Secret } from './objects.js';
import type { PodHandle } from './pod-handle.js';
import { podSecurityContext } from './security-context.js';
import { isBound, type ClaimOf } from './volume-binding.js';
import { applyFsGroup } from './volume-ownership.js';
import { volumeSource } from './volume-validation.js';
import { keepSecretVolumesCurrent, type SecretVolume } from './secret-volume.js';

type VolumeDirs = { ok: true; dirs: Map<string, string>; secrets: (SecretVolume & { secret: Secret })[] } | { ok: false; volume: string; problem: string };

type SecretSource = { secretName?: string; optional?: boolean; defaultMode?: number; items?: { key: string; path: string }[] };

/** Each volume's host directory, by volume name; or the first volume the node cannot provide. */
function volumeDirs(pod: Pod, claimOf: ClaimOf, secretOf: (name: string) => Secret | undefined, dirs: NodeDirs): VolumeDirs {
  const found = new Map<string, string>();
  const secrets: (SecretVolume & { secret: Secret })[] = [];
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
    } else if (source === 'secret') {
      const { secretName = '', optional, defaultMode, items } = (volume.secret ?? {}) as SecretSource;
      const secret = secretOf(secretName) ?? (optional ? { metadata: { name: secretName }, data: {} } : undefined);
      // The kubelet's words (pkg/volume/secret: `secret "NAME" not found`); it retries, the pod waits.
      if (secret === undefined) return { ok: false, volume: volume.name, problem: `secret "${secretName}" not found` };
      const dir = dirs.secretVolume(uid, volume.name);
      found.set(volume.name, dir);
      secrets.push({ dir, namespace: pod.metadata.namespace ?? 'default', secretName, secret, ...(items ? { items } : {}), ...(defaultMode !== undefined ? { defaultMode } : {}) });
    } else {
      return { ok: false, volume: volume.name, problem: `the embedded cluster cannot mount ${source} volumes, only persistentVolumeClaim, emptyDir and secret` };
    }
  }
  return { ok: true, dirs: found, secrets };
}

/** The pod's volumes on the host, and the end of their Secrets' updates (at the pod's end). */
export interface MountedVolumes {
  dirs: ReadonlyMap<string, string>;
  stopUpdates(): void;
}

/** The pod's volumes ready on the host, before any container starts; undefined when one cannot be. */
export async function mountVolumes(pod: PodHandle, spec: Pod, node: Pick<NodeContext, 'store' | 'dirs'>): Promise<MountedVolumes | undefined> {
  const claimOf: ClaimOf = (name) => node.store.get('persistentvolumeclaims', pod.namespace, name) as PersistentVolumeClaim | undefined;
  const secretOf = (name: string) => node.store.get('secrets', pod.namespace, name) as Secret | undefined;
  const result = volumeDirs(spec, claimOf, secretOf, node.dirs);
  if (!result.ok) {
    pod.event({ type: 'Warning', reason: 'FailedMount', message: `MountVolume.SetUp failed for volume "${result.volume}" : ${result.problem}` });
    return undefined;
  }
  await Promise.all([...result.dirs.values()].map((dir) => mkdir(dir, { recursive: true })));
  const secrets = keepSecretVolumesCurrent(node.store, result.secrets);
  try {
    await secrets.written;
  } catch (error) {
    secrets.stop();
    throw error;
  }
  const { fsGroup, fsGroupChangePolicy } = podSecurityContext(spec);
  await applyFsGroup(result.dirs.values(), fsGroup, fsGroupChangePolicy);
  return { dirs: result.dirs, stopUpdates: secrets.stop };
}
