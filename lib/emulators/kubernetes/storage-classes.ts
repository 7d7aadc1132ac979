/**
 * The StorageClasses the embedded cluster serves (read-only): EKS's gp2, the gp3 class EKS users
 * usually add for the EBS CSI driver, and `standard`, the default, backed by this machine's disk.
 * Every class waits for the first consumer, as EBS classes do: a volume lives in one zone, so it is
 * made only once the scheduler has chosen the node of its first pod.
 */
import type { StorageClass } from './objects.js';

const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

/** The EBS CSI driver's name, which EKS writes on gp2 and gp3 claims. */
export const EBS_PROVISIONER = 'ebs.csi.aws.com';

export const STORAGE_CLASSES: readonly StorageClass[] = [
  {
    metadata: { name: 'gp2' },
    provisioner: EBS_PROVISIONER,
    parameters: { fsType: 'ext4', type: 'gp2' },
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  },
  {
    metadata: { name: 'gp3' },
    provisioner: EBS_PROVISIONER,
    parameters: { fsType: 'ext4', type: 'gp3' },
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
  },
  {
    metadata: { name: 'standard', annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' } },
    provisioner: 'step-runner.dev/host-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  },
];

export function isDefaultClass(storageClass: StorageClass): boolean {
  return storageClass.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true';
}

/** What the DefaultStorageClass admission plugin gives a claim that names no class. */
export const DEFAULT_STORAGE_CLASS = STORAGE_CLASSES.find(isDefaultClass)?.metadata.name;
