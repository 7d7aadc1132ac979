/** As client-go's tools/events eventseries_test.go (TestEventSeriesf, TestFinishSeries, TestRefreshExistingEventSeries). */
import { SHAPES, eventShape } from '../../../test/fixtures/kube/event-shapes.js';
import { EventSeriesCache, SERIES_FINISH_MS } from './event-series.js';
import type { EventsV1Event } from './objects.js';

const T0 = Date.parse('2025-03-04T10:15:02Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const failedScheduling = (note = 'first words') => ({ ...eventShape<EventsV1Event>(SHAPES.failedSchedulingV1), note });

test('the first event is created, the second patches a series of 2 in, later ones only count', () => {
  const cache = new EventSeriesCache();
  expect(cache.observe(failedScheduling(), at(0))).toEqual({ event: failedScheduling(), patch: false });
  const second = cache.observe(failedScheduling('other words'), at(5));
  expect(second).toEqual({ event: { ...failedScheduling(), series: { count: 2, lastObservedTime: '2025-03-04T10:15:07.000000Z' } }, patch: true });
  expect(cache.observe(failedScheduling(), at(20))).toBeUndefined();
  // The note stays the first one's: the note is not part of what makes events one series.
  expect(cache.refresh()).toEqual([{ event: { ...failedScheduling(), series: { count: 3, lastObservedTime: '2025-03-04T10:15:22.000000Z' } }, patch: true }]);
});

test('another resourceVersion of the pod, another reason or another reporter is another Event', () => {
  const cache = new EventSeriesCache();
  const base = failedScheduling();
  cache.observe(base, at(0));
  const changedPod = { ...base, regarding: { ...base.regarding, resourceVersion: '4418205' } };
  expect(cache.observe(changedPod, at(1))?.patch).toBe(false);
  expect(cache.observe({ ...base, reason: 'Scheduled', action: 'Binding' }, at(2))?.patch).toBe(false);
  expect(cache.observe({ ...base, reportingInstance: 'default-scheduler-other-host' }, at(3))?.patch).toBe(false);
});

test('a series quiet for 6 minutes is written a last time and forgotten; the next such event is a new Event', () => {
  const cache = new EventSeriesCache();
  cache.observe(failedScheduling(), at(0));
  cache.observe(failedScheduling(), at(10));
  cache.observe(failedScheduling(), at(20));
  expect(cache.finish(new Date(T0 + 20_000 + SERIES_FINISH_MS - 1000))).toEqual([]);
  expect(cache.finish(new Date(T0 + 20_000 + SERIES_FINISH_MS + 1000)).map((w) => w.event.series)).toEqual([{ count: 3, lastObservedTime: '2025-03-04T10:15:22.000000Z' }]);
  expect(cache.observe(failedScheduling(), at(900))?.patch).toBe(false);
});

test('a singleton is forgotten 6 minutes after it happened, without a write', () => {
  const cache = new EventSeriesCache();
  cache.observe(failedScheduling(), at(0));
  expect(cache.finish(new Date(T0 + SERIES_FINISH_MS + 1000))).toEqual([]);
  expect(cache.observe(failedScheduling(), at(400))?.patch).toBe(false);
});
