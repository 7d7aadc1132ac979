/**
 * The kubelet's volume manager for the kinds of volume this node can give a pod: a claim's volume
 * (the host directory its provisioner made), an emptyDir (a fresh directory of the pod's, gone
 * with the pod), a Secret's (its keys as files, kept current: secret-volume.ts) and a projected
 * volume of service account tokens (what EKS Pod Identity's webhook adds). Any other kind
 * (configMap, hostPath, other projections...) cannot be mounted here: the pod stays ContainerCreating with a
 * FailedMount event, where EKS would run it.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { NodeContext } from './node-context.js';
import type { NodeDirs } from './node-dirs.js';
import type { KubeObject, PersistentVolumeClaim, Pod, Secret } from './objects.js';
import type { PodHandle } from './pod-handle.js';
import { podSecurityContext } from './security-context.js';
import { isBound, type ClaimOf } from './volume-binding.js';
import { applyFsGroup } from './volume-ownership.js';
import { volumeSource } from './volume-validation.js';
import { keepSecretVolumesCurrent, type SecretVolume } from './secret-volume.js';

/** A token file of a projected volume, to write before the containers start. */
interface TokenFile {
  file: string;
  token: string;
  mode: number;
}

type VolumeDirs = { ok: true; dirs: Map<string, string>; secrets: (SecretVolume & { secret: Secret })[]; tokens: TokenFile[] } | { ok: false; volume: string; problem: string };

type ProjectedSource = { defaultMode?: number; sources?: { serviceAccountToken?: { audience?: string; expirationSeconds?: number; path: string }; [other: string]: unknown }[] };

/** The apiserver's default for a TokenRequest without expirationSeconds: one hour. */
const DEFAULT_TOKEN_SECONDS = 3600;

/** A token of the pod's service account, as the kubelet's TokenRequest gets it; no audience: the apiserver's own. */
type Mint = (audience: string | undefined, expirationSeconds: number) => string;

type SecretSource = { secretName?: string; optional?: boolean; defaultMode?: number; items?: { key: string; path: string }[] };

/** Each volume's host directory, by volume name; or the first volume the node cannot provide. */
function volumeDirs(pod: Pod, claimOf: ClaimOf, secretOf: (name: string) => Secret | undefined, dirs: NodeDirs, mint: Mint): VolumeDirs {
  const found = new Map<string, string>();
  const secrets: (SecretVolume & { secret: Secret })[] = [];
  const tokens: TokenFile[] = [];
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
    } else if (source === 'projected' && onlyTokens(volume.projected as ProjectedSource)) {
      const { defaultMode = 0o644, sources = [] } = volume.projected as ProjectedSource;
      const dir = dirs.projectedVolume(uid, volume.name);
      found.set(volume.name, dir);
      for (const { serviceAccountToken } of sources) {
        const { audience, expirationSeconds = DEFAULT_TOKEN_SECONDS, path } = serviceAccountToken!;
        tokens.push({ file: join(dir, path), token: mint(audience, expirationSeconds), mode: defaultMode });
      }
    } else {
      return { ok: false, volume: volume.name, problem: `the embedded cluster cannot mount ${source} volumes, only persistentVolumeClaim, emptyDir, secret and projected serviceAccountToken` };
    }
  }
  return { ok: true, dirs: found, secrets, tokens };
}

/** The pod's volumes on the host, and the end of their Secrets' updates (at the pod's end). */
export interface MountedVolumes {
  dirs: ReadonlyMap<string, string>;
  stopUpdates(): void;
}

/** The pod's volumes ready on the host, before any container starts; undefined when one cannot be. */
export async function mountVolumes(pod: PodHandle, spec: Pod, node: Pick<NodeContext, 'store' | 'dirs' | 'tokens' | 'nodeName' | 'now'>): Promise<MountedVolumes | undefined> {
  const claimOf: ClaimOf = (name) => node.store.get('persistentvolumeclaims', pod.namespace, name) as PersistentVolumeClaim | undefined;
  const secretOf = (name: string) => node.store.get('secrets', pod.namespace, name) as Secret | undefined;
  const result = volumeDirs(spec, claimOf, secretOf, node.dirs, tokenMinter(spec, node));
  if (!result.ok) {
    pod.event({ type: 'Warning', reason: 'FailedMount', message: `MountVolume.SetUp failed for volume "${result.volume}" : ${result.problem}` });
    return undefined;
  }
  await Promise.all([...result.dirs.values()].map((dir) => mkdir(dir, { recursive: true })));
  await Promise.all(
    result.tokens.map(async ({ file, token, mode }) => {
      await writeFile(file, token);
      await chmod(file, mode);
    }),
  );
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

function onlyTokens(projected: ProjectedSource | undefined): boolean {
  const sources = projected?.sources ?? [];
  return sources.length > 0 && sources.every((source) => source.serviceAccountToken !== undefined && Object.keys(source).length === 1);
}

/**
 * The kubelet's TokenRequest for the pod's service account, bound to the pod and this node
 * (pkg/kubelet/token: the token is not refreshed here before 80% of its life, as the kubelet would;
 * a build ends long before the 24 hours of Pod Identity's).
 */
function tokenMinter(pod: Pod, node: Pick<NodeContext, 'store' | 'tokens' | 'nodeName' | 'now'>): Mint {
  const namespace = pod.metadata.namespace ?? 'default';
  const serviceAccount = pod.spec.serviceAccountName || 'default';
  const uidOf = (object: KubeObject | undefined) => object?.metadata.uid ?? '';
  return (audience, expirationSeconds) =>
    node.tokens.mint(
      {
        audience: audience || node.tokens.issuer,
        expirationSeconds,
        namespace,
        serviceAccount: { name: serviceAccount, uid: uidOf(node.store.get('serviceaccounts', namespace, serviceAccount)) },
        pod: { name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
        node: { name: node.nodeName, uid: uidOf(node.store.get('nodes', undefined, node.nodeName)) },
      },
      node.now(),
    );
}
