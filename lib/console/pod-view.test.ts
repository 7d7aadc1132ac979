import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { SHAPES, eventShape } from '../../test/fixtures/kube/event-shapes.js';
import { podView } from './pod-view.js';

const pod: V1Pod = {
  metadata: { name: 'b-42-build', namespace: 'ci', uid: '7d3e1c52-94a1-4b6f-8f0e-2c5a9b7e1d40' },
  spec: { containers: [{ name: 'step', image: 'alpine:3.20' }] },
  status: { phase: 'Pending' },
};

const viewOf = (...names: string[]) =>
  podView('b-42-build', { pod, events: names.map((n) => eventShape<CoreV1Event>(n)), observedAt: new Date('2025-03-04T10:30:00Z') }).events;

test('a scheduler event read through core/v1 shows its reporter, its eventTime and, repeated, its series', () => {
  expect(viewOf(SHAPES.failedScheduling, SHAPES.failedSchedulingSeries)).toEqual([
    expect.objectContaining({ reason: 'FailedScheduling', source: 'default-scheduler', count: 1, firstSeen: '2025-03-04T10:15:02.412Z', lastSeen: '2025-03-04T10:15:02.412Z' }),
    expect.objectContaining({ reason: 'FailedScheduling', source: 'default-scheduler', count: 2, firstSeen: '2025-03-04T10:15:03.508Z', lastSeen: '2025-03-04T10:20:07.118Z' }),
  ]);
});

test('a kubelet event shows its count and its first and last timestamps', () => {
  expect(viewOf(SHAPES.kubeletRepeated)).toEqual([
    expect.objectContaining({ container: 'step', source: 'kubelet', count: 4, firstSeen: '2025-03-04T10:23:43.000Z', lastSeen: '2025-03-04T10:26:31.000Z' }),
  ]);
});
