/**
 * What the events.k8s.io recorder (client-go tools/events, event_broadcaster.go; the scheduler's)
 * does with an event before writing it. Isomorphic events (same type, action, reason, reporting
 * controller and instance, regarding and related object, whatever the note) are one series:
 *
 * - the first is created as it is (an eventTime, no series);
 * - the second turns it into a series and is patched at once: `series: {count: 2, lastObservedTime}`;
 * - later ones only count in memory: the API sees the count when the series is refreshed (every
 *   30 minutes) or finished (6 minutes after its last event, written a last time and forgotten,
 *   so the next such event starts a new Event). A singleton is forgotten 6 minutes after it happened.
 *
 * The note stays the first one's. Pure: the recorder writes what this returns, on its timers.
 */
import { formatMicroTime, type EventsV1Event, type ObjectReference } from './objects.js';

export const SERIES_REFRESH_MS = 30 * 60_000;
export const SERIES_FINISH_MS = 6 * 60_000;

/** The event to write; `patch`: set the series of the Event of that name (created if it is gone), else create it. */
export interface SeriesWrite {
  event: EventsV1Event;
  patch: boolean;
}

function reference(ref: ObjectReference | undefined): unknown[] {
  return ref === undefined ? [] : [ref.kind, ref.namespace, ref.name, ref.uid, ref.apiVersion, ref.resourceVersion, ref.fieldPath];
}

/** getKey: the regarding object's resourceVersion counts, so a pod changed in between starts another series. */
function isomorphicKey(e: EventsV1Event): string {
  return JSON.stringify([e.type, e.action, e.reason, e.reportingController, e.reportingInstance, reference(e.regarding), reference(e.related)]);
}

const timeOf = (text: string | null | undefined) => (text ? Date.parse(text) : NaN);

export class EventSeriesCache {
  private readonly events = new Map<string, EventsV1Event>();

  observe(event: EventsV1Event, now: Date): SeriesWrite | undefined {
    const key = isomorphicKey(event);
    const known = this.events.get(key);
    if (known === undefined) {
      this.events.set(key, event);
      return { event, patch: false };
    }
    const lastObservedTime = formatMicroTime(now);
    const counted: EventsV1Event = { ...known, series: { count: (known.series?.count ?? 1) + 1, lastObservedTime } };
    this.events.set(key, counted);
    return known.series === undefined ? { event: counted, patch: true } : undefined;
  }

  /** refreshExistingEventSeries: every series, with its count so far. */
  refresh(): SeriesWrite[] {
    return [...this.events.values()].filter((e) => e.series !== undefined).map((event) => ({ event, patch: true }));
  }

  /** finishSeries: series quiet for SERIES_FINISH_MS written a last time; they and old singletons forgotten. */
  finish(now: Date): SeriesWrite[] {
    const before = now.getTime() - SERIES_FINISH_MS;
    const writes: SeriesWrite[] = [];
    for (const [key, event] of this.events) {
      const last = event.series ? timeOf(event.series.lastObservedTime) : timeOf(event.eventTime);
      if (!(last < before)) continue;
      if (event.series) writes.push({ event, patch: true });
      this.events.delete(key);
    }
    return writes;
  }
}
