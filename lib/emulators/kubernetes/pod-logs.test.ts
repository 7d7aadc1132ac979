/** Which run `previous=true` reads, as the kubelet resolves it (validateContainerLogStatus), and its refusals. */
import type { ContainerStatus, Pod } from './objects.js';
import { previousRun } from './pod-logs.js';

const ended = { terminated: { exitCode: 3, reason: 'Error', startedAt: '2026-03-14T10:00:01Z', finishedAt: '2026-03-14T10:00:02Z', containerID: 'containerd://first' } };
const status = (fields: Partial<ContainerStatus>): ContainerStatus => ({ name: 'db', image: 'postgres:16', imageID: '', ready: false, started: false, restartCount: 0, state: {}, lastState: {}, ...fields });
const pod = (db: ContainerStatus | undefined, nodeName = 'embedded-node'): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'b-42-test', namespace: 'ci' },
  spec: { ...(nodeName ? { nodeName } : {}), initContainers: [{ name: 'db', image: 'postgres:16', restartPolicy: 'Always' }], containers: [{ name: 'step', image: 'alpine:3.20' }] },
  status: { phase: 'Running', ...(db ? { initContainerStatuses: [db] } : {}) },
});

it.each<[string, Pod, ReturnType<typeof previousRun>]>([
  ['restarted and running: the run in lastState', pod(status({ restartCount: 1, containerID: 'containerd://second', state: { running: { startedAt: '2026-03-14T10:00:02Z' } }, lastState: ended })), { containerID: 'containerd://first' }],
  ['in CrashLoopBackOff: the run that just ended, in lastState', pod(status({ restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: ended })), { containerID: 'containerd://first' }],
  ['exited, not restarted yet', pod(status({ containerID: 'containerd://first', state: ended })), { refused: 'previous terminated container "db" in pod "b-42-test" not found' }],
  ['lastState without a container ID', pod(status({ restartCount: 1, state: { running: { startedAt: '2026-03-14T10:00:02Z' } }, lastState: { terminated: { ...ended.terminated, containerID: '' } } })), { refused: 'previous terminated container "db" in pod "b-42-test" not found' }],
  ['no status for the container yet', pod(undefined), { refused: 'container "db" in pod "b-42-test" is not available' }],
  ['not scheduled', pod(undefined, ''), { refused: 'pod b-42-test does not have a host assigned' }],
])('%s', (_, given, expected) => {
  expect(previousRun(given, 'db')).toEqual(expected);
});
