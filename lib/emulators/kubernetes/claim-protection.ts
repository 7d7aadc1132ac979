/**
 * The PVC protection controller: a claim marked for deletion keeps its finalizer, and so stays
 * Terminating, as long as a pod that was scheduled names it, whatever that pod's phase (a finished
 * step pod holds its claim until the pod itself is deleted); then the finalizer goes, and the claim
 * with it.
 */
import { CLAIM_PROTECTION_FINALIZER } from './claim-defaults.js';
import { startController, type Controller } from './controller.js';
import type { PersistentVolumeClaim, Pod } from './objects.js';
import type { ObjectStore } from './store.js';
import { claimNames } from './volume-binding.js';

function claimInUse(claim: PersistentVolumeClaim, pods: Pod[]): boolean {
  return pods.some((pod) => Boolean(pod.spec.nodeName) && claimNames(pod).includes(claim.metadata.name ?? ''));
}

function release(store: ObjectStore, claim: PersistentVolumeClaim): void {
  const { namespace, name = '', uid } = claim.metadata;
  if (!claim.metadata.deletionTimestamp || !claim.metadata.finalizers?.includes(CLAIM_PROTECTION_FINALIZER)) return;
  if (claimInUse(claim, store.list('pods', namespace) as Pod[])) return;
  const others = claim.metadata.finalizers.filter((f) => f !== CLAIM_PROTECTION_FINALIZER);
  if (others.length > 0) {
    store.update('persistentvolumeclaims', namespace, name, (draft) => void (draft.metadata.finalizers = others), uid);
  } else {
    store.remove('persistentvolumeclaims', namespace, name, uid);
  }
}

export function startClaimProtection(store: ObjectStore): Controller {
  return startController(store, (event) => {
    if (event.resource === 'persistentvolumeclaims' && event.type === 'MODIFIED') {
      const current = store.get('persistentvolumeclaims', event.object.metadata.namespace, event.object.metadata.name ?? '');
      if (current?.metadata.uid === event.object.metadata.uid) release(store, current as PersistentVolumeClaim);
    } else if (event.resource === 'pods' && event.type === 'DELETED') {
      for (const claim of store.list('persistentvolumeclaims', event.object.metadata.namespace)) release(store, claim as PersistentVolumeClaim);
    }
  });
}
