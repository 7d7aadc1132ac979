/**
 * The external provisioner of every known class, standing in for the EBS CSI driver: once the
 * scheduler has selected a claim's node it makes the volume (a host directory), then binds the claim
 * to it (the persistent volume controller's part, folded in here since no PersistentVolume objects
 * are served); when the claim is gone it deletes the volume (reclaimPolicy Delete).
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { ClaimAnnotations, ClaimEvents } from './control-plane-messages.js';
import type { EventRecorder } from './events.js';
import type { NodeDirs } from './node-dirs.js';
import type { PersistentVolumeClaim, StorageClass } from './objects.js';
import { parseQuantity } from './quantity.js';
import { EBS_PROVISIONER } from './storage-classes.js';
import type { ObjectStore } from './store.js';
import type { KubeletTimings } from './timings.js';

export interface ProvisionerContext {
  store: ObjectStore;
  events: EventRecorder;
  dirs: NodeDirs;
  timings: Pick<KubeletTimings, 'provisionMs'>;
  nodeName: string;
  /** Removes a volume's folder, whatever its pods wrote there (the runtime's removeNodeTree). */
  removeTree: (path: string) => Promise<void>;
}

const GIB = 2 ** 30;

/** EBS volumes come in whole GiB: the driver rounds a request up, and the claim shows what it got. */
export function provisionedCapacity(request: string, provisioner: string): string {
  if (provisioner !== EBS_PROVISIONER) return request;
  return `${Math.ceil((parseQuantity(request) ?? 0) / GIB)}Gi`;
}

/** The volume's name, as external-provisioner names it: after the claim's uid. */
function volumeNameFor(claim: PersistentVolumeClaim): string {
  return `pvc-${claim.metadata.uid ?? ''}`;
}

export class VolumeProvisioner {
  /** Who the events say recorded them: "<driver>_<host>_<instance uuid>", as external-provisioner signs. */
  private readonly instance = randomUUID();

  constructor(private readonly ctx: ProvisionerContext) {}

  async provision(claim: PersistentVolumeClaim, storageClass: StorageClass, signal: AbortSignal): Promise<void> {
    const { store, events, dirs, timings } = this.ctx;
    const component = `${storageClass.provisioner}_${this.ctx.nodeName}_${this.instance}`;
    const namespace = claim.metadata.namespace ?? '';
    const name = claim.metadata.name ?? '';
    events.record(claim, { ...ClaimEvents.provisioning(namespace, name), component });
    await delay(timings.provisionMs, undefined, { signal });
    const volumeName = volumeNameFor(claim);
    const path = dirs.volume(volumeName);
    await mkdir(path, { recursive: true });
    events.record(claim, { ...ClaimEvents.provisioningSucceeded(volumeName), component });
    const capacity = provisionedCapacity(claim.spec.resources?.requests?.storage ?? '0', storageClass.provisioner);
    const bound = store.update(
      'persistentvolumeclaims',
      namespace,
      name,
      (draft) => {
        const c = draft as PersistentVolumeClaim;
        c.spec.volumeName = volumeName;
        c.metadata.annotations = { ...c.metadata.annotations, [ClaimAnnotations.bindCompleted]: 'yes', [ClaimAnnotations.boundByController]: 'yes' };
        c.status = { phase: 'Bound', accessModes: c.spec.accessModes, capacity: { storage: capacity } };
      },
      claim.metadata.uid,
    );
    // Deleted while its volume was being made: the volume goes too.
    if (bound === undefined) await this.remove(volumeName);
  }

  async remove(volumeName: string): Promise<void> {
    await this.ctx.removeTree(this.ctx.dirs.volume(volumeName));
  }
}
