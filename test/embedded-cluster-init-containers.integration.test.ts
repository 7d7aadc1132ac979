/**
 * Init containers on the embedded cluster, over real HTTP, on both runtimes: run one by one
 * before the containers, sharing the pod's volumes; a failing one fails the pod (restartPolicy
 * Never) and the containers never start; one whose image cannot be pulled keeps the pod Pending;
 * each has its own status, events (spec.initContainers{NAME}) and log, as the kubelet reports them.
 */
import { jest } from '@jest/globals';
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { describeOnRuntimes, podWhen as podWhenIn } from './fixtures/kubelet-runtimes.js';

// Docker's containers start in hundreds of milliseconds, and many times that on a loaded CI
// machine: the waits below are upper bounds for a hang, not expectations of speed.
jest.setTimeout(120_000);

const NS = 'init';

const mount = { workingDir: '/workspace', volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }] };

interface Images {
  init: string;
  step: string;
}

function podWithInits(images: Images, name: string, inits: { name: string; script: string; image?: string }[], main: string): V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      volumes: [{ name: 'workspace', emptyDir: {} }],
      initContainers: inits.map((c) => ({ name: c.name, image: c.image ?? images.init, command: ['/bin/sh', '-c', c.script], ...mount })),
      containers: [{ name: 'step', image: images.step, command: ['/bin/sh', '-c', main], ...mount }],
    },
  };
}

describeOnRuntimes(NS, (runtime) => {
  // The init containers run a git image, as a build's clone does; both images have a sh.
  const pod = (name: string, inits: { name: string; script: string; image?: string }[], main: string) =>
    podWithInits({ init: runtime.images.git, step: runtime.images.shell }, name, inits, main);

  const podWhen = (name: string, wanted: (pod: V1Pod) => boolean, what: string, timeoutMs?: number) => podWhenIn(runtime.api, NS, name, wanted, what, timeoutMs);

  async function eventsOf(name: string): Promise<CoreV1Event[]> {
    return (await runtime.api.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=${name}` })).items;
  }

  test('runs init containers in order, each to its end, before the container, sharing the volume', async () => {
    const inits = [
      // The second must not start before the first is done: it finds the first one's file complete.
      { name: 'first', script: 'sleep 0.3; echo one > order' },
      { name: 'second', script: 'test "$(cat order)" = one && echo two >> order' },
    ];
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('ordered', inits, 'cat order') });
    const done = await podWhen('ordered', (p) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed', 'to end');

    expect(done.status?.phase).toBe('Succeeded');
    expect(done.status?.initContainerStatuses?.map((s) => [s.name, s.state?.terminated?.exitCode, s.state?.terminated?.reason, s.ready])).toEqual([
      ['first', 0, 'Completed', true],
      ['second', 0, 'Completed', true],
    ]);
    expect(done.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
    expect(await runtime.api.readNamespacedPodLog({ name: 'ordered', namespace: NS, container: 'step' })).toBe('one\ntwo\n');

    const started = (await eventsOf('ordered')).filter((e) => e.reason === 'Started').map((e) => e.involvedObject.fieldPath);
    expect(started).toEqual(['spec.initContainers{first}', 'spec.initContainers{second}', 'spec.containers{step}']);
  });

  test('an init container that fails fails the pod, and the container never starts', async () => {
    const inits = [{ name: 'clone', script: 'echo "fatal: repository not found" >&2; exit 128' }];
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('init-fails', inits, 'echo should-not-run > ran') });
    const failed = await podWhen('init-fails', (p) => p.status?.phase === 'Failed', 'to fail');

    expect(failed.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 128, reason: 'Error' });
    expect(failed.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('PodInitializing');
    expect(failed.status?.conditions?.find((c) => c.type === 'Initialized')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotInitialized',
      message: 'containers with incomplete status: [clone]',
    });
    expect(await runtime.api.readNamespacedPodLog({ name: 'init-fails', namespace: NS, container: 'clone' })).toContain('fatal: repository not found');
    // The step container never ran, so it has no log yet, in the kubelet's words.
    const refused = await runtime.api.readNamespacedPodLog({ name: 'init-fails', namespace: NS, container: 'step' }).catch((e: unknown) => e);
    expect(String((refused as { body?: unknown }).body ?? refused)).toContain('is waiting to start: PodInitializing');
  });

  test('an init container whose image cannot be pulled keeps the pod Pending, its events on spec.initContainers', async () => {
    // The pull's words are the runtime's (the catalog's, the daemon's); where they are reported is the kubelet's.
    const image = runtime.images.unpullable;
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('init-pull', [{ name: 'clone', script: 'true', image }], 'true') });
    const pending = await podWhen('init-pull', (p) => p.status?.initContainerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 'to back off');

    expect(pending.status?.phase).toBe('Pending');
    expect(pending.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('PodInitializing');
    const failed = (await eventsOf('init-pull')).find((e) => e.reason === 'Failed' && e.message?.startsWith('Failed to pull image'));
    expect(failed?.involvedObject.fieldPath).toBe('spec.initContainers{clone}');
    expect(failed?.message).toContain(image);
    await runtime.api.deleteNamespacedPod({ name: 'init-pull', namespace: NS, gracePeriodSeconds: 0 });
  });
});

describe('the API, whatever the runtime', () => {
  const kube = embeddedClusterForFile(`${NS}-api`);

  test('init containers are validated like containers, their names unique across both lists', async () => {
    const body = podWithInits({ init: 'alpine/git:v2.54.0', step: 'alpine:3.20' }, 'dup', [{ name: 'step', script: 'true' }], 'true');
    const error = await kube.api.createNamespacedPod({ namespace: `${NS}-api`, body }).catch((e: unknown) => e);
    expect(String((error as { body?: unknown }).body)).toContain('spec.containers[0].name: Duplicate value: \\"step\\"');
  });
});
