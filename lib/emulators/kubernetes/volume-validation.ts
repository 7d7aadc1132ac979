/**
 * Create-time validation of pod volumes, volume mounts and PersistentVolumeClaims, with the
 * apiserver's field paths and wording (pkg/apis/core/validation: ValidateVolumes,
 * ValidateVolumeMounts, ValidatePersistentVolumeClaimSpec).
 */
import { badRequest, type FieldProblem } from './api-errors.js';
import { duplicate, forbidden, invalidValue, notFound, notSupported, required } from './field-errors.js';
import type { Container, PersistentVolumeClaim, Volume } from './objects.js';
import { QUANTITY_FORMAT_MESSAGE, parseQuantity } from './quantity.js';
import { checkDnsLabel, checkDnsSubdomain, checkObjectName } from './name-validation.js';

/** Every source a volume can name, in the order the apiserver counts them (validateVolumeSource). */
const VOLUME_SOURCES = [
  'emptyDir',
  'hostPath',
  'gitRepo',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'flocker',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephfs',
  'quobyte',
  'downwardAPI',
  'fc',
  'flexVolume',
  'configMap',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'storageos',
  'projected',
  'scaleIO',
  'csi',
  'ephemeral',
  'image',
] as const;

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'] as const;
const VOLUME_MODES = ['Block', 'Filesystem'] as const;

/** The source a volume names (its first, if it wrongly names several). */
export function volumeSource(volume: Volume): string | undefined {
  return VOLUME_SOURCES.find((source) => volume[source] !== undefined && volume[source] !== null);
}

function checkVolumeSource(volume: Volume, at: string): FieldProblem[] {
  const named = VOLUME_SOURCES.filter((source) => volume[source] !== undefined && volume[source] !== null);
  if (named.length === 0) return [required(at, 'must specify a volume type')];
  const problems = named.slice(1).map((source) => forbidden(`${at}.${source}`, 'may not specify more than 1 volume type'));
  const claim = volume.persistentVolumeClaim;
  if (claim !== undefined && (typeof claim?.claimName !== 'string' || claim.claimName === '')) {
    problems.push(required(`${at}.persistentVolumeClaim.claimName`));
  }
  return problems;
}

/**
 * `spec.volumes`: the problems, and the names of the volumes without any, which are the only ones
 * a mount may name (the apiserver leaves a faulty volume out of the set mounts are checked against).
 */
export function checkVolumes(volumes: Volume[]): { problems: FieldProblem[]; names: Set<string> } {
  const problems: FieldProblem[] = [];
  const names = new Set<string>();
  volumes.forEach((volume, i) => {
    const at = `spec.volumes[${i}]`;
    const name = volume?.name;
    const found = checkVolumeSource(volume ?? {}, at);
    if (typeof name !== 'string' || name === '') found.push(required(`${at}.name`));
    else found.push(...checkDnsLabel(`${at}.name`, name));
    if (typeof name === 'string' && names.has(name)) found.push(duplicate(`${at}.name`, name));
    if (found.length === 0) names.add(name);
    problems.push(...found);
  });
  return { problems, names };
}

function checkSubPath(subPath: string, field: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (subPath.startsWith('/')) problems.push(invalidValue(field, subPath, 'must be a relative path'));
  if (subPath.split('/').includes('..')) problems.push(invalidValue(field, subPath, "must not contain '..'"));
  return problems;
}

/** A container's `volumeMounts` against the pod's valid volume names. */
export function checkVolumeMounts(container: Partial<Container>, at: string, volumes: ReadonlySet<string>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const mountPaths = new Set<string>();
  (container.volumeMounts ?? []).forEach((mount, j) => {
    const mountAt = `${at}.volumeMounts[${j}]`;
    const name = mount?.name ?? '';
    if (name === '') problems.push(required(`${mountAt}.name`));
    // The apiserver reports an empty name as not found too.
    if (!volumes.has(name)) problems.push(notFound(`${mountAt}.name`, name));
    const mountPath = mount?.mountPath ?? '';
    if (mountPath === '') problems.push(required(`${mountAt}.mountPath`));
    if (mountPaths.has(mountPath)) problems.push(invalidValue(`${mountAt}.mountPath`, mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    // The apiserver's own path: the subPath error hangs off volumeMounts, not off the mount.
    if (mount?.subPath) problems.push(...checkSubPath(mount.subPath, `${at}.volumeMounts.subPath`));
  });
  return problems;
}

/** A new claim. A storage request that is not a quantity fails decoding first, as a 400. */
export function validateClaim(claim: PersistentVolumeClaim): FieldProblem[] {
  const spec = (claim.spec ?? {}) as Partial<PersistentVolumeClaim['spec']>;
  const storage = spec.resources?.requests?.storage;
  if (storage !== undefined && (typeof storage !== 'string' || parseQuantity(storage) === undefined)) {
    throw badRequest(`PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: ${QUANTITY_FORMAT_MESSAGE}`);
  }
  const problems = checkObjectName(claim.metadata.name, 'subdomain');
  const modes = spec.accessModes ?? [];
  if (modes.length === 0) problems.push(required('spec.accessModes', 'at least 1 access mode is required'));
  for (const mode of modes) {
    if (!(ACCESS_MODES as readonly string[]).includes(mode)) problems.push(notSupported('spec.accessModes', mode, ACCESS_MODES));
  }
  if (modes.includes('ReadWriteOncePod') && modes.some((m) => m !== 'ReadWriteOncePod' && (ACCESS_MODES as readonly string[]).includes(m))) {
    problems.push(forbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes'));
  }
  if (storage === undefined) problems.push(required('spec.resources[storage]'));
  else if ((parseQuantity(storage) ?? 0) <= 0) problems.push(invalidValue('spec.resources[storage]', storage, 'must be greater than zero'));
  if (spec.storageClassName) problems.push(...checkDnsSubdomain('spec.storageClassName', spec.storageClassName));
  if (spec.volumeMode !== undefined && !(VOLUME_MODES as readonly string[]).includes(spec.volumeMode)) {
    problems.push(notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  }
  return problems;
}
