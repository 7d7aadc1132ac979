import type { ContainerStatus, PodStatus } from './objects.js';
import { terminatedStatus } from './pod-termination.js';

const base = { image: 'alpine', imageID: '', restartCount: 0, lastState: {} };
const running: ContainerStatus = { ...base, name: 'build', containerID: 'containerd://abc', ready: true, started: true, state: { running: { startedAt: '2026-01-01T00:00:01Z' } } };
const creating: ContainerStatus = { ...base, name: 'sidecar', ready: false, started: false, state: { waiting: { reason: 'ContainerCreating' } } };
const done: ContainerStatus = { ...base, name: 'setup', ready: false, started: false, state: { terminated: { exitCode: 0, reason: 'Completed', finishedAt: '2026-01-01T00:00:02Z' } } };
const status: PodStatus = { phase: 'Running', containerStatuses: [running, creating, done] };
const finishedAt = '2026-01-01T00:00:09Z';
const sigterm = new Map([['build', { exitCode: 143 }]]);

test('a deleted pod: the stopped container ends with its signal, one never started is lost, a finished one stays', () => {
  const ended = terminatedStatus(status, sigterm, 'deleted', finishedAt);
  expect(ended.phase).toBe('Failed');
  expect(ended.reason).toBeUndefined();
  expect(ended.containerStatuses?.map((s) => [s.name, s.ready, s.state])).toEqual([
    ['build', false, { terminated: { exitCode: 143, reason: 'Error', startedAt: '2026-01-01T00:00:01Z', finishedAt, containerID: 'containerd://abc' } }],
    ['sidecar', false, { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt } }],
    ['setup', false, done.state],
  ]);
  expect(ended.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted', lastTransitionTime: finishedAt });
});

test('a pod past its deadline fails with DeadlineExceeded even when its processes exit 0', () => {
  const ended = terminatedStatus({ phase: 'Running', containerStatuses: [running] }, new Map([['build', { exitCode: 0 }]]), 'deadline', finishedAt);
  expect(ended).toMatchObject({ phase: 'Failed', reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline' });
});

test('a deleted pod whose stopped processes all exit 0 has Succeeded', () => {
  const ended = terminatedStatus({ phase: 'Running', containerStatuses: [running] }, new Map([['build', { exitCode: 0 }]]), 'deleted', finishedAt);
  expect(ended.phase).toBe('Succeeded');
});
