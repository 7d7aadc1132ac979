import { SHAPES, eventShape } from '../../../test/fixtures/kube/event-shapes.js';
import { toCoreEvent, toEventsV1 } from './event-versions.js';
import type { CoreEvent, EventsV1Event } from './objects.js';

test.each([
  ['a scheduler event', SHAPES.failedSchedulingV1, SHAPES.failedScheduling],
  ['a scheduler series', SHAPES.failedSchedulingSeriesV1, SHAPES.failedSchedulingSeries],
])('%s written through events.k8s.io reads through core/v1 as on a real cluster', (_title, written, read) => {
  expect(toCoreEvent(eventShape<EventsV1Event>(written))).toStrictEqual(eventShape(read));
});

test.each([
  ['a scheduler event', SHAPES.failedScheduling, SHAPES.failedSchedulingV1],
  ['a scheduler series', SHAPES.failedSchedulingSeries, SHAPES.failedSchedulingSeriesV1],
  ['a kubelet event (deprecated fields filled, no eventTime)', SHAPES.kubeletRepeated, SHAPES.kubeletRepeatedV1],
])('%s stored as core/v1 reads through events.k8s.io as on a real cluster', (_title, stored, read) => {
  expect(toEventsV1(eventShape<CoreEvent>(stored))).toStrictEqual(eventShape(read));
});

test('the conversions keep the order of the fields Go writes', () => {
  expect(Object.keys(toCoreEvent(eventShape<EventsV1Event>(SHAPES.failedSchedulingSeriesV1)))).toEqual(Object.keys(eventShape(SHAPES.failedSchedulingSeries)));
  expect(Object.keys(toEventsV1(eventShape<CoreEvent>(SHAPES.kubeletRepeated)))).toEqual(Object.keys(eventShape(SHAPES.kubeletRepeatedV1)));
});
