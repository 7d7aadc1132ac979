/**
 * Server-side printing: kubectl asks for `as=Table` and prints the cells as they come, so the STATUS
 * of a pod is computed here the way kubectl's printer computes it for a real cluster.
 */
import type { CoreEvent, KubeObject, PersistentVolumeClaim, Pod, StorageClass } from './objects.js';
import { sidecarNames } from './pod-status.js';
import { apiVersionOf, inVersion, storedAs, type ResourceType } from './resources.js';
import { isDefaultClass } from './storage-classes.js';
import { since } from './time-format.js';

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

const col = (name: string, priority = 0, type = 'string', format = ''): Column => ({
  name,
  type,
  format,
  description: name,
  priority,
});

const NAME = { ...col('Name', 0, 'string', 'name'), description: 'Name must be unique within a namespace.' };
const AGE = { ...col('Age'), description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' };

/** kubectl's STATUS column for a pod (printPod in kubectl's printers). */
/** kubectl's Init:… text while an init container has not finished, else undefined. */
function initStatusText(pod: Pod): string | undefined {
  // kubectl looks no further once the pod is initialized (a stopped sidecar is not Init:Error).
  if (pod.status?.conditions?.some((c) => c.type === 'Initialized' && c.status === 'True')) return undefined;
  const statuses = pod.status?.initContainerStatuses ?? [];
  const sidecars = new Set(sidecarNames(pod));
  for (const [i, status] of statuses.entries()) {
    const { waiting, terminated } = status.state;
    if (terminated?.exitCode === 0) continue;
    if (sidecars.has(status.name) && status.started) continue;
    if (terminated) {
      if (terminated.reason) return `Init:${terminated.reason}`;
      return terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode}`;
    }
    if (waiting?.reason && waiting.reason !== 'PodInitializing') return `Init:${waiting.reason}`;
    return `Init:${i}/${pod.spec.initContainers?.length ?? statuses.length}`;
  }
  return undefined;
}

export function podStatusText(pod: Pod): string {
  if (pod.metadata.deletionTimestamp) return 'Terminating';
  const init = initStatusText(pod);
  if (init !== undefined) return init;
  let reason: string = pod.status?.reason || pod.status?.phase || 'Pending';
  let hasRunning = false;
  const statuses = [...(pod.status?.containerStatuses ?? [])].reverse();
  for (const status of statuses) {
    const { waiting, terminated, running } = status.state;
    if (waiting?.reason) reason = waiting.reason;
    else if (terminated?.reason) reason = terminated.reason;
    else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`;
    else if (running && status.ready) hasRunning = true;
  }
  if (reason === 'Completed' && hasRunning) reason = 'Running';
  return reason;
}

function podRow(pod: Pod, now: Date): unknown[] {
  const statuses = pod.status?.containerStatuses ?? [];
  const ready = statuses.filter((s) => s.ready).length;
  const restarts = [...(pod.status?.initContainerStatuses ?? []), ...statuses].reduce((sum, s) => sum + s.restartCount, 0);
  return [
    pod.metadata.name,
    `${ready}/${pod.spec.containers.length}`,
    podStatusText(pod),
    restarts,
    since(pod.metadata.creationTimestamp, now),
    pod.status?.podIP ?? '<none>',
    pod.spec.nodeName ?? '<none>',
    '<none>',
    '<none>',
  ];
}

/** printEvent: an events.k8s.io event (no first/last timestamp, no count) by its eventTime and series. */
function eventRow(event: CoreEvent, now: Date): unknown[] {
  const first = since(event.firstTimestamp || event.eventTime, now);
  let last = event.lastTimestamp ? since(event.lastTimestamp, now) : first;
  let count = event.count || 1;
  if (event.series) {
    last = since(event.series.lastObservedTime, now);
    count = event.series.count;
  }
  const target = event.involvedObject.name
    ? `${event.involvedObject.kind.toLowerCase()}/${event.involvedObject.name}`
    : event.involvedObject.kind.toLowerCase();
  // formatEventSource: the legacy source, else the reporting controller and instance.
  const component = event.source?.component || event.reportingComponent || '';
  const instance = event.source?.host || event.reportingInstance || '';
  return [
    last,
    event.type,
    event.reason,
    target,
    event.involvedObject.fieldPath ?? '',
    instance ? `${component}, ${instance}` : component,
    (event.message ?? '').trim(),
    first,
    count,
    event.metadata.name,
  ];
}

const ACCESS_MODE_ABBREVIATIONS: Record<string, string> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};

/** printPersistentVolumeClaim: capacity and access modes only once bound, from the status. */
function claimRow(claim: PersistentVolumeClaim, now: Date): unknown[] {
  const bound = Boolean(claim.spec.volumeName);
  const modes = (claim.status?.accessModes ?? []).map((m) => ACCESS_MODE_ABBREVIATIONS[m] ?? m);
  return [
    claim.metadata.name,
    claim.metadata.deletionTimestamp ? 'Terminating' : (claim.status?.phase ?? ''),
    claim.spec.volumeName ?? '',
    bound ? (claim.status?.capacity?.storage ?? '') : '',
    bound ? modes.join(',') : '',
    claim.spec.storageClassName ?? '',
    (claim.spec.volumeAttributesClassName as string | undefined) || '<unset>',
    since(claim.metadata.creationTimestamp, now),
    claim.spec.volumeMode ?? '<unset>',
  ];
}

/** printStorageClass: the default class is marked in its name. */
function storageClassRow(storageClass: StorageClass, now: Date): unknown[] {
  return [
    isDefaultClass(storageClass) ? `${storageClass.metadata.name} (default)` : storageClass.metadata.name,
    storageClass.provisioner,
    storageClass.reclaimPolicy ?? 'Delete',
    storageClass.volumeBindingMode ?? 'Immediate',
    storageClass.allowVolumeExpansion ?? false,
    since(storageClass.metadata.creationTimestamp, now),
  ];
}

const COLUMNS: Record<string, { columns: Column[]; row: (o: KubeObject, now: Date) => unknown[] }> = {
  pods: {
    columns: [
      NAME,
      col('Ready'),
      col('Status'),
      col('Restarts', 0, 'string'),
      AGE,
      col('IP', 1),
      col('Node', 1),
      col('Nominated Node', 1),
      col('Readiness Gates', 1),
    ],
    row: (o, now) => podRow(o as Pod, now),
  },
  events: {
    columns: [
      col('Last Seen'),
      col('Type'),
      col('Reason'),
      col('Object'),
      col('Subobject', 1),
      col('Source', 1),
      col('Message'),
      col('First Seen', 1),
      col('Count', 1, 'integer'),
      col('Name', 1),
    ],
    row: (o, now) => eventRow(o as CoreEvent, now),
  },
  namespaces: {
    columns: [NAME, col('Status'), AGE],
    row: (o, now) => [o.metadata.name, (o.status as { phase?: string } | undefined)?.phase ?? 'Active', since(o.metadata.creationTimestamp, now)],
  },
  secrets: {
    columns: [NAME, col('Type'), col('Data', 0, 'string'), AGE],
    row: (o, now) => [o.metadata.name, o.type ?? 'Opaque', Object.keys((o.data as object | undefined) ?? {}).length, since(o.metadata.creationTimestamp, now)],
  },
  // kubernetes/kubernetes pkg/printers/internalversion/printers.go, serviceAccountColumnDefinitions.
  serviceaccounts: {
    columns: [NAME, col('Secrets', 0, 'integer'), AGE],
    row: (o, now) => [o.metadata.name, ((o as { secrets?: unknown[] }).secrets ?? []).length, since(o.metadata.creationTimestamp, now)],
  },
  persistentvolumeclaims: {
    columns: [
      NAME,
      col('Status'),
      col('Volume'),
      col('Capacity'),
      col('Access Modes'),
      col('StorageClass'),
      col('VolumeAttributesClass'),
      AGE,
      col('VolumeMode', 1),
    ],
    row: (o, now) => claimRow(o as PersistentVolumeClaim, now),
  },
  storageclasses: {
    columns: [NAME, col('Provisioner'), col('ReclaimPolicy'), col('VolumeBindingMode'), col('AllowVolumeExpansion'), AGE],
    row: (o, now) => storageClassRow(o as StorageClass, now),
  },
  nodes: {
    columns: [NAME, col('Status'), col('Roles'), AGE, col('Version')],
    // As the printer words a cordoned node: its Ready condition, then SchedulingDisabled.
    row: (o, now) => [
      o.metadata.name,
      (o.spec as { unschedulable?: boolean } | undefined)?.unschedulable ? 'Ready,SchedulingDisabled' : 'Ready',
      '<none>',
      since(o.metadata.creationTimestamp, now),
      'v1.33.0-embedded',
    ],
  },
};

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** True when the Accept header asks for the meta.k8s.io Table rendering. */
export function wantsTable(accept: string | undefined): boolean {
  return accept !== undefined && /as=Table/.test(accept);
}

function rowObject(resource: ResourceType, object: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return { kind: resource.kind, apiVersion: apiVersionOf(resource), ...inVersion(resource, object) };
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

export function toTable(
  resource: ResourceType,
  objects: KubeObject[],
  options: { now: Date; resourceVersion: string; include?: IncludeObject; withColumns?: boolean },
) {
  // A version of a stored resource prints as the stored one (the apiserver prints the internal object).
  const printer = COLUMNS[storedAs(resource)] ?? { columns: [NAME, AGE], row: (o: KubeObject, now: Date) => [o.metadata.name, since(o.metadata.creationTimestamp, now)] };
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: options.resourceVersion },
    columnDefinitions: options.withColumns === false ? null : printer.columns,
    rows: objects.map((o) => ({ cells: printer.row(o, options.now), object: rowObject(resource, o, options.include ?? 'Metadata') })),
  };
}
