/**
 * What the apiserver and its admission plugins fill into a new PersistentVolumeClaim: the default
 * storage class when none is named (DefaultStorageClass; an explicit "" stays "", meaning no class),
 * the protection finalizer that keeps a claim while pods use it (StorageObjectInUseProtection), the
 * volume mode, and a Pending status.
 */
import type { PersistentVolumeClaim } from './objects.js';
import { DEFAULT_STORAGE_CLASS } from './storage-classes.js';

export const CLAIM_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';

export function applyClaimDefaults(claim: PersistentVolumeClaim): void {
  if (claim.spec.storageClassName === undefined && DEFAULT_STORAGE_CLASS !== undefined) claim.spec.storageClassName = DEFAULT_STORAGE_CLASS;
  claim.spec.volumeMode ??= 'Filesystem';
  const finalizers = claim.metadata.finalizers ?? [];
  claim.metadata.finalizers = finalizers.includes(CLAIM_PROTECTION_FINALIZER) ? finalizers : [...finalizers, CLAIM_PROTECTION_FINALIZER];
  claim.status = { phase: 'Pending' };
}
