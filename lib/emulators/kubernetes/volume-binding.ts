/**
 * The scheduler's VolumeBinding plugin for one pod, as a pure verdict: every claim the pod names
 * must exist and not be on its way out, and each must be bound already or wait for its first
 * consumer (this pod); any other unbound claim keeps the pod from being placed at all.
 */
import { Scheduling } from './control-plane-messages.js';
import type { PersistentVolumeClaim, Pod, StorageClass } from './objects.js';

export type ClaimOf = (name: string) => PersistentVolumeClaim | undefined;
export type ClassOf = (name: string) => StorageClass | undefined;

export type ClaimsVerdict = { ok: true; unbound: PersistentVolumeClaim[] } | { ok: false; message: string };

export function claimNames(pod: Pod): string[] {
  return (pod.spec.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : []));
}

export function isBound(claim: PersistentVolumeClaim): boolean {
  return claim.status?.phase === 'Bound';
}

/**
 * Whether the claim gets its volume once a pod using it is scheduled. A claim that names a volume
 * itself (static binding) never does: no PersistentVolumes are served to bind it to.
 */
export function waitsForFirstConsumer(claim: PersistentVolumeClaim, classOf: ClassOf): boolean {
  const className = claim.spec.storageClassName;
  return !claim.spec.volumeName && Boolean(className) && classOf(className ?? '')?.volumeBindingMode === 'WaitForFirstConsumer';
}

export function checkClaims(pod: Pod, claimOf: ClaimOf, classOf: ClassOf): ClaimsVerdict {
  const claims: PersistentVolumeClaim[] = [];
  for (const name of claimNames(pod)) {
    const claim = claimOf(name);
    if (claim === undefined) return { ok: false, message: Scheduling.claimNotFound(name) };
    if (claim.metadata.deletionTimestamp) return { ok: false, message: Scheduling.claimBeingDeleted(name) };
    claims.push(claim);
  }
  const unbound = claims.filter((c) => !isBound(c));
  if (!unbound.every((c) => waitsForFirstConsumer(c, classOf))) return { ok: false, message: Scheduling.unboundImmediateClaims };
  return { ok: true, unbound };
}
