/**
 * Server-side printing: kubectl asks for `as=Table` and prints the cells as they come, so the STATUS
 * of a pod is computed here the way kubectl's printer computes it for a real cluster.
 */
import type { CoreEvent, KubeObject, Pod } from './objects.js';
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
export function podStatusText(pod: Pod): string {
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
  if (pod.metadata.deletionTimestamp) reason = 'Terminating';
  return reason;
}

function podRow(pod: Pod, now: Date): unknown[] {
  const statuses = pod.status?.containerStatuses ?? [];
  const ready = statuses.filter((s) => s.ready).length;
  const restarts = statuses.reduce((sum, s) => sum + s.restartCount, 0);
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

function eventRow(event: CoreEvent, now: Date): unknown[] {
  const first = since(event.firstTimestamp ?? event.eventTime, now);
  const last = event.lastTimestamp ? since(event.lastTimestamp, now) : first;
  const target = event.involvedObject.name
    ? `${event.involvedObject.kind.toLowerCase()}/${event.involvedObject.name}`
    : event.involvedObject.kind.toLowerCase();
  const source = [event.source?.component, event.source?.host].filter(Boolean).join(', ');
  return [
    last,
    event.type,
    event.reason,
    target,
    event.involvedObject.fieldPath ?? '',
    source || event.reportingComponent || '',
    (event.message ?? '').trim(),
    first,
    event.count || 1,
    event.metadata.name,
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
  nodes: {
    columns: [NAME, col('Status'), col('Roles'), AGE, col('Version')],
    row: (o, now) => [o.metadata.name, 'Ready', '<none>', since(o.metadata.creationTimestamp, now), 'v1.33.0-embedded'],
  },
};

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** True when the Accept header asks for the meta.k8s.io Table rendering. */
export function wantsTable(accept: string | undefined): boolean {
  return accept !== undefined && /as=Table/.test(accept);
}

function rowObject(resourceKind: string, object: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return { kind: resourceKind, apiVersion: 'v1', ...object };
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

export function toTable(
  resource: string,
  kind: string,
  objects: KubeObject[],
  options: { now: Date; resourceVersion: string; include?: IncludeObject; withColumns?: boolean },
) {
  const printer = COLUMNS[resource] ?? { columns: [NAME, AGE], row: (o: KubeObject, now: Date) => [o.metadata.name, since(o.metadata.creationTimestamp, now)] };
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: options.resourceVersion },
    columnDefinitions: options.withColumns === false ? null : printer.columns,
    rows: objects.map((o) => ({ cells: printer.row(o, options.now), object: rowObject(kind, o, options.include ?? 'Metadata') })),
  };
}
