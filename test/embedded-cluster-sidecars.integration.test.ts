/**
 * Native sidecars (KEP-753: an init container with restartPolicy Always) on the embedded cluster,
 * over real HTTP, on both runtimes: started in their place among the init containers and kept
 * running beside the containers; once the containers end they are stopped and the containers
 * alone decide the phase; one that exits on its own is restarted with back-off; deleting the pod
 * stops them. How a stopped sidecar ends is the runtime's (`stoppedExitCode`).
 */
import { jest } from '@jest/globals';
import type { CoreV1Event, V1Container, V1Pod } from '@kubernetes/client-node';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { describeOnRuntimes, dockerContainerRunning, hostProcessAlive, RuntimeKind, podWhen as podWhenIn, podFirstSeen } from './fixtures/kubelet-runtimes.js';
import { waitFor } from './fixtures/wait-for.js';

// Docker's containers start in hundreds of milliseconds, and many times that on a loaded CI
// machine: the waits below are upper bounds for a hang, not expectations of speed.
jest.setTimeout(120_000);

const NS = 'sidecars';

const mount = { workingDir: '/workspace', volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }] };

function sh(image: string, name: string, script: string, extra: Partial<V1Container> = {}): V1Container {
  return { name, image, command: ['/bin/sh', '-c', script], ...mount, ...extra };
}

/**
 * Runs until the kubelet stops it, then ends at once with 143 on both runtimes: the trap is a
 * handler, which PID 1 under Docker honours (it drops only signals with none). The tests about
 * what a runtime does with a PID 1 that has no handler `exec sleep` instead.
 */
const untilStopped = 'trap "exit 143" TERM; sleep 30 & wait';

describeOnRuntimes(NS, (runtime) => {
  const sidecar = (name: string, script: string) => sh(runtime.images.shell, name, script, { restartPolicy: 'Always' });
  const init = (name: string, script: string) => sh(runtime.images.shell, name, script);

  function pod(name: string, initContainers: V1Container[], main: string): V1Pod {
    return {
      metadata: { name },
      spec: {
        restartPolicy: 'Never',
        // Short: on Docker a sidecar whose PID 1 ignores SIGTERM runs out the grace period.
        terminationGracePeriodSeconds: 2,
        volumes: [{ name: 'workspace', emptyDir: {} }],
        initContainers,
        containers: [sh(runtime.images.shell, 'step', main)],
      },
    };
  }

  const podWhen = (name: string, wanted: (pod: V1Pod) => boolean, what: string, timeoutMs?: number) => podWhenIn(runtime.api, NS, name, wanted, what, timeoutMs);

  const ended = (p: V1Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

  async function eventsOf(name: string): Promise<CoreV1Event[]> {
    return (await runtime.api.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=${name}` })).items;
  }

  /**
   * Once the pod's sidecar has printed its pid (`echo $$$$`: the kubelet turns `$$` into `$`, as
   * Kubernetes does, so the shell gets `$$`), whether it still runs. On the process runtime that
   * pid is a host process; on Docker it is 1 in the container's own pid namespace, so the daemon
   * is asked whether the container runs.
   */
  async function sidecarRunning(name: string): Promise<() => Promise<boolean>> {
    const pid = await waitFor(
      async () => Number((await runtime.api.readNamespacedPodLog({ name, namespace: NS, container: 'service' })).trim()) || undefined,
      { timeoutMs: 60_000, what: `the sidecar of ${name} to print its pid` },
    );
    if (runtime.kind === RuntimeKind.process) return () => Promise.resolve(hostProcessAlive(pid));
    const uid = (await runtime.api.readNamespacedPod({ name, namespace: NS })).metadata?.uid ?? '';
    return () => dockerContainerRunning(uid, 'service');
  }

  test('a sidecar starts before the container, runs beside it, and is stopped once it exits 0: Succeeded', async () => {
    // The sidecar writes a file and serves for 30 s; the step needs the file and ends at once. The
    // sidecar's PID 1 is sleep, with no SIGTERM handler: how it ends is the runtime's.
    await runtime.api.createNamespacedPod({
      namespace: NS,
      body: pod('serves', [sidecar('service', 'echo ready > service-up; echo serving; exec sleep 30')], 'test -f service-up && cat service-up'),
    });
    const done = await podWhen('serves', ended, 'to end');

    expect(done.status?.phase).toBe('Succeeded');
    const side = done.status?.initContainerStatuses?.[0];
    expect(side).toMatchObject({ name: 'service', ready: false, started: false, restartCount: 0 });
    // Stopped by the kubelet once the step ended, not at the end of its own 30 s.
    expect(side?.state?.terminated).toMatchObject({ exitCode: runtime.stoppedExitCode, reason: 'Error' });
    expect(side?.state?.terminated?.signal).toBeUndefined();
    expect(done.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(done.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
    expect(await runtime.api.readNamespacedPodLog({ name: 'serves', namespace: NS, container: 'step' })).toBe('ready\n');
    expect(await runtime.api.readNamespacedPodLog({ name: 'serves', namespace: NS, container: 'service' })).toBe('serving\n');

    const events = await eventsOf('serves');
    const started = events.filter((e) => e.reason === 'Started').map((e) => e.involvedObject.fieldPath);
    expect(started).toEqual(['spec.initContainers{service}', 'spec.containers{step}']);
    const killing = events.find((e) => e.reason === 'Killing');
    expect(killing).toMatchObject({ message: 'Stopping container service', involvedObject: { fieldPath: 'spec.initContainers{service}' } });
  });

  test('while the container runs the sidecar is started and ready, and the pod Running', async () => {
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('running', [sidecar('service', untilStopped)], 'sleep 1') });
    const running = await podWhen('running', (p) => p.status?.containerStatuses?.[0]?.state?.running !== undefined, 'to run its step');
    expect(running.status?.phase).toBe('Running');
    expect(running.status?.initContainerStatuses?.[0]).toMatchObject({ started: true, ready: true, restartCount: 0, state: { running: {} } });
    expect(running.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect((await podWhen('running', ended, 'to end')).status?.phase).toBe('Succeeded');
  });

  // The kubelet starts the next init container once a sidecar is started, which without a startup
  // probe is once its process runs (ContainerStatus.started: "always true when no startupProbe is
  // defined and container is running"), not once it has done anything: on a loaded machine `setup`
  // may run before `first` has written its line, so it waits for that line (were `setup` started
  // before `first`, it would wait for ever and the pod never end).
  test('sidecars start in order with ordinary init containers, and stop in reverse order', async () => {
    const inits = [
      sidecar('first', `echo first >> order; ${untilStopped}`),
      init('setup', 'until test -f order; do sleep 0.05; done; echo setup >> order'),
      sidecar('second', `echo second >> order; ${untilStopped}`),
    ];
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('ordered', inits, 'cat order') });
    const done = await podWhen('ordered', ended, 'to end');

    expect(done.status?.phase).toBe('Succeeded');
    expect(await runtime.api.readNamespacedPodLog({ name: 'ordered', namespace: NS, container: 'step' })).toBe('first\nsetup\nsecond\n');
    // The sidecars' traps end them at the SIGTERM, on both runtimes.
    expect(done.status?.initContainerStatuses?.map((s) => [s.name, s.state?.terminated?.reason, s.state?.terminated?.exitCode])).toEqual([
      ['first', 'Error', 143],
      ['setup', 'Completed', 0],
      ['second', 'Error', 143],
    ]);
    const killing = (await eventsOf('ordered')).filter((e) => e.reason === 'Killing').map((e) => e.message);
    expect(killing).toEqual(['Stopping container second', 'Stopping container first']);
  });

  test('the container exiting 3 fails the pod, whatever the sidecar exits with', async () => {
    // The trap makes the sidecar end at SIGTERM on both runtimes (a handler counts for PID 1 too).
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('fails', [sidecar('service', 'trap "exit 0" TERM; sleep 30 & wait')], 'exit 3') });
    const done = await podWhen('fails', ended, 'to end');
    expect(done.status?.phase).toBe('Failed');
    expect(done.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(3);
    expect(done.status?.initContainerStatuses?.[0]?.state?.terminated).toBeDefined();
  });

  test('a sidecar that exits on its own is restarted, with CrashLoopBackOff between restarts', async () => {
    // Each back-off lasts tens of milliseconds with FAST_TIMINGS: watched, so that none is missed,
    // and one beside the running step. The step ends once the sidecar has started four more times
    // after it began (each start adds a line to `starts`): crashes and back-offs fell within its
    // run. With two, a loaded machine once let the pod end before a back-off was written while the
    // step still ran; four back-offs (40 to 160 ms each) leave that many chances.
    const firstBackOff = await podFirstSeen(
      runtime.cluster,
      NS,
      'crashes',
      (p) => p.status?.initContainerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff' && p.status?.containerStatuses?.[0]?.state?.running !== undefined,
    );
    // `$$` is one `$` after the kubelet's $(VAR) expansion.
    const moreStarts = 'n=$$(wc -l < starts); until [ "$$(wc -l < starts)" -ge $$((n + 4)) ]; do sleep 0.05; done';
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('crashes', [sidecar('service', 'echo up >> starts; echo up; sleep 0.05; exit 7')], moreStarts) });
    const backingOff = await firstBackOff.seen;
    const side = backingOff.status?.initContainerStatuses?.[0];
    expect(side?.restartCount).toBeGreaterThan(0);
    expect(side).toMatchObject({ ready: false, started: false, lastState: { terminated: { exitCode: 7, reason: 'Error' } } });
    expect(side?.state?.waiting?.message).toMatch(/^back-off \d+ms restarting failed container=service pod=crashes_sidecars\(.+\)$/);
    expect(backingOff.status?.phase).toBe('Running');

    const done = await podWhen('crashes', ended, 'to end');
    expect(done.status?.phase).toBe('Succeeded');
    const backOff = (await eventsOf('crashes')).find((e) => e.reason === 'BackOff');
    expect(backOff).toMatchObject({ type: 'Warning', involvedObject: { fieldPath: 'spec.initContainers{service}' } });
    expect(backOff?.message).toMatch(/^Back-off restarting failed container service in pod crashes_sidecars\(.+\)$/);
    expect(backOff?.count).toBeGreaterThan(0);
  });

  test('deleting the pod stops the sidecar, after the container', async () => {
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('deleted', [sidecar('service', `echo $$$$; ${untilStopped}`)], untilStopped) });
    await podWhen('deleted', (p) => p.status?.containerStatuses?.[0]?.state?.running !== undefined, 'to run');
    const running = await sidecarRunning('deleted');
    expect(await running()).toBe(true);
    await runtime.api.deleteNamespacedPod({ name: 'deleted', namespace: NS });
    await waitFor(
      async () => {
        const left = await runtime.api.listNamespacedPod({ namespace: NS, fieldSelector: 'metadata.name=deleted' });
        return left.items.length === 0;
      },
      { timeoutMs: 60_000, what: 'the pod to go' },
    );
    expect(await running()).toBe(false);
    const killing = (await eventsOf('deleted')).filter((e) => e.reason === 'Killing').map((e) => e.message);
    expect(killing).toEqual(['Stopping container step', 'Stopping container service']);
  });

  test('activeDeadlineSeconds stops the sidecar too', async () => {
    const body = pod('deadline', [sidecar('service', 'echo $$$$; exec sleep 30')], untilStopped);
    // Long enough for the sidecar to be running first: a Docker pod's start takes its sandbox and its
    // containers, seconds on a loaded CI machine (a deadline hit before it runs would stop nothing).
    body.spec!.activeDeadlineSeconds = runtime.kind === RuntimeKind.docker ? 10 : 1;
    await runtime.api.createNamespacedPod({ namespace: NS, body });
    const running = await sidecarRunning('deadline');
    const done = await podWhen('deadline', (p) => ended(p) && p.status?.initContainerStatuses?.[0]?.state?.terminated !== undefined, 'to end, its sidecar stopped');
    expect(done.status).toMatchObject({ phase: 'Failed', reason: 'DeadlineExceeded' });
    expect(done.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: runtime.stoppedExitCode });
    expect(await running()).toBe(false);
  });

  test('an ordinary init container failing after a sidecar fails the pod and stops the sidecar', async () => {
    await runtime.api.createNamespacedPod({
      namespace: NS,
      body: pod('init-fails', [sidecar('service', `echo $$$$; ${untilStopped}`), init('setup', 'exit 2')], 'echo should-not-run'),
    });
    const running = await sidecarRunning('init-fails');
    const done = await podWhen('init-fails', (p) => ended(p) && p.status?.initContainerStatuses?.[0]?.state?.terminated !== undefined, 'to end, its sidecar stopped');
    expect(done.status?.phase).toBe('Failed');
    expect(done.status?.initContainerStatuses?.[1]?.state?.terminated?.exitCode).toBe(2);
    expect(done.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('PodInitializing');
    expect(await running()).toBe(false);
  });
});

describe('the API, whatever the runtime', () => {
  const kube = embeddedClusterForFile(`${NS}-api`);
  const refusal = async (body: V1Pod) => String(((await kube.api.createNamespacedPod({ namespace: `${NS}-api`, body }).catch((e: unknown) => e)) as { body?: unknown }).body);

  test('restartPolicy is for init containers only, and only Always', async () => {
    const image = 'alpine:3.20';
    const onContainer: V1Pod = { metadata: { name: 'bad-main' }, spec: { containers: [sh(image, 'step', 'true', { restartPolicy: 'Always' })] } };
    expect(await refusal(onContainer)).toContain('spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers');
    const onInit: V1Pod = { metadata: { name: 'bad-init' }, spec: { initContainers: [sh(image, 'setup', 'true', { restartPolicy: 'OnFailure' })], containers: [sh(image, 'step', 'true')] } };
    expect(await refusal(onInit)).toContain('spec.initContainers[0].restartPolicy: Unsupported value: \\"OnFailure\\": supported values: \\"Always\\"');
  });
});
