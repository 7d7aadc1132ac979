/**
 * Init containers on the embedded cluster, over real HTTP: run one by one before the containers,
 * sharing the pod's volumes; a failing one fails the pod (restartPolicy Never) and the containers
 * never start; one whose image cannot be pulled keeps the pod Pending; each has its own status,
 * events (spec.initContainers{NAME}) and log, as the kubelet reports them.
 */
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { waitFor } from './fixtures/wait-for.js';

const NS = 'init';
const kube = embeddedClusterForFile(NS);

const mount = { workingDir: '/workspace', volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }] };

function podWithInits(name: string, inits: { name: string; script: string; image?: string }[], main: string): V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      volumes: [{ name: 'workspace', emptyDir: {} }],
      initContainers: inits.map((c) => ({ name: c.name, image: c.image ?? 'alpine/git:v2.54.0', command: ['/bin/sh', '-c', c.script], ...mount })),
      containers: [{ name: 'step', image: 'alpine:3.20', command: ['/bin/sh', '-c', main], ...mount }],
    },
  };
}

/** The pod once `wanted` holds for it. */
async function podWhen(name: string, wanted: (pod: V1Pod) => boolean, what: string): Promise<V1Pod> {
  return waitFor(
    async () => {
      const pod = await kube.api.readNamespacedPod({ name, namespace: NS });
      return wanted(pod) ? pod : undefined;
    },
    { timeoutMs: 15_000, what: `pod ${name} ${what}` },
  );
}

async function eventsOf(name: string): Promise<CoreV1Event[]> {
  return (await kube.api.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=${name}` })).items;
}

test('runs init containers in order, each to its end, before the container, sharing the volume', async () => {
  const inits = [
    // The second must not start before the first is done: it finds the first one's file complete.
    { name: 'first', script: 'sleep 0.3; echo one > order' },
    { name: 'second', script: 'test "$(cat order)" = one && echo two >> order' },
  ];
  await kube.api.createNamespacedPod({ namespace: NS, body: podWithInits('ordered', inits, 'cat order') });
  const pod = await podWhen('ordered', (p) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed', 'to end');

  expect(pod.status?.phase).toBe('Succeeded');
  expect(pod.status?.initContainerStatuses?.map((s) => [s.name, s.state?.terminated?.exitCode, s.state?.terminated?.reason, s.ready])).toEqual([
    ['first', 0, 'Completed', true],
    ['second', 0, 'Completed', true],
  ]);
  expect(pod.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
  expect(await kube.api.readNamespacedPodLog({ name: 'ordered', namespace: NS, container: 'step' })).toBe('one\ntwo\n');

  const started = (await eventsOf('ordered')).filter((e) => e.reason === 'Started').map((e) => e.involvedObject.fieldPath);
  expect(started).toEqual(['spec.initContainers{first}', 'spec.initContainers{second}', 'spec.containers{step}']);
});

test('an init container that fails fails the pod, and the container never starts', async () => {
  const inits = [{ name: 'clone', script: 'echo "fatal: repository not found" >&2; exit 128' }];
  await kube.api.createNamespacedPod({ namespace: NS, body: podWithInits('init-fails', inits, 'echo should-not-run > ran') });
  const pod = await podWhen('init-fails', (p) => p.status?.phase === 'Failed', 'to fail');

  expect(pod.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 128, reason: 'Error' });
  expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('PodInitializing');
  expect(pod.status?.conditions?.find((c) => c.type === 'Initialized')).toMatchObject({
    status: 'False',
    reason: 'ContainersNotInitialized',
    message: 'containers with incomplete status: [clone]',
  });
  expect(await kube.api.readNamespacedPodLog({ name: 'init-fails', namespace: NS, container: 'clone' })).toContain('fatal: repository not found');
  // The step container never ran, so it has no log yet, in the kubelet's words.
  const refused = await kube.api.readNamespacedPodLog({ name: 'init-fails', namespace: NS, container: 'step' }).catch((e: unknown) => e);
  expect(String((refused as { body?: unknown }).body ?? refused)).toContain('is waiting to start: PodInitializing');
});

test('an init container whose image cannot be pulled keeps the pod Pending, its events on spec.initContainers', async () => {
  const inits = [{ name: 'clone', script: 'true', image: 'alpine/git:v0.0.0-nope' }];
  await kube.api.createNamespacedPod({ namespace: NS, body: podWithInits('init-pull', inits, 'true') });
  const pod = await podWhen('init-pull', (p) => p.status?.initContainerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 'to back off');

  expect(pod.status?.phase).toBe('Pending');
  expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('PodInitializing');
  const failed = (await eventsOf('init-pull')).find((e) => e.reason === 'Failed' && e.message?.startsWith('Failed to pull image'));
  expect(failed?.involvedObject.fieldPath).toBe('spec.initContainers{clone}');
  expect(failed?.message).toContain('alpine/git:v0.0.0-nope');
});

test('init containers are validated like containers, their names unique across both lists', async () => {
  const body = podWithInits('dup', [{ name: 'step', script: 'true' }], 'true');
  const error = await kube.api.createNamespacedPod({ namespace: NS, body }).catch((e: unknown) => e);
  expect(String((error as { body?: unknown }).body)).toContain('spec.containers[0].name: Duplicate value: \\"step\\"');
});
