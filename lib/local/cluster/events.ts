/**
 * Records events about pods the way kubelet and scheduler do, including the client-side aggregation
 * of a real event recorder: the same reason, message and object bump `count` and `lastTimestamp`
 * on one Event instead of creating another.
 */
import type { Clock } from './clock.js';
import { formatTime, type CoreEvent, type Pod } from './objects.js';
import type { ObjectStore } from './store.js';

export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** Container the event is about, e.g. "step" -> fieldPath spec.containers{step}. */
  container?: string;
  component?: 'kubelet' | 'default-scheduler';
}

export class EventRecorder {
  private readonly aggregated = new Map<string, string>();
  private lastNanos = 0n;

  constructor(
    private readonly store: ObjectStore,
    private readonly nodeName: string,
    private readonly now: Clock,
  ) {}

  record(pod: Pod, spec: EventSpec): void {
    const namespace = pod.metadata.namespace ?? 'default';
    const podName = pod.metadata.name ?? '';
    const component = spec.component ?? 'kubelet';
    const fieldPath = spec.container === undefined ? undefined : `spec.containers{${spec.container}}`;
    const key = JSON.stringify([pod.metadata.uid, fieldPath, spec.type, spec.reason, spec.message, component]);
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

    const name = `${podName}.${this.nextHex()}`;
    const event: CoreEvent = {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name, namespace },
      involvedObject: {
        kind: 'Pod',
        namespace,
        name: podName,
        uid: pod.metadata.uid,
        apiVersion: 'v1',
        resourceVersion: pod.metadata.resourceVersion,
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
