/**
 * What the legacy event recorder (client-go tools/record, the kubelet's and the volume
 * controllers') does with an event before writing it (events_cache.go, EventCorrelator):
 *
 * - the same source, object, type, reason and message as an event already written: that one
 *   Event is patched, `count` + 1 and `lastTimestamp` now, first timestamp and name kept;
 * - the 10th different message within 10 minutes from the same source about the same object with
 *   the same type and reason (the container does not count): from then on they go to one Event
 *   whose message is `(combined from similar events): ` and the latest message, counted the same
 *   way (the first nine stay as they were).
 *
 * The spam filter that drops an object's events past a burst of 25 (one more per 5 minutes) is
 * left out. Pure: the recorder writes what this returns.
 */
import { formatTime, type CoreEvent } from './objects.js';

export const COMBINED_PREFIX = '(combined from similar events): ';

export interface CorrelatorLimits {
  /** Different messages within `intervalMs` before they are combined (defaultAggregateMaxEvents). */
  maxEvents: number;
  /** How long since the last similar event a group lasts (defaultAggregateIntervalInSeconds). */
  intervalMs: number;
  /** Entries each cache keeps, the least recently used going first (maxLruCacheEntries). */
  cacheSize: number;
}

export const RECORDER_LIMITS: CorrelatorLimits = { maxEvents: 10, intervalMs: 600_000, cacheSize: 4096 };

/** The event to write; `update`: patch the Event of that name (count, lastTimestamp, message), else create it. */
export interface Correlation {
  event: CoreEvent;
  update: boolean;
}

interface Similar {
  messages: Set<string>;
  lastSeen: number;
}

interface Observed {
  count: number;
  firstTimestamp: string | null;
  name: string;
}

/** getEventKey: what makes two events the same one. */
function eventKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return JSON.stringify([e.source.component, e.source.host, o.kind, o.namespace, o.name, o.fieldPath, o.uid, o.apiVersion, e.type, e.reason, e.message]);
}

/** EventAggregatorByReasonFunc: what makes events similar (no fieldPath, no message). */
function similarKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return JSON.stringify([e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type, e.reason, e.reportingComponent, e.reportingInstance]);
}

/** A Map used as an LRU cache, as the recorder's groupcache/lru. */
class Lru<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
  }
}

export class EventCorrelator {
  private readonly similar: Lru<Similar>;
  private readonly observed: Lru<Observed>;

  constructor(private readonly limits: CorrelatorLimits = RECORDER_LIMITS) {
    this.similar = new Lru(limits.cacheSize);
    this.observed = new Lru(limits.cacheSize);
  }

  /** `event` as a recorder makes it: count 1, both timestamps now, a fresh name. */
  correlate(event: CoreEvent, now: Date): Correlation {
    const { event: toWrite, key } = this.aggregate(event, now);
    return this.observe(toWrite, key);
  }

  private aggregate(event: CoreEvent, now: Date): { event: CoreEvent; key: string } {
    const groupKey = similarKey(event);
    let group = this.similar.get(groupKey);
    if (group === undefined || now.getTime() - group.lastSeen > this.limits.intervalMs) group = { messages: new Set(), lastSeen: 0 };
    group.messages.add(event.message);
    group.lastSeen = now.getTime();
    this.similar.set(groupKey, group);
    if (group.messages.size < this.limits.maxEvents) return { event, key: eventKey(event) };

    // Go drops an arbitrary member to stay under the limit; the oldest here, so a run repeats.
    group.messages.delete(group.messages.values().next().value as string);
    const stamp = formatTime(now);
    // A new Event, not a copy: no eventTime, and no reportingComponent or reportingInstance.
    const combined: CoreEvent = {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: event.metadata.name, namespace: event.metadata.namespace },
      involvedObject: event.involvedObject,
      reason: event.reason,
      message: COMBINED_PREFIX + event.message,
      source: event.source,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
      type: event.type,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    };
    return { event: combined, key: groupKey };
  }

  /** eventObserve: a key seen before updates that Event, counting on from what was written. */
  private observe(event: CoreEvent, key: string): Correlation {
    const last = this.observed.get(key);
    const written: CoreEvent = last
      ? { ...event, metadata: { ...event.metadata, name: last.name }, firstTimestamp: last.firstTimestamp, count: last.count + 1 }
      : event;
    this.observed.set(key, { count: written.count ?? 1, firstTimestamp: written.firstTimestamp, name: written.metadata.name ?? '' });
    return { event: written, update: last !== undefined };
  }
}
