/**
 * The persistent volume controller, for claims: says why a new claim waits (for its first consumer,
 * for a storage class that does not exist, for a volume when it names no class), hands a claim to
 * its class's provisioner once the scheduler has selected its node, and has the volume deleted when
 * the claim is gone. It records each event once, where the real one repeats it on every resync.
 */
import { ClaimAnnotations, ClaimEvents, PV_CONTROLLER, type ClaimEvent } from './control-plane-messages.js';
import { startController, type Controller } from './controller.js';
import type { PersistentVolumeClaim, StorageClass } from './objects.js';
import { isBound, waitsForFirstConsumer } from './volume-binding.js';
import type { ProvisionerContext, VolumeProvisioner } from './volume-provisioner.js';
import type { StoreEvent } from './store.js';

export function startPersistentVolumeController(ctx: Pick<ProvisionerContext, 'store' | 'events'>, provisioner: VolumeProvisioner): Controller {
  const { store, events } = ctx;
  const classOf = (name: string) => store.get('storageclasses', undefined, name) as StorageClass | undefined;
  const report = (claim: PersistentVolumeClaim, event: ClaimEvent) => events.record(claim, { ...event, component: PV_CONTROLLER });

  function claimAdded(claim: PersistentVolumeClaim): void {
    const className = claim.spec.storageClassName ?? '';
    if (waitsForFirstConsumer(claim, classOf)) report(claim, ClaimEvents.waitForFirstConsumer());
    else if (className === '') report(claim, ClaimEvents.noClass());
    else if (classOf(className) === undefined) report(claim, ClaimEvents.classNotFound(className));
  }

  async function nodeSelected(claim: PersistentVolumeClaim, signal: AbortSignal): Promise<void> {
    const storageClass = classOf(claim.spec.storageClassName ?? '');
    if (storageClass === undefined) return;
    const handed = store.update(
      'persistentvolumeclaims',
      claim.metadata.namespace,
      claim.metadata.name ?? '',
      (draft) => {
        draft.metadata.annotations = {
          ...draft.metadata.annotations,
          [ClaimAnnotations.betaStorageProvisioner]: storageClass.provisioner,
          [ClaimAnnotations.storageProvisioner]: storageClass.provisioner,
        };
      },
      claim.metadata.uid,
    ) as PersistentVolumeClaim | undefined;
    if (handed === undefined) return;
    report(handed, ClaimEvents.externalProvisioning(storageClass.provisioner));
    await provisioner.provision(handed, storageClass, signal);
  }

  const selectedNode = (claim: PersistentVolumeClaim | undefined) => claim?.metadata.annotations?.[ClaimAnnotations.selectedNode];

  return startController(store, (event: StoreEvent, signal) => {
    if (event.resource !== 'persistentvolumeclaims') return;
    const claim = event.object as PersistentVolumeClaim;
    if (event.type === 'DELETED') return claim.spec.volumeName ? provisioner.remove(claim.spec.volumeName) : undefined;
    // A claim created with its node already selected is provisioned at once, as the real controller does.
    const nodeJustSelected = Boolean(selectedNode(claim)) && !selectedNode(event.previous as PersistentVolumeClaim | undefined);
    if (nodeJustSelected && !isBound(claim) && waitsForFirstConsumer(claim, classOf)) return nodeSelected(claim, signal);
    if (event.type === 'ADDED') claimAdded(claim);
  });
}
