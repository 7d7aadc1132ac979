import type { ContainerState, ContainerStatus, Pod } from './objects.js';
import { admittedStatus, derivePhase, nodeConditions, sidecarNames } from './pod-status.js';
import { podStatusText } from './tables.js';

/** A pod with an ordinary init container `setup`, a sidecar `service` (restartPolicy Always) and a container `step`. */
const POD: Pod = {
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: {
    restartPolicy: 'Never',
    initContainers: [
      { name: 'setup', image: 'alpine' },
      { name: 'service', image: 'alpine', restartPolicy: 'Always' },
    ],
    containers: [{ name: 'step', image: 'alpine' }],
  },
};
const SIDECARS = new Set(sidecarNames(POD));
const at = '2026-01-01T00:00:00Z';

function status(name: string, state: ContainerState, more: Partial<ContainerStatus> = {}): ContainerStatus {
  const running = state.running !== undefined;
  return { name, image: 'alpine', imageID: '', ready: running, started: running, restartCount: 0, state, lastState: {}, ...more };
}
const waiting = (reason: string): ContainerState => ({ waiting: { reason } });
const run: ContainerState = { running: { startedAt: at } };
const exited = (exitCode: number): ContainerState => ({ terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: at, finishedAt: at } });
const crashLoop = status('service', waiting('CrashLoopBackOff'), { restartCount: 1, lastState: exited(7) });

test('the sidecars are the init containers with restartPolicy Always', () => {
  expect(sidecarNames(POD)).toEqual(['service']);
});

test.each<[string, ContainerStatus[], ContainerStatus, string]>([
  ['setup running', [status('setup', run), status('service', waiting('PodInitializing'))], status('step', waiting('PodInitializing')), 'Pending'],
  ['setup failed', [status('setup', exited(1)), status('service', waiting('PodInitializing'))], status('step', waiting('PodInitializing')), 'Failed'],
  ['sidecar being created', [status('setup', exited(0)), status('service', waiting('ContainerCreating'))], status('step', waiting('PodInitializing')), 'Pending'],
  ['sidecar running but not started', [status('setup', exited(0)), status('service', run, { started: false })], status('step', waiting('PodInitializing')), 'Pending'],
  ['sidecar started, step being created', [status('setup', exited(0)), status('service', run)], status('step', waiting('ContainerCreating')), 'Pending'],
  ['both running', [status('setup', exited(0)), status('service', run)], status('step', run), 'Running'],
  ['sidecar crash-looping beside the step', [status('setup', exited(0)), crashLoop], status('step', run), 'Running'],
  ['step exited 0, sidecar still running (being stopped)', [status('setup', exited(0)), status('service', run)], status('step', exited(0)), 'Running'],
  ['step exited 0, sidecar stopped with 143', [status('setup', exited(0)), status('service', exited(143))], status('step', exited(0)), 'Succeeded'],
  ['step exited 0, sidecar in back-off', [status('setup', exited(0)), crashLoop], status('step', exited(0)), 'Succeeded'],
  ['step exited 3, sidecar stopped with 0', [status('setup', exited(0)), status('service', exited(0))], status('step', exited(3)), 'Failed'],
])('%s', (_, inits, step, phase) => {
  expect(derivePhase([step], inits, SIDECARS)).toBe(phase);
});

test('Initialized waits for the sidecar to start, and stays True once it has, even after it is stopped', () => {
  const initialized = (inits: ContainerStatus[]) => nodeConditions([], [status('step', run)], 'Running', at, inits, SIDECARS).find((c) => c.type === 'Initialized');
  // Before the step has started: only a started sidecar counts, not one restarting (a failed startup probe, a crash).
  const beforeStep = (inits: ContainerStatus[]) =>
    nodeConditions([], [status('step', waiting('PodInitializing'))], 'Pending', at, inits, SIDECARS).find((c) => c.type === 'Initialized');
  expect(beforeStep([status('setup', exited(0)), status('service', waiting('PodInitializing'))])).toMatchObject({
    status: 'False',
    message: 'containers with incomplete status: [service]',
  });
  expect(beforeStep([status('setup', exited(0)), crashLoop])).toMatchObject({ status: 'False', message: 'containers with incomplete status: [service]' });
  expect(beforeStep([status('setup', exited(0)), status('service', run, { started: false })])?.status).toBe('False');
  expect(beforeStep([status('setup', exited(0)), status('service', run, { started: true })])?.status).toBe('True');
  expect(initialized([status('setup', exited(0)), status('service', run)])?.status).toBe('True');
  expect(initialized([status('setup', exited(0)), crashLoop])?.status).toBe('True');
  expect(initialized([status('setup', exited(0)), status('service', exited(143), { ready: false, started: false })])?.status).toBe('True');
});

test('the sidecar counts towards the pod being ready', () => {
  const ready = nodeConditions([], [status('step', run)], 'Running', at, [status('setup', exited(0), { ready: true }), crashLoop], SIDECARS).find((c) => c.type === 'Ready');
  expect(ready).toMatchObject({ status: 'False', message: 'containers with unready status: [service]' });
});

test('kubectl shows Init:1/2 until the sidecar has started, then the containers, and Completed after it is stopped', () => {
  const admitted = { ...POD, status: admittedStatus(POD, '10.0.0.1', at) };
  const initStatuses = [status('setup', exited(0), { ready: true }), status('service', waiting('PodInitializing'))];
  const withStatus = (inits: ContainerStatus[], step: ContainerStatus, phase: NonNullable<Pod['status']>['phase']): Pod => ({
    ...admitted,
    status: { ...admitted.status, phase, initContainerStatuses: inits, containerStatuses: [step], conditions: nodeConditions([], [step], phase, at, inits, SIDECARS) },
  });
  expect(podStatusText(withStatus(initStatuses, status('step', waiting('PodInitializing')), 'Pending'))).toBe('Init:1/2');
  expect(podStatusText(withStatus([initStatuses[0]!, status('service', run)], status('step', run), 'Running'))).toBe('Running');
  expect(podStatusText(withStatus([initStatuses[0]!, status('service', exited(143))], status('step', exited(0)), 'Succeeded'))).toBe('Completed');
});
