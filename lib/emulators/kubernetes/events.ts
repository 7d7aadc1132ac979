/**
 * Records events about pods and claims the way their reporters do on a real cluster. The kubelet
 * and the volume controllers use the legacy recorder (core/v1 Events: source, first and last
 * timestamp, count; repeats and similar events correlated as event-correlator.ts says); the
 * scheduler uses the events.k8s.io one (eventTime, series, action, reporting controller and
 * instance; series as event-series.ts says), stored as the apiserver stores it, converted to
 * core/v1 (event-versions.ts).
 */
import type { Clock } from './clock.js';
import { EventCorrelator } from './event-correlator.js';
import { EventSeriesCache, SERIES_FINISH_MS, SERIES_REFRESH_MS, type SeriesWrite } from './event-series.js';
import { EVENTS_GROUP, toCoreEvent } from './event-versions.js';
import { formatMicroTime, formatTime, type CoreEvent, type EventsV1Event, type KubeObject, type ObjectReference, type Pod } from './objects.js';
import type { ObjectStore } from './store.js';

export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** Container the event is about, e.g. "step" -> fieldPath spec.containers{step} (spec.initContainers{…} for an init container). */
  container?: string;
  /** Who reports it: kubelet by default, or default-scheduler, persistentvolume-controller, a provisioner. */
  component?: string;
  /** What was being done (events.k8s.io reporters only): the scheduler's `Scheduling` or `Binding`. */
  action?: string;
}

export const SCHEDULER = 'default-scheduler';

/** Reporters on client-go's events.k8s.io recorder; everything else records core/v1 Events. */
const EVENTS_API_REPORTERS: ReadonlySet<string> = new Set([SCHEDULER]);

/**
 * The host the control plane runs on, for the events.k8s.io recorder's reportingInstance
 * (`<controller>-<hostname>`; on EKS a control-plane instance's name).
 */
export const CONTROL_PLANE_HOST = 'embedded-control-plane';

/** As the kubelet names a container in events: init containers under their own list. */
function containerFieldPath(object: KubeObject, container: string): string {
  const inits = ((object as Partial<Pod>).spec?.initContainers ?? []).map((c) => c.name);
  return `spec.${inits.includes(container) ? 'initContainers' : 'containers'}{${container}}`;
}

/** reference.GetReference: the object as it was when the event was recorded. */
function referenceTo(object: KubeObject, container: string | undefined): ObjectReference & { kind: string; name: string } {
  return {
    kind: object.kind ?? 'Pod',
    namespace: object.metadata.namespace ?? 'default',
    name: object.metadata.name ?? '',
    uid: object.metadata.uid,
    apiVersion: object.apiVersion ?? 'v1',
    resourceVersion: object.metadata.resourceVersion,
    ...(container === undefined ? {} : { fieldPath: containerFieldPath(object, container) }),
  };
}

export class EventRecorder {
  private readonly correlator = new EventCorrelator();
  private readonly series = new EventSeriesCache();
  private readonly timers: NodeJS.Timeout[];
  private lastNanos = 0n;

  constructor(
    private readonly store: ObjectStore,
    private readonly nodeName: string,
    private readonly now: Clock,
  ) {
    // Real time, as the recorder's tickers; unref'd so that a forgotten stop() holds no process.
    this.timers = [
      setInterval(() => this.series.refresh().forEach((w) => this.writeSeries(w)), SERIES_REFRESH_MS).unref(),
      setInterval(() => this.series.finish(this.now()).forEach((w) => this.writeSeries(w)), SERIES_FINISH_MS).unref(),
    ];
  }

  /** `object` as stored, so its kind and apiVersion say what the event is about. */
  record(object: KubeObject, spec: EventSpec): void {
    const component = spec.component ?? 'kubelet';
    if (EVENTS_API_REPORTERS.has(component)) this.recordSeries(object, spec, component);
    else this.recordLegacy(object, spec, component);
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
  }

  private recordLegacy(object: KubeObject, spec: EventSpec, component: string): void {
    const now = this.now();
    const timestamp = formatTime(now);
    const involvedObject = referenceTo(object, spec.container);
    const host = component === 'kubelet' ? this.nodeName : undefined;
    const made: CoreEvent = {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: `${involvedObject.name}.${this.nextHex()}`, namespace: involvedObject.namespace },
      involvedObject,
      reason: spec.reason,
      message: spec.message,
      source: host ? { component, host } : { component },
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      type: spec.type,
      eventTime: null,
      reportingComponent: component,
      reportingInstance: host ?? '',
    };
    const { event, update } = this.correlator.correlate(made, now);
    const namespace = event.metadata.namespace;
    const name = event.metadata.name ?? '';
    if (update) {
      const patched = this.store.update('events', namespace, name, (draft) => {
        Object.assign(draft, { count: event.count, lastTimestamp: event.lastTimestamp, message: event.message });
      });
      if (patched !== undefined) return;
    }
    this.createOnce(event);
  }

  private recordSeries(object: KubeObject, spec: EventSpec, component: string): void {
    const now = this.now();
    const regarding = referenceTo(object, spec.container);
    const event: EventsV1Event = {
      kind: 'Event',
      apiVersion: `${EVENTS_GROUP}/v1`,
      metadata: { name: `${regarding.name}.${this.nextHex()}`, namespace: regarding.namespace },
      eventTime: formatMicroTime(now),
      reportingController: component,
      reportingInstance: `${component}-${CONTROL_PLANE_HOST}`,
      ...(spec.action ? { action: spec.action } : {}),
      reason: spec.reason,
      regarding,
      note: spec.message,
      type: spec.type,
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    };
    const write = this.series.observe(event, now);
    if (write) this.writeSeries(write);
  }

  /** recordEvent: a series is a patch of `series` alone, or a create if its Event is gone. */
  private writeSeries({ event, patch }: SeriesWrite): void {
    const stored = toCoreEvent(event);
    if (patch) {
      const patched = this.store.update('events', stored.metadata.namespace, stored.metadata.name ?? '', (draft) => {
        draft.series = stored.series;
      });
      if (patched !== undefined) return;
    }
    this.createOnce(stored);
  }

  /** An Event whose name is taken already (two events in one nanosecond) is given up, as AlreadyExists is. */
  private createOnce(event: CoreEvent): void {
    if (this.store.get('events', event.metadata.namespace, event.metadata.name ?? '') !== undefined) return;
    this.store.create('events', event);
  }

  /** Real event names end in the hex of a nanosecond clock; strictly increasing keeps them in order. */
  private nextHex(): string {
    let nanos = BigInt(this.now().getTime()) * 1_000_000n;
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    return nanos.toString(16);
  }
}
