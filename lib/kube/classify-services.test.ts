import { describe, expect, it } from '@jest/globals';
import { classifyStep } from './classify.js';
import { MAX_CAUSE_LENGTH } from './cause.js';
import { isStartupProbeKill, serviceStates } from './classify-services.js';
import { podProgress, isQuietPending } from './pod-progress.js';
import { DEFAULT_CLASSIFY_OPTIONS, type StepStatus } from './types.js';
import {
  SERVICE_STEP,
  SERVICE_STEP_IMAGE,
  loadServiceExamples,
  serviceObservation,
  servicePod,
  type ExpectedStatus,
  type ServiceExample,
} from '../../test/fixtures/kube/service-examples.js';

// Throws (failing the file) when the fixture is missing or empty.
const examples = loadServiceExamples();
const identity = { step: SERVICE_STEP, image: SERVICE_STEP_IMAGE };
/** Past every grace period a service example can be waiting out. */
const LATER = Math.max(DEFAULT_CLASSIFY_OPTIONS.serviceStartGraceSeconds, DEFAULT_CLASSIFY_OPTIONS.imagePullGraceSeconds) + 5;

function expectStatus(status: StepStatus, expected: ExpectedStatus, service: string): void {
  expect(status.phase).toBe(expected.phase);
  if (expected.reason) expect(status.reason).toBe(expected.reason);
  if (status.phase === 'failed') {
    expect(status.error).toBe(expected.error);
    if (expected.exitCode !== undefined) expect(status.exitCode).toBe(expected.exitCode);
    expect(status.cause.length).toBeLessThanOrEqual(MAX_CAUSE_LENGTH);
    expect(status.cause).toContain(`"${SERVICE_STEP}"`);
    if (expected.error === 'ServiceFailed' || expected.error === 'ImagePullFailed' || expected.error === 'PodConfigError') {
      // The Cause names the service, and the image is the service's, never the step's.
      expect(status.cause).toContain(`"${service}"`);
      expect(status.cause).not.toContain(SERVICE_STEP_IMAGE);
    }
    if (expected.error === 'ServiceFailed') expect(status.service).toBe(service);
    for (const word of expected.words ?? []) expect(status.cause).toContain(word);
  } else {
    expect(expected.error).toBeUndefined();
    const message = 'message' in status ? (status.message ?? '') : '';
    for (const word of expected.words ?? []) expect(message).toContain(word);
  }
}

describe('classifyStep on real service (sidecar) wording', () => {
  it('has examples of every kind', () => {
    const errors = new Set(examples.flatMap((e) => [e.expected.error, e.afterGrace?.error]));
    expect([...errors]).toEqual(expect.arrayContaining(['ImagePullFailed', 'ServiceFailed', 'StepFailed']));
    expect(examples.every((e) => e.seen.length > 0 && e.seen.every((url) => url.startsWith('https://')))).toBe(true);
  });

  it.each(examples.map((e) => [e.name, e] as const))('%s', (_name, example) => {
    expectStatus(classifyStep(serviceObservation(example), identity), example.expected, example.service.name);
  });

  it.each(examples.filter((e) => e.afterGrace).map((e) => [e.name, e] as const))('once the grace period is over: %s', (_name, example) => {
    expectStatus(classifyStep(serviceObservation(example, LATER), identity), example.afterGrace!, example.service.name);
  });

  it('takes the grace period from the options (a pipeline may give its services longer)', () => {
    const example = examples.find((e) => e.afterGrace?.reason === 'ServiceNotReady')!;
    const observation = serviceObservation(example, LATER);
    expect(classifyStep(observation, identity, { serviceStartGraceSeconds: 600 }).phase).toBe('pending');
    const failed = classifyStep(observation, identity, { serviceStartGraceSeconds: 30 });
    expect(failed.phase === 'failed' && failed.cause).toContain('grace period 30 s');
  });

  it('puts a pull failure before a service that ended (priority: pull > service > step)', () => {
    const pull = examples.find((e) => e.expected.error === 'ImagePullFailed')!;
    const crashed = examples.find((e) => e.name.startsWith('service crashes while the step runs'))!;
    const pod = servicePod(pull);
    const other = servicePod(crashed);
    // The crashed service first (it started), then the one whose image cannot be pulled.
    pod.spec!.initContainers = [...other.spec!.initContainers!, ...pod.spec!.initContainers!];
    pod.status!.initContainerStatuses = [...other.status!.initContainerStatuses!, ...pod.status!.initContainerStatuses!];
    const observation = serviceObservation(pull);
    const status = classifyStep({ ...observation, pod }, identity);
    expect(status.phase === 'failed' && status.error).toBe('ImagePullFailed');
  });

  it('puts a service that ended before the step that failed beside it', () => {
    const crashed = examples.find((e) => e.name.startsWith('service crashes while the step runs'))!;
    const example = { ...crashed, step: { state: { terminated: { exitCode: 1, reason: 'Error', started: 5, finished: 45 } } }, pollAt: 46 };
    const status = classifyStep(serviceObservation(example), identity);
    expect(status.phase === 'failed' && status.error).toBe('ServiceFailed');
  });
});

describe('a service\'s end is judged by its time, not by when the poll comes', () => {
  const crashed = examples.find((e) => e.name.startsWith('service crashes while the step runs'))!;
  const stopped = examples.find((e) => e.name === 'the step succeeded and its sidecars were stopped')!;
  const crash = crashed.status.lastState!.terminated!;
  /** The step exits 0 at 60; a poll there or later sees only what the pod's status keeps. */
  const stepDone = { state: { terminated: { exitCode: 0, reason: 'Completed', started: 5, finished: 60 } } };
  // The kubelet's stop after the step (SIGTERM), the crash during it kept in lastState
  // (pkg/kubelet/kubelet_pods.go convertToAPIContainerStatuses: the previous container's state).
  const kubeletStop = { terminated: { exitCode: 0, reason: 'Completed', started: 40, finished: 61 } };

  function verdict(example: ServiceExample) {
    return classifyStep(serviceObservation(example), identity);
  }

  it.each([
    ['the first poll after the step exited 0, the service restarted and running', { ...crashed, step: stepDone, pollAt: 62 }],
    ['the first poll after the kubelet stopped the service, the crash in lastState', { ...crashed, status: { ...crashed.status, state: kubeletStop }, step: stepDone, pollAt: 90 }],
    ['the first poll after, the service in CrashLoopBackOff', { ...crashed, status: { ...crashed.status, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=redis' } } }, step: stepDone, pollAt: 90 }],
  ])('a crash while the step ran is ServiceFailed during the step and %s', (_when, later) => {
    const during = verdict(crashed);
    const after = verdict(later);
    expect(during).toMatchObject({ phase: 'failed', error: 'ServiceFailed', reason: 'OOMKilled', exitCode: crash.exitCode, service: 'redis' });
    expect(after).toMatchObject({ phase: 'failed', error: 'ServiceFailed', reason: 'OOMKilled', exitCode: crash.exitCode, service: 'redis' });
    const cause = after.phase === 'failed' ? after.cause : '';
    expect(cause).toContain('exited with exit code 137 (OOMKilled) while the step ran');
    expect(cause).toContain('the step then ended with exit code 0');
  });

  it('a service the kubelet stopped after the step is no failure, whenever the poll comes', () => {
    const running = { ...stopped, status: { state: { running: { started: 2 } }, restartCount: 0, started: true }, step: { state: { running: { started: 5 } } }, pollAt: 20 };
    expect(verdict(running)).toMatchObject({ phase: 'running' });
    expect(verdict(stopped)).toMatchObject({ phase: 'succeeded' });
    expect(verdict({ ...stopped, pollAt: 600 })).toMatchObject({ phase: 'succeeded' });
    // Stopped in the step's own second: termination times have whole seconds, so it counts as after.
    const sameSecond = { ...stopped, status: { ...stopped.status, state: { terminated: { ...stopped.status.state.terminated!, finished: 30 } } } };
    expect(verdict(sameSecond)).toMatchObject({ phase: 'succeeded' });
  });
});

describe('port gates (a service\'s second port and on: one more sidecar named port-N)', () => {
  const example = examples.find((e) => e.afterGrace?.reason === 'ServiceNotReady' && e.status.restartCount === 0)!;
  /** The service started on its first port; the gate for 5433 waits, with the probe's words on it. */
  function gated(later: number) {
    const started = { ...example, service: { ...example.service, ports: [5432, 5433] }, status: { ...example.status, started: true }, events: [] };
    const pod = servicePod(started);
    pod.spec!.initContainers!.push({ name: 'port-5433', image: SERVICE_STEP_IMAGE, restartPolicy: 'Always', command: ['/bin/sh', '-c', 'sleep 3600'] });
    const gate = { ...example, service: { name: 'port-5433', image: SERVICE_STEP_IMAGE }, events: example.events.map((e) => ({ ...e, message: e.message.replace(/:5432\b/, ':5433').replace('container db', 'container port-5433') })) };
    const gatePod = servicePod(gate);
    pod.status!.initContainerStatuses!.push(gatePod.status!.initContainerStatuses![0]!);
    const observation = serviceObservation(gate, later);
    return { ...observation, pod };
  }

  it('waits, naming the service and the port', () => {
    const status = classifyStep(gated(0), identity);
    expect(status).toMatchObject({ phase: 'pending', reason: 'ServiceStarting' });
    expect('message' in status && status.message).toContain('service "db" (port 5433)');
  });

  it('fails naming the service, its image and the port, never the gate', () => {
    const status = classifyStep(gated(LATER), identity);
    expect(status).toMatchObject({ phase: 'failed', error: 'ServiceFailed', service: 'db' });
    const cause = status.phase === 'failed' ? status.cause : '';
    expect(cause).toContain('Service "db" of step "build" (image "postgres:16-alpine") never opened port 5433');
    expect(cause).not.toContain('port-5433');
  });

  it('is no service in the views', () => {
    expect(serviceStates(gated(0).pod).map((s) => s.name)).toEqual(['db']);
  });
});

describe('isStartupProbeKill', () => {
  it.each([
    ['Container db failed startup probe, will be restarted', true],
    // A restartable init container's own wording (kuberuntime's computeInitContainerActions).
    ['Init container db failed startup probe', true],
    ['Container db failed liveness probe, will be restarted', false],
    ['Stopping container db', false],
  ])('%s', (message, kill) => {
    expect(isStartupProbeKill({ reason: 'Killing', message, involvedObject: {}, metadata: {} })).toBe(kill);
  });
});

describe('serviceStates', () => {
  it('says how each service stands, small enough for the state data', () => {
    const byName = Object.fromEntries(examples.map((e) => [e.name, serviceStates(servicePod(e))[0]]));
    expect(byName['service exits before the step starts: Init:CrashLoopBackOff with its exit in lastState']).toEqual({
      name: 'db',
      state: 'waiting',
      reason: 'CrashLoopBackOff',
      exitCode: 1,
      restarts: 2,
    });
    expect(byName['service running and started: the step runs']).toEqual({ name: 'db', state: 'running' });
    expect(byName['service port never opens (tcpSocket startup probe, connection refused): pending, then ServiceFailed naming the port']).toEqual({
      name: 'db',
      state: 'starting',
    });
    expect(serviceStates(null)).toEqual([]);
  });
});

describe('podProgress', () => {
  it('changes when a service ends, so a watch on the step returns at once', () => {
    const crashed = examples.find((e) => e.name.startsWith('service exits before the step starts'))!;
    const healthy = { ...crashed, status: { state: { running: { started: 1 } }, restartCount: 0, started: false } };
    const before = podProgress(servicePod(healthy));
    const after = podProgress(servicePod(crashed));
    expect(after).not.toEqual(before);
    expect(after.serviceEnds).toBe(2);
    expect(isQuietPending(after)).toBe(false);
  });
});
