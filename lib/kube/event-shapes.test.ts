/**
 * The same story told by Events in the shapes a real cluster writes (event-shapes.json: the
 * scheduler's through events.k8s.io, read through core/v1 with null timestamps, no count, an
 * eventTime and a series; the kubelet's combined from similar events) and in the legacy shape
 * (first/lastTimestamp, count, the plain message) must be judged the same.
 */
import { describe, expect, it } from '@jest/globals';
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { SHAPES, eventShape, shapeOf } from '../../test/fixtures/kube/event-shapes.js';
import { condition, observe, podEvent, stepPod, waiting, type EventOptions } from '../../test/fixtures/kube/builders.js';
import { classifyStep } from './classify.js';
import { COMBINED_EVENTS_PREFIX, eventCount, eventFirstSeen, eventLastSeen } from './classify-events.js';
import type { ClassifyOptions, Observation, StepIdentity } from './types.js';

const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('the builders make the recorded shapes', () => {
  const pod = stepPod({ step: 'api', startedAt: null, conditions: [] });
  const scheduling = { reason: 'FailedScheduling', type: 'Warning', container: null, message: 'x' } as const;
  it.each([
    ['a scheduler event', podEvent(pod, { ...scheduling, first: 1 }), SHAPES.failedScheduling],
    ['a scheduler series', podEvent(pod, { ...scheduling, first: 1, last: 9, count: 2 }), SHAPES.failedSchedulingSeries],
    ['a kubelet event', podEvent(pod, { reason: 'Failed', type: 'Warning', message: 'x', first: 1, last: 9, count: 4 }), SHAPES.kubeletRepeated],
  ])('%s', (_title, built, recorded) => {
    // metadata is the server's; eventTime: null is on the wire for kubelet events, absent in the builder's.
    const { eventTime: _eventTime, ...withoutEventTime } = eventShape(recorded);
    expect(shapeOf(asJson(built))).toEqual(shapeOf(recorded === SHAPES.kubeletRepeated ? withoutEventTime : eventShape(recorded)));
  });
});

describe('when and how often, whatever the shape', () => {
  it.each([
    ['scheduler singleton', SHAPES.failedScheduling, '2025-03-04T10:15:02.412Z', '2025-03-04T10:15:02.412Z', 1],
    ['scheduler series', SHAPES.failedSchedulingSeries, '2025-03-04T10:15:03.508Z', '2025-03-04T10:20:07.118Z', 2],
    ['kubelet, counted', SHAPES.kubeletRepeated, '2025-03-04T10:23:43.000Z', '2025-03-04T10:26:31.000Z', 4],
  ])('%s', (_title, name, first, last, count) => {
    const event = eventShape<CoreV1Event>(name);
    expect([eventFirstSeen(event), eventLastSeen(event), eventCount(event)]).toEqual([Date.parse(first), Date.parse(last), count]);
  });
});

/** The legacy twin of an event: the same times, count and words in first/lastTimestamp, count and message. */
function legacy(event: CoreV1Event): CoreV1Event {
  const { eventTime: _eventTime, series: _series, action: _action, ...rest } = event;
  const first = eventFirstSeen(event)!;
  return {
    ...rest,
    source: { component: event.reportingComponent || event.source?.component },
    firstTimestamp: new Date(first),
    lastTimestamp: new Date(eventLastSeen(event)!),
    count: eventCount(event),
    message: event.message?.replace(COMBINED_EVENTS_PREFIX, ''),
  };
}

interface Story {
  name: string;
  identity: StepIdentity;
  pod: V1Pod;
  events: (pod: V1Pod) => CoreV1Event[];
  seconds: number;
  options?: Partial<ClassifyOptions>;
  /** What the user must see, so the two shapes cannot agree on something wrong. */
  expected: { phase: string; error?: string; reason?: string; words: string[] };
}

const scheduling = (o: Omit<EventOptions, 'reason' | 'type' | 'container'>): EventOptions => ({ reason: 'FailedScheduling', type: 'Warning', container: null, ...o });
const selectorWords = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
const unboundImmediate = '0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
const ws: StepIdentity = { step: 'test', image: 'node:22' };
const unplaced = stepPod({ ...ws, workspaceClaim: 'ws-b-42', startedAt: null, conditions: [] });
const tool = { step: 'lint', image: 'registry.example.com/team/tool:1.4' };
const notFound = `rpc error: code = NotFound desc = failed to pull and unpack image "${tool.image}": failed to resolve reference "${tool.image}": ${tool.image}: not found`;
const backingOff = stepPod({ ...tool, startedAt: 0, state: waiting('ImagePullBackOff', `Back-off pulling image "${tool.image}"`) });

const stories: Story[] = [
  {
    name: 'Unschedulable from a FailedScheduling event with only eventTime and series (no condition), after the grace period',
    identity: { step: 'api', image: 'zimfarm/api:1.5' },
    pod: stepPod({ step: 'api', image: 'zimfarm/api:1.5', startedAt: null, conditions: [] }),
    events: (pod) => [podEvent(pod, scheduling({ message: selectorWords, first: 1, last: 130, count: 2 }))],
    seconds: 200,
    options: { unschedulableGraceSeconds: 180 },
    expected: { phase: 'failed', error: 'Unschedulable', reason: 'Unschedulable', words: ["didn't match Pod's node affinity/selector"] },
  },
  {
    name: 'the same within the grace period: pending, in the scheduler\'s words',
    identity: { step: 'api', image: 'zimfarm/api:1.5' },
    pod: stepPod({ step: 'api', image: 'zimfarm/api:1.5', startedAt: null, conditions: [condition('PodScheduled', 'False', 1, 'Unschedulable', selectorWords)] }),
    events: (pod) => [podEvent(pod, scheduling({ message: selectorWords, first: 1 }))],
    seconds: 60,
    expected: { phase: 'pending', reason: 'Unschedulable', words: ["didn't match Pod's node affinity/selector"] },
  },
  {
    name: 'the workspace grace counts from the scheduler\'s first report (its eventTime), not the pod\'s creation',
    identity: ws,
    pod: unplaced,
    events: (pod) => [podEvent(pod, scheduling({ message: unboundImmediate, first: 60, last: 150, count: 2 }))],
    seconds: 170,
    expected: { phase: 'pending', reason: 'FailedScheduling', words: ['unbound immediate PersistentVolumeClaims'] },
  },
  {
    name: 'of two scheduler events, the one seen last (its series) speaks',
    identity: { step: 'api', image: 'zimfarm/api:1.5' },
    pod: stepPod({ step: 'api', image: 'zimfarm/api:1.5', startedAt: null, conditions: [] }),
    events: (pod) => [
      podEvent(pod, scheduling({ message: selectorWords, first: 5, last: 100, count: 2 })),
      podEvent(pod, scheduling({ message: '0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.', first: 50 })),
    ],
    seconds: 110,
    expected: { phase: 'pending', reason: 'Unschedulable', words: ["didn't match Pod's node affinity/selector"] },
  },
  {
    name: 'a pull failure combined from similar events keeps the registry\'s words and verdict',
    identity: tool,
    pod: backingOff,
    events: (pod) => [
      podEvent(pod, { reason: 'BackOff', message: `Back-off pulling image "${tool.image}"`, first: 3, last: 40, count: 4 }),
      podEvent(pod, { reason: 'Failed', type: 'Warning', message: `${COMBINED_EVENTS_PREFIX}Failed to pull image "${tool.image}": ${notFound}`, first: 30, last: 41, count: 2 }),
    ],
    seconds: 42,
    expected: { phase: 'failed', error: 'ImagePullFailed', reason: 'ImagePullBackOff', words: [`${tool.image}: not found`] },
  },
];

describe('the real shapes are judged as the legacy ones', () => {
  it.each(stories.map((s) => [s.name, s] as const))('%s', (_name, story) => {
    const events = story.events(story.pod);
    const real: Observation = observe(story.pod, events, story.seconds);
    const old: Observation = observe(story.pod, events.map(legacy), story.seconds);
    const status = classifyStep(real, story.identity, story.options);
    expect(status).toEqual(classifyStep(old, story.identity, story.options));
    expect(status).toMatchObject({ phase: story.expected.phase, ...(story.expected.reason ? { reason: story.expected.reason } : {}) });
    if (story.expected.error) expect(status).toMatchObject({ error: story.expected.error });
    const said = JSON.stringify(status);
    for (const word of story.expected.words) expect(said).toContain(word.replace(/"/g, '\\"'));
  });
});
