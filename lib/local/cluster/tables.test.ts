import type { Pod } from './objects.js';
import { podStatusText } from './tables.js';
import { humanDuration } from './time-format.js';

function pod(status: Pod['status'], deleting = false): Pod {
  return {
    metadata: { name: 'p', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { containers: [{ name: 'step', image: 'alpine' }] },
    status,
  };
}

const container = (state: object, ready = false) => ({ name: 'step', image: 'alpine', imageID: '', ready, started: ready, restartCount: 0, state, lastState: {} });

test.each([
  ['Pending', pod({ phase: 'Pending' })],
  ['ContainerCreating', pod({ phase: 'Pending', containerStatuses: [container({ waiting: { reason: 'ContainerCreating' } })] })],
  ['ErrImagePull', pod({ phase: 'Pending', containerStatuses: [container({ waiting: { reason: 'ErrImagePull', message: 'x' } })] })],
  ['ImagePullBackOff', pod({ phase: 'Pending', containerStatuses: [container({ waiting: { reason: 'ImagePullBackOff' } })] })],
  ['Running', pod({ phase: 'Running', containerStatuses: [container({ running: { startedAt: 't' } }, true)] })],
  ['Completed', pod({ phase: 'Succeeded', containerStatuses: [container({ terminated: { exitCode: 0, reason: 'Completed', finishedAt: 't' } })] })],
  ['Error', pod({ phase: 'Failed', containerStatuses: [container({ terminated: { exitCode: 2, reason: 'Error', finishedAt: 't' } })] })],
  ['ExitCode:7', pod({ phase: 'Failed', containerStatuses: [container({ terminated: { exitCode: 7, reason: '', finishedAt: 't' } })] })],
  ['DeadlineExceeded', pod({ phase: 'Failed', reason: 'DeadlineExceeded' })],
  ['Terminating', pod({ phase: 'Running', containerStatuses: [container({ running: { startedAt: 't' } }, true)] }, true)],
])('kubectl shows %s', (expected, subject) => {
  expect(podStatusText(subject)).toBe(expected);
});

test.each([
  [0, '0s'],
  [59_000, '59s'],
  [119_000, '119s'],
  [125_000, '2m5s'],
  [600_000, '10m'],
  [3 * 3600_000 + 5 * 60_000, '3h5m'],
  [30 * 3600_000, '30h'],
  [3 * 86400_000, '3d'],
  [400 * 86400_000, '400d'],
])('AGE of %d ms is %s', (ms, expected) => {
  expect(humanDuration(ms)).toBe(expected);
});
