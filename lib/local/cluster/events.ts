/**
 * Records events about pods and claims the way kubelet, scheduler and volume controllers do,
 * including the client-side aggregation of a real event recorder: the same reason, message and
 * object bump `count` and `lastTimestamp` on one Event instead of creating another.
 */
import type { Clock } from './clock.js';
import { formatTime, type CoreEvent, type KubeObject, type Pod } from './objects.js';
import type { ObjectStore } from './store.js';

export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** Container the event is about, e.g. "step" -> fieldPath spec.containers{step} (spec.initContainers{…} for an init container). */
  container?: string;
  /** Who reports it: kubelet by default, or default-scheduler, persistentvolume-controller, a provisioner. */
  component?: string;
}

/** As the kubelet names a container in events: init containers under their own list. */
function containerFieldPath(object: KubeObject, container: string): string {
  const inits = ((object as Partial<Pod>).spec?.initContainers ?? []).map((c) => c.name);
  return `spec.${inits.includes(container) ? 'initContainers' : 'containers'}{${container}}`;
}

export class EventRecorder {
  private readonly aggregated = new Map<string, string>();
  private lastNanos = 0n;

  constructor(
    private readonly store: ObjectStore,
    private readonly nodeName: string,
    private readonly now: Clock,
  ) {}

  /** `object` as stored, so its kind and apiVersion say what the event is about. */
  record(object: KubeObject, spec: EventSpec): void {
    const namespace = object.metadata.namespace ?? 'default';
    const objectName = object.metadata.name ?? '';
    const component = spec.component ?? 'kubelet';
    const fieldPath = spec.container === undefined ? undefined : containerFieldPath(object, spec.container);
    const key = JSON.stringify([object.metadata.uid, fieldPath, spec.type, spec.reason, spec.message, component]);
    const timestamp = formatTime(this.now());

    const existing = this.aggregated.get(key);
    if (existing !== undefined) {
      const updated = this.store.update('events', namespace, existing, (draft) => {
        const event = draft as CoreEvent;
        event.count = (event.count || 1) + 1;
        event.lastTimestamp = timestamp;
      });
      if (updated !== undefined) return;
    }

    const name = `${objectName}.${this.nextHex()}`;
    const event: CoreEvent = {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name, namespace },
      involvedObject: {
        kind: object.kind ?? 'Pod',
        namespace,
        name: objectName,
        uid: object.metadata.uid,
        apiVersion: object.apiVersion ?? 'v1',
        resourceVersion: object.metadata.resourceVersion,
        ...(fieldPath ? { fieldPath } : {}),
      },
      reason: spec.reason,
      message: spec.message,
      source: component === 'kubelet' ? { component, host: this.nodeName } : { component },
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      type: spec.type,
      eventTime: null,
      reportingComponent: component,
      reportingInstance: component === 'kubelet' ? this.nodeName : '',
    };
    this.store.create('events', event);
    this.aggregated.set(key, name);
  }

  /** Real event names end in the hex of a nanosecond clock; strictly increasing keeps them in order. */
  private nextHex(): string {
    let nanos = BigInt(this.now().getTime()) * 1_000_000n;
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    return nanos.toString(16);
  }
}
