/** The scenarios of client-go's tools/record events_cache_test.go (TestEventCorrelator), spam filter aside. */
import { COMBINED_PREFIX, EventCorrelator, RECORDER_LIMITS } from './event-correlator.js';
import { formatTime, type CoreEvent } from './objects.js';

const T0 = Date.parse('2025-03-04T10:00:00Z');
let serial = 0;

/** As a recorder makes it; play() gives it its name and times. */
function event(reason: string, message: string, fieldPath?: string): CoreEvent {
  return {
    kind: 'Event',
    apiVersion: 'v1',
    metadata: { namespace: 'ci' },
    firstTimestamp: null,
    lastTimestamp: null,
    involvedObject: { kind: 'Pod', namespace: 'ci', name: 'my-pod', uid: 'uid-1', apiVersion: 'v1', ...(fieldPath ? { fieldPath } : {}) },
    reason,
    message,
    source: { component: 'kubelet', host: 'node-1' },
    count: 1,
    type: 'Warning',
    eventTime: null,
    reportingComponent: 'kubelet',
    reportingInstance: 'node-1',
  };
}

/** Feeds the events `intervalSeconds` apart, as the recorder makes them; returns what each one wrote. */
function play(events: CoreEvent[], intervalSeconds: number) {
  const correlator = new EventCorrelator();
  return events.map((e, i) => {
    const now = new Date(T0 + i * intervalSeconds * 1000);
    serial += 1;
    const made: CoreEvent = { ...e, metadata: { name: `my-pod.${serial.toString(16)}`, namespace: 'ci' }, firstTimestamp: formatTime(now), lastTimestamp: formatTime(now) };
    return correlator.correlate(made, now);
  });
}

const times = <T>(n: number, make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i));
const similar = (i: number) => event('Failed', `similar message ${i}`, 'spec.containers{container1}');

test('a single event is created with count 1', () => {
  const [written] = play([event('Started', 'i am first')], 5);
  expect(written).toMatchObject({ update: false, event: { count: 1, message: 'i am first' } });
});

test('the same event just counts: one Event, count growing, lastTimestamp moving, first timestamp and name kept', () => {
  const writes = play(times(RECORDER_LIMITS.maxEvents + 1, () => event('BackOff', 'me again')), 30);
  const [first, last] = [writes[0]!, writes.at(-1)!];
  expect(last).toMatchObject({ update: true, event: { count: RECORDER_LIMITS.maxEvents + 1, message: 'me again' } });
  expect(last.event.metadata.name).toBe(first.event.metadata.name);
  expect(last.event.firstTimestamp).toBe(first.event.firstTimestamp);
  expect(Date.parse(last.event.lastTimestamp!)).toBeGreaterThan(Date.parse(first.event.lastTimestamp!));
});

test('many different reasons are all their own events', () => {
  const writes = play(times(30, (i) => event(`Reason${i}`, 'snowflake')), 5);
  expect(writes.every((w) => !w.update && w.event.count === 1)).toBe(true);
});

test('the tenth similar event (same reason, other message) within 10 minutes is combined, and the next counts on it', () => {
  const writes = play(times(RECORDER_LIMITS.maxEvents + 1, similar), 5);
  expect(writes.slice(0, 9).map((w) => [w.update, w.event.message])).toEqual(times(9, (i) => [false, `similar message ${i}`]));
  const [tenth, eleventh] = [writes[9]!, writes[10]!];
  expect(tenth).toMatchObject({ update: false, event: { count: 1, message: `${COMBINED_PREFIX}similar message 9`, reportingComponent: '', reportingInstance: '', eventTime: null } });
  expect(tenth.event.involvedObject.fieldPath).toBe('spec.containers{container1}');
  expect(eleventh).toMatchObject({ update: true, event: { count: 2, message: `${COMBINED_PREFIX}similar message 10`, firstTimestamp: tenth.event.firstTimestamp } });
  expect(eleventh.event.metadata.name).toBe(tenth.event.metadata.name);
});

test('similar events of different containers count together (the container is not part of similar)', () => {
  const writes = play(times(RECORDER_LIMITS.maxEvents, (i) => event('Failed', `message ${i}`, `spec.containers{c${i % 3}}`)), 5);
  expect(writes.at(-1)?.event.message).toBe(`${COMBINED_PREFIX}message 9`);
});

test('the same message about different containers is two events', () => {
  const writes = play([event('Failed', 'similar message', 'spec.containers{container2}'), event('Failed', 'similar message', 'spec.containers{container1}')], 5);
  expect(writes.map((w) => [w.update, w.event.count])).toEqual([[false, 1], [false, 1]]);
});

test('similar events further apart than 10 minutes are never combined', () => {
  const writes = play(times(RECORDER_LIMITS.maxEvents + 2, similar), 601);
  expect(writes.some((w) => w.event.message.startsWith(COMBINED_PREFIX))).toBe(false);
});
