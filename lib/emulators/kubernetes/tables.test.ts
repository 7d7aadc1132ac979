import { SHAPES, eventShape } from '../../../test/fixtures/kube/event-shapes.js';
import type { CoreEvent, PersistentVolumeClaim, Pod } from './objects.js';
import { RESOURCES } from './resources.js';
import { STORAGE_CLASSES } from './storage-classes.js';
import { podStatusText, toTable } from './tables.js';
import { humanDuration } from './time-format.js';

function pod(status: Pod['status'], deleting = false): Pod {
  return {
    metadata: { name: 'p', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { containers: [{ name: 'step', image: 'alpine' }] },
    status,
  };
}

const container = (state: object, ready = false) => ({ name: 'step', image: 'alpine', imageID: '', ready, started: ready, restartCount: 0, state, lastState: {} });

/** A pod with one init container in `state`; its step container waits until that is done. */
function initPod(state: object, phase: NonNullable<Pod['status']>['phase'] = 'Pending'): Pod {
  return {
    metadata: { name: 'p' },
    spec: { initContainers: [{ name: 'clone', image: 'alpine/git' }], containers: [{ name: 'step', image: 'alpine' }] },
    status: {
      phase,
      initContainerStatuses: [{ ...container(state), name: 'clone' }],
      containerStatuses: [container({ waiting: { reason: 'PodInitializing' } })],
    },
  };
}

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
  ['Init:0/1', initPod({ waiting: { reason: 'PodInitializing' } })],
  ['Init:0/1', initPod({ running: { startedAt: 't' } })],
  ['Init:ErrImagePull', initPod({ waiting: { reason: 'ErrImagePull', message: 'x' } })],
  ['Init:Error', initPod({ terminated: { exitCode: 128, reason: 'Error', finishedAt: 't' } }, 'Failed')],
  ['Init:ExitCode:3', initPod({ terminated: { exitCode: 3, reason: '', finishedAt: 't' } }, 'Failed')],
  ['PodInitializing', initPod({ terminated: { exitCode: 0, reason: 'Completed', finishedAt: 't' } })],
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

const created = '2026-01-01T00:00:00Z';
const at = { now: new Date('2026-01-01T00:05:00Z'), resourceVersion: '1' };

test('kubectl get pvc: capacity and access modes once bound, Terminating once deleted', () => {
  const pending: PersistentVolumeClaim = {
    metadata: { name: 'ws', creationTimestamp: created },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'gp2', volumeMode: 'Filesystem', resources: { requests: { storage: '10Gi' } } },
    status: { phase: 'Pending' },
  };
  const bound: PersistentVolumeClaim = {
    ...pending,
    metadata: { ...pending.metadata, deletionTimestamp: created },
    spec: { ...pending.spec, volumeName: 'pvc-1' },
    status: { phase: 'Bound', accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], capacity: { storage: '10Gi' } },
  };
  const table = toTable(RESOURCES.persistentvolumeclaims!, [pending, bound], at);
  expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
  expect(table.rows.map((r) => r.cells)).toEqual([
    ['ws', 'Pending', '', '', '', 'gp2', '<unset>', '5m', 'Filesystem'],
    ['ws', 'Terminating', 'pvc-1', '10Gi', 'RWO,ROX', 'gp2', '<unset>', '5m', 'Filesystem'],
  ]);
});

test('kubectl get storageclass: the default class says so in its name', () => {
  const classes = STORAGE_CLASSES.map((c) => ({ ...c, metadata: { ...c.metadata, creationTimestamp: created } }));
  const table = toTable(RESOURCES.storageclasses!, classes, at);
  expect(table.rows.map((r) => r.cells)).toEqual([
    ['gp2', 'ebs.csi.aws.com', 'Delete', 'WaitForFirstConsumer', false, '5m'],
    ['gp3', 'ebs.csi.aws.com', 'Delete', 'WaitForFirstConsumer', true, '5m'],
    ['standard (default)', 'step-runner.dev/host-path', 'Delete', 'WaitForFirstConsumer', false, '5m'],
  ]);
});

test('kubectl get events -o wide: a scheduler series by its eventTime and series, a kubelet event by its count', () => {
  const now = { now: new Date('2025-03-04T10:27:00Z'), resourceVersion: '1' };
  const events = [eventShape<CoreEvent>(SHAPES.failedScheduling), eventShape<CoreEvent>(SHAPES.failedSchedulingSeries), eventShape<CoreEvent>(SHAPES.kubeletRepeated)];
  const rows = toTable(RESOURCES.events!, events, now).rows.map((r) => r.cells);
  const scheduler = 'default-scheduler, default-scheduler-ip-172-16-61-208.us-west-2.compute.internal';
  // LAST SEEN, SOURCE, FIRST SEEN, COUNT, as printEvent: a singleton's count is 1, a series' its own.
  expect(rows.map(([last, , , , , source, , first, count]) => [last, source, first, count])).toEqual([
    ['11m', scheduler, '11m', 1],
    ['6m52s', scheduler, '11m', 2],
    ['29s', 'kubelet, ip-192-168-12-34.us-west-2.compute.internal', '3m17s', 4],
  ]);
});

test('an events.k8s.io list prints as the core one', () => {
  const now = { now: new Date('2025-03-04T10:25:07Z'), resourceVersion: '1' };
  const stored = [eventShape<CoreEvent>(SHAPES.failedSchedulingSeries)];
  expect(toTable(RESOURCES['events.events.k8s.io']!, stored, now).rows[0]?.cells).toEqual(toTable(RESOURCES.events!, stored, now).rows[0]?.cells);
});
