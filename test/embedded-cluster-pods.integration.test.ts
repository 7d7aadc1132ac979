/**
 * Pods on one embedded cluster (process runtime, fast timings), each subject below in a namespace
 * of its own: they used to be a file each, each starting its own cluster; none needs a cluster
 * fresh, and none looks past its namespace (no node-wide counts, no cluster-wide lists). The
 * events come last: their pods' failing pulls go on in the background (the cluster runs in this
 * process), which took the time of the output order's 20 pods on a loaded machine.
 */
import type { V1Pod, V1PersistentVolumeClaim, CoreV1Event } from '@kubernetes/client-node';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { waitFor } from './fixtures/wait-for.js';
import { homedir } from 'node:os';
import { buildSelector, cacheSecretManifest, gitCredentialsManifest, GIT_TOKEN_KEY, kubeStepCluster, stepPodManifest, succeededSteps, workspaceClaimManifest, type StepCluster, Annotations, Labels, labelValue, kubeClients, markStepFinished, stepPodName, MANAGED_BY } from '../lib/kube/index.js';
import { fakeStepCluster } from '../lib/kube/fake-cluster.js';
import { parseImageReference } from '../lib/pipeline/index.js';
import type { ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { sourceUploader } from '../lib/local/source/source-upload.js';
import type { StepInput } from '../lib/workflow/state-data.js';
import type { TaskDeps } from '../lib/workflow/task-deps.js';
import { NEEDS_POLL_SECONDS, waitForNeeds } from '../lib/workflow/tasks/wait-for-needs.js';
import { SHAPES, eventShape, shapeOf } from './fixtures/kube/event-shapes.js';

const cluster = embeddedClusterForFile('events', 'output-order', 'process-home', 'contract', 'upload', 'needs');

/**
 * Process mode keeps a container's stdout and stderr in the order written, by line, as a CRI
 * runtime's FIFO and a terminal do: `echo out1; echo err1 >&2; echo out2` logs out1, err1, out2,
 * every time (a runner reading two pipes would sometimes put err1 after out2).
 */
describe('container output order', () => {
  const NS = 'output-order';
  const kube = cluster;

  async function logOf(name: string, script: string): Promise<string> {
    const body: V1Pod = { metadata: { name }, spec: { restartPolicy: 'Never', containers: [{ name: 'step', image: 'alpine:3.20', command: ['/bin/sh', '-c', script] }] } };
    await kube.api.createNamespacedPod({ namespace: NS, body });
    await waitFor(async () => ['Succeeded', 'Failed'].includes((await kube.api.readNamespacedPod({ name, namespace: NS })).status?.phase ?? ''), { timeoutMs: 15_000, what: `pod ${name} to end` });
    return kube.api.readNamespacedPodLog({ name, namespace: NS, container: 'step' });
  }

  test('stdout and stderr lines stay in the order written, pod after pod', async () => {
    const logs = [];
    for (let i = 0; i < 20; i++) logs.push(await logOf(`order-${i}`, 'echo out1; echo err1 >&2; echo out2'));
    expect(logs).toEqual(Array(20).fill('out1\nerr1\nout2\n'));
  });

  test('so do writes to /dev/stdout and /dev/stderr by path, and a burst is kept whole', async () => {
    expect(await logOf('by-path', 'echo a > /dev/stdout; echo b > /dev/stderr; echo c')).toBe('a\nb\nc\n');
    const burst = await logOf('burst', 'i=0; while [ $i -lt 2000 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done');
    const expected = Array.from({ length: 2000 }, (_, i) => `out ${i}\nerr ${i}\n`).join('');
    expect(burst).toBe(expected);
  });
});

/**
 * Process mode (no container runtime): a container's processes run on this machine, but never
 * with the user's home. Each container gets a home of its own, as an image's filesystem gives it
 * one, so a step cannot read ~/.npmrc, ~/.aws or ~/.ssh here any more than it could on EKS; and
 * nothing of the user's name or home reaches the step's environment.
 */
describe("a process container's home", () => {
  const NS = 'process-home';
  const kube = cluster;

  const show = 'echo "HOME=$HOME"; echo "USER=${USER:-}"; touch "$HOME/mine"; ls -A "$HOME"';

  async function logsOf(name: string, containers: string[]): Promise<string[]> {
    await waitFor(
      async () => {
        const pod = await kube.api.readNamespacedPod({ name, namespace: NS });
        return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' ? pod : undefined;
      },
      { timeoutMs: 15_000, what: `pod ${name} to end` },
    );
    return Promise.all(containers.map((container) => kube.api.readNamespacedPodLog({ name, namespace: NS, container })));
  }

  test('every container has a home of its own, never the user\'s, unless the pod sets HOME', async () => {
    const body: V1Pod = {
      metadata: { name: 'homes' },
      spec: {
        restartPolicy: 'Never',
        initContainers: [{ name: 'first', image: 'alpine:3.20', command: ['/bin/sh', '-c', show] }],
        containers: [
          { name: 'step', image: 'alpine:3.20', command: ['/bin/sh', '-c', show] },
          { name: 'given', image: 'alpine:3.20', command: ['/bin/sh', '-c', 'echo "HOME=$HOME"'], env: [{ name: 'HOME', value: '/tmp' }] },
        ],
      },
    };
    await kube.api.createNamespacedPod({ namespace: NS, body });
    const [first, step, given] = await logsOf('homes', ['first', 'step', 'given']);

    const homeOf = (log: string) => /^HOME=(.*)$/m.exec(log)?.[1];
    for (const log of [first!, step!]) {
      expect(homeOf(log)).toBeDefined();
      expect(homeOf(log)).not.toBe(homedir());
      expect(homeOf(log)!.startsWith(kube.cluster.stateDir)).toBe(true);
      expect(log).toContain('USER=\n');
      // Empty but for what the container itself wrote: nothing of the user's.
      expect(log.trim().split('\n').slice(2)).toEqual(['mine']);
    }
    expect(homeOf(first!)).not.toBe(homeOf(step!));
    expect(given).toBe('HOME=/tmp\n');
  });
});

/**
 * The in-memory StepCluster (lib/kube/fake-cluster.ts) answers as the client-node one does over
 * HTTP: one script of the requests the tasks make, run on both, must read the same. The workflow's
 * unit tests stand on the fake, so what it says of adoption, the build's objects and its Secrets
 * is held here to what the adapter says against the embedded cluster.
 */
describe('the in-memory StepCluster against the adapter', () => {
  const NS = 'contract';
  const kube = cluster;

  /** The same manifest, claimed by another build. */
  function ofBuild<T extends V1Pod | V1PersistentVolumeClaim>(object: T, build: string): T {
    const metadata = object.metadata!;
    return { ...object, metadata: { ...metadata, labels: { ...metadata.labels, [Labels.build]: labelValue(build) }, annotations: { ...metadata.annotations, [Annotations.build]: build } } };
  }

  /** Each request's answer, as what a task reads of it: an adoption, a count, a value, an Error's name. */
  async function script(cluster: StepCluster, build: string): Promise<[string, unknown][]> {
    const said: [string, unknown][] = [];
    const ask = async (what: string, request: () => Promise<unknown>) => {
      try {
        said.push([what, await request()]);
      } catch (error) {
        said.push([what, { threw: (error as Error).name }]);
      }
    };
    const pod = stepPodManifest({ buildId: build, step: { name: 'unit', image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'), commands: ['true'], env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [] }, namespace: NS });
    const podName = pod.metadata!.name!;
    await ask('launch', async () => (await cluster.launchPod(pod)).adopted);
    await ask('launch again', async () => (await cluster.launchPod(pod)).adopted);
    await ask('launch over another build\'s pod', async () => (await cluster.launchPod(ofBuild(pod, `${build}-other`))).adopted);
    await ask('list the build\'s pods', async () => (await cluster.listPods(NS, buildSelector(build))).map((p) => p.metadata?.name));
    await ask('observe a pod that is not there', async () => {
      const { pod: seen, events } = await cluster.observePod(NS, `${podName}-gone`);
      return { pod: seen, events };
    });
    await ask('read the log of a pod that is not there', () => cluster.readLog(NS, `${podName}-gone`));
    await ask('read the previous run of a step never restarted', () => cluster.readLog(NS, podName, undefined, { previous: true }));

    const claim = workspaceClaimManifest({ buildId: build, namespace: NS, settings: { size: '1Gi', accessMode: 'ReadWriteOnce' }, deadlineSeconds: 3600 });
    const claimName = claim.metadata!.name!;
    await ask('claim', async () => (await cluster.ensureWorkspaceClaim(claim)).adopted);
    await ask('claim again', async () => (await cluster.ensureWorkspaceClaim(claim)).adopted);
    await ask('claim over another build\'s claim', async () => (await cluster.ensureWorkspaceClaim(ofBuild(claim, `${build}-other`))).adopted);
    await ask('the claim\'s node before any pod mounts it', () => cluster.workspaceNode(NS, claimName));

    const git = gitCredentialsManifest({ buildId: build, namespace: NS, token: 'token-one', expiresAt: '2030-01-01T00:00:00.000Z', deadlineSeconds: 3600 });
    const gitName = git.metadata!.name!;
    const token = [{ env: 'TOKEN', secret: gitName, key: GIT_TOKEN_KEY }];
    await ask('store the clone\'s credentials', () => cluster.ensureGitCredentials(git));
    await ask('store them again (kept)', () => cluster.ensureGitCredentials({ ...git, stringData: { [GIT_TOKEN_KEY]: 'token-other' } }));
    await ask('read the token', () => cluster.readSecretValues(NS, token));
    await ask('its expiry', () => cluster.gitTokenExpiry(NS, gitName));
    await ask('renew it', () => cluster.renewGitCredentials(NS, gitName, { token: 'token-two', expiresAt: '2030-01-01T01:00:00.000Z' }));
    await ask('read the renewed token', () => cluster.readSecretValues(NS, token));
    await ask('its new expiry', () => cluster.gitTokenExpiry(NS, gitName));
    await ask('the expiry of a Secret that is not there', () => cluster.gitTokenExpiry(NS, 'no-such-secret'));

    const cache = cacheSecretManifest({ buildId: build, namespace: NS, podName, urls: { SAVE_0: 'https://old/save' }, signing: { SAVE_0: { how: 'put-new', object: 'cache/k', seconds: 7200 } } });
    const cacheName = cache.metadata!.name!;
    await ask('store the cache URLs', () => cluster.ensureCacheSecret(cache));
    await ask('their signing', () => cluster.cacheSecretSigning(NS, cacheName));
    await ask('sign them again', () => cluster.replaceCacheSecretUrls(NS, cacheName, { SAVE_0: 'https://new/save' }));
    await ask('read them', () => cluster.readSecretValues(NS, [{ env: 'SAVE', secret: cacheName, key: 'SAVE_0' }]));

    await ask('record the step succeeded', () => cluster.recordStepSucceeded(NS, claimName, 'unit', new Date('2030-01-01T00:00:00Z')));
    await ask('keep the failed build\'s objects', async () => {
      const kept = await cluster.keepBuildObjects(NS, build, claimName, { now: new Date(), seconds: 600 });
      return { succeeded: [...succeededSteps(kept.claim)], keptSecrets: kept.keptSecrets };
    });
    await ask('mark the pod finished', () => cluster.markStepFinished(NS, podName, new Date('2030-01-01T00:00:00Z')));
    await ask('its mark', async () => (await cluster.listPods(NS, buildSelector(build))).map((p) => p.metadata?.annotations?.[Annotations.finished]));
    await ask('delete the pod', () => cluster.deletePod(NS, podName));
    await ask('mark a pod that is not there finished', () => cluster.markStepFinished(NS, podName, new Date('2030-01-01T00:00:00Z')));
    await ask('delete the build\'s Secrets', () => cluster.deleteBuildObjects('secret', NS, build));
    await ask('sign the URLs of a Secret that is gone', () => cluster.replaceCacheSecretUrls(NS, cacheName, { SAVE_0: 'https://newer/save' }));
    await ask('the signing of a Secret that is gone', () => cluster.cacheSecretSigning(NS, cacheName));
    await ask('delete the build\'s claims', () => cluster.deleteBuildObjects('claim', NS, build));
    await ask('delete a pod that is not there', () => cluster.deletePod(NS, `${podName}-gone`));
    return said;
  }

  describe('the in-memory StepCluster', () => {
    it('answers the tasks\' requests as the client-node StepCluster does against the embedded cluster', async () => {
      const overHttp = await script(kubeStepCluster(async () => kube.api), 'b-http');
      const inMemory = await script(fakeStepCluster(), 'b-http');

      expect(inMemory).toEqual(overHttp);
      // Not a script whose every answer is empty: the adoptions and refusals are there.
      expect(Object.fromEntries(overHttp)).toMatchObject({
        'launch again': true,
        'launch over another build\'s pod': { threw: 'PodConfigError' },
        'claim over another build\'s claim': { threw: 'WorkspaceUnavailable' },
        'read the renewed token': ['token-two'],
        'its mark': ['2030-01-01T00:00:00.000Z'],
      });
    });
  });
});

/**
 * The sending side of an uploaded source (lib/local/source/source-upload.ts), on the embedded cluster:
 * it goes only to pods that check out, once their clone container runs, and tells the person
 * running the build when it cannot send, rather than leaving the clone to wait in silence.
 */
describe('the source upload', () => {
  const NS = 'upload';
  const kube = cluster;

  /** LaunchStep's exit as the executor reports it, for a step that checks out or not. */
  function launched(podName: string, step: string, checkoutStep?: string): ExecutionEvent {
    const settings = { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120, ...(checkoutStep ? { checkoutStep } : {}) };
    return {
      type: 'StateExited',
      timestamp: Date.now(),
      state: { name: 'LaunchStep', type: 'Task', output: { namespace: NS, step: { name: step }, settings, poll: { podName } } },
    };
  }

  async function runningPod(name: string): Promise<void> {
    const body: V1Pod = {
      metadata: { name },
      spec: { restartPolicy: 'Never', containers: [{ name: 'step', image: 'alpine/git:v2.54.0', command: ['/bin/sh', '-c', 'sleep 30'] }] },
    };
    await kube.api.createNamespacedPod({ namespace: NS, body });
    await waitFor(
      async () => (await kube.api.readNamespacedPod({ namespace: NS, name })).status?.containerStatuses?.[0]?.state?.running,
      { timeoutMs: 10_000, what: `pod ${name} running` },
    );
  }

  test('says why it could not send, naming the pod', async () => {
    await runningPod('clone-a');
    const lines: string[] = [];
    const uploader = sourceUploader({ kubeConfig: kube.cluster.kubeConfig(), url: 'file:///no/such/snapshot.git', depth: 1, report: (l) => lines.push(l), pollMs: 20 });
    uploader.onEvent(launched('clone-a', 'clone', 'clone'));
    await uploader.dispose();
    expect(lines).toEqual([expect.stringMatching(/^Could not send the source to pod clone-a: could not pack the source: fatal: '\/no\/such\/snapshot.git' does not appear to be a git repository; fatal: Could not read from remote repository.$/)]);
  });

  test('sends nothing to a step that does not check out, nor to a pod that is gone', async () => {
    const lines: string[] = [];
    const uploader = sourceUploader({ kubeConfig: kube.cluster.kubeConfig(), url: 'file:///no/such/snapshot.git', depth: 1, report: (l) => lines.push(l), pollMs: 20 });
    uploader.onEvent(launched('test-pod', 'test', 'clone'));
    uploader.onEvent(launched('never-made', 'clone', 'clone'));
    uploader.onEvent({ type: 'StateEntered', timestamp: Date.now(), state: { name: 'LaunchStep', type: 'Task' } });
    await uploader.dispose();
    expect(lines).toEqual([]);
  });
});

describe('waiting for needs on the embedded cluster', () => {
  const env = cluster;
  const clients = () => kubeClients(async () => env.cluster.kubeConfig());
  const input = (runningWatchSeconds: number): StepInput => ({
    build: { id: 'b1' },
    namespace: 'needs',
    settings: { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120, runningWatchSeconds },
    step: { name: 'e2e', image: 'alpine', imageRef: parseImageReference('alpine'), commands: ['true'], env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [], needs: ['unit'] },
    index: 1,
  });
  const deps = (overrides: Partial<TaskDeps> = {}): TaskDeps => {
    const kube = clients();
    return { ...kube, logs: undefined as never, now: () => new Date(), log: { info: () => {}, warn: () => {} }, ...overrides };
  };

  it('looks again at once after a watch that lasted its time', async () => {
    const state = await waitForNeeds(input(1), deps());
    expect(state).toMatchObject({ met: false, waitingFor: ['unit'], nextPollSeconds: 0, checks: 1 });
  });

  it('waits a few seconds before looking again when no watch could be opened, rather than spin', async () => {
    const state = await waitForNeeds(input(240), deps({ watchPods: async () => undefined }));
    expect(state).toMatchObject({ met: false, waitingFor: ['unit'], nextPollSeconds: NEEDS_POLL_SECONDS });
  });

  it('answers the moment the needed step\'s succeeded pod is marked finished by its FinishStep, not before', async () => {
    const name = stepPodName('b1', 'unit');
    await env.api.createNamespacedPod({
      namespace: 'needs',
      body: {
        metadata: { name, labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: 'b1', [Labels.step]: 'unit' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'step', image: 'alpine:3.20', command: ['sh', '-c', 'true'] }] },
      },
    });
    await waitFor(async () => (await env.api.readNamespacedPod({ name, namespace: 'needs' })).status?.phase === 'Succeeded', { timeoutMs: 30_000, what: 'the pod to succeed' });
    // Succeeded, not yet finished: the watch's time (1 s) ends the look without the needs met.
    expect(await waitForNeeds(input(1), deps())).toMatchObject({ met: false, waitingFor: ['unit'] });

    const waiting = waitForNeeds(input(30), deps());
    expect(await markStepFinished(env.api, 'needs', name, new Date())).toBe(true);
    expect(await waiting).toMatchObject({ met: true, done: ['unit'], waitingFor: [], nextPollSeconds: 0 });
  });
});

/**
 * Events on the embedded cluster in the shapes a real one writes them (test/fixtures/kube/
 * event-shapes.json): the scheduler's through events.k8s.io (eventTime, series, action, reporting
 * controller and instance), read through core/v1 as the apiserver converts them and through
 * events.k8s.io/v1 itself; the kubelet's core/v1 Events counted, and combined from similar ones.
 */
describe('events', () => {
  const NS = 'events';
  const kube = cluster;
  const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

  async function podEvents(pod: string, reason?: string): Promise<CoreV1Event[]> {
    const fieldSelector = `involvedObject.name=${pod}${reason ? `,reason=${reason}` : ''}`;
    return (await kube.api.listNamespacedEvent({ namespace: NS, fieldSelector })).items;
  }

  /** The raw JSON the API sends, not client-node's reading of it. */
  async function getJson<T>(path: string): Promise<T> {
    const res = await fetch(`${kube.cluster.url}${path}`);
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  }

  async function eventsOf(pod: string, n: number, what: string, reason = 'FailedScheduling'): Promise<CoreV1Event[]> {
    return waitFor(async () => {
      const events = await podEvents(pod, reason);
      return events.length >= n && events;
    }, { timeoutMs: 10_000, what });
  }

  function claimingPod(name: string, claims: string[]): V1Pod {
    return {
      metadata: { name },
      spec: {
        restartPolicy: 'Never',
        volumes: claims.map((claimName, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName } })),
        containers: [{ name: 'step', image: 'alpine:3.20', command: ['true'] }],
      },
    };
  }

  const claim = (name: string) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'no-such-class', resources: { requests: { storage: '1Gi' } } } });

  describe('the scheduler records through events.k8s.io', () => {
    const notFound = `0/1 nodes are available: persistentvolumeclaim "first" not found. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`;

    it('FailedScheduling reads through core/v1 with source {}, null timestamps and no count, as the recorded shape', async () => {
      await kube.api.createNamespacedPod({ namespace: NS, body: claimingPod('waits', ['first', 'second']) });
      const [event] = await eventsOf('waits', 1, 'the first FailedScheduling');
      const raw = (await getJson<{ items: Record<string, unknown>[] }>(`/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3Dwaits`)).items[0]!;
      expect(shapeOf(raw)).toEqual(shapeOf(eventShape(SHAPES.failedScheduling)));
      expect(raw).toMatchObject({
        reason: 'FailedScheduling',
        type: 'Warning',
        message: notFound,
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        action: 'Scheduling',
        reportingComponent: 'default-scheduler',
        reportingInstance: 'default-scheduler-embedded-control-plane',
      });
      expect(raw).not.toHaveProperty('count');
      expect(raw.eventTime).toMatch(MICRO_TIME);
      expect(event?.metadata?.name).toMatch(/^waits\.[0-9a-f]+$/);
    });

    it('the same event reads through events.k8s.io/v1 as the recorded shape', async () => {
      const list = await getJson<{ kind: string; apiVersion: string; items: Record<string, unknown>[] }>(`/apis/events.k8s.io/v1/namespaces/${NS}/events?fieldSelector=regarding.name%3Dwaits`);
      expect([list.kind, list.apiVersion]).toEqual(['EventList', 'events.k8s.io/v1']);
      const [item] = list.items;
      expect(shapeOf(item)).toEqual(shapeOf(eventShape(SHAPES.failedSchedulingV1)));
      expect(item).toMatchObject({ note: notFound, reportingController: 'default-scheduler', action: 'Scheduling', deprecatedSource: {}, regarding: { kind: 'Pod', name: 'waits' } });
      const one = await getJson<Record<string, unknown>>(`/apis/events.k8s.io/v1/namespaces/${NS}/events/${(item?.metadata as { name: string }).name}`);
      expect(one).toMatchObject({ kind: 'Event', apiVersion: 'events.k8s.io/v1', note: notFound });
    });

    it('a later attempt naming the pod as the first one left it is another Event; the one after, naming it the same, makes it a series', async () => {
      const [first] = await podEvents('waits');
      // Another claim of the pod changes: the scheduler tries again, the verdict is the same.
      await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claim('second') });
      const [, second] = await eventsOf('waits', 2, 'the second FailedScheduling');
      const pod = await kube.api.readNamespacedPod({ namespace: NS, name: 'waits' });
      // The first attempt's condition update is the resourceVersion the second one names; the same message leaves the pod as it is.
      expect(second?.involvedObject.resourceVersion).toBe(pod.metadata?.resourceVersion);
      expect(first?.involvedObject.resourceVersion).not.toBe(second?.involvedObject.resourceVersion);
      expect(second?.series).toBeUndefined();

      await kube.api.deleteNamespacedPersistentVolumeClaim({ namespace: NS, name: 'second' });
      const series = await waitFor(async () => (await podEvents('waits')).find((e) => e.series), { timeoutMs: 10_000, what: 'a series' });
      expect(series.metadata?.name).toBe(second?.metadata?.name);
      expect(series.series).toEqual({ count: 2, lastObservedTime: expect.stringMatching(MICRO_TIME) });
      expect(Date.parse(String(series.series?.lastObservedTime))).toBeGreaterThanOrEqual(Date.parse(String(series.eventTime)));
      expect(await podEvents('waits')).toHaveLength(2);
      const raw = (await getJson<{ items: Record<string, unknown>[] }>(`/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3Dwaits`)).items;
      expect(shapeOf(raw.find((e) => e.series))).toEqual(shapeOf(eventShape(SHAPES.failedSchedulingSeries)));
    });

    it('Scheduled names the pod as it was before the binding, action Binding', async () => {
      await kube.api.createNamespacedPod({ namespace: NS, body: claimingPod('placed', []) });
      const [scheduled] = await eventsOf('placed', 1, 'Scheduled', 'Scheduled');
      expect(scheduled).toMatchObject({ action: 'Binding', message: `Successfully assigned ${NS}/placed to embedded-node`, reportingComponent: 'default-scheduler', source: {}, firstTimestamp: null });
      const pod = await kube.api.readNamespacedPod({ namespace: NS, name: 'placed' });
      expect(Number(scheduled?.involvedObject.resourceVersion)).toBeLessThan(Number(pod.metadata?.resourceVersion));
    });

    it('events.k8s.io is discovered, read-only', async () => {
      const groups = await getJson<{ groups: { name: string }[] }>('/apis');
      expect(groups.groups.map((g) => g.name)).toContain('events.k8s.io');
      const resources = await getJson<{ groupVersion: string; resources: { name: string; verbs: string[] }[] }>('/apis/events.k8s.io/v1');
      expect(resources).toMatchObject({ groupVersion: 'events.k8s.io/v1', resources: [{ name: 'events', verbs: ['get', 'list', 'watch'] }] });
      const post = await fetch(`${kube.cluster.url}/apis/events.k8s.io/v1/namespaces/${NS}/events`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
      expect(post.status).toBe(405);
    });

    it('a watch through events.k8s.io/v1 sends the events in that version', async () => {
      const controller = new AbortController();
      const res = await fetch(`${kube.cluster.url}/apis/events.k8s.io/v1/namespaces/${NS}/events?watch=true&fieldSelector=regarding.name%3Dplaced`, { signal: controller.signal });
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      const first = JSON.parse(text.slice(0, text.indexOf('\n'))) as { type: string; object: Record<string, unknown> };
      expect(first).toMatchObject({ type: 'ADDED', object: { apiVersion: 'events.k8s.io/v1', kind: 'Event', reason: 'Scheduled', action: 'Binding' } });
    });
  });

  describe('the kubelet records core/v1 Events as the legacy recorder', () => {
    it('counts a repeated event on one Event, in the recorded shape', async () => {
      await kube.api.createNamespacedPod({
        namespace: NS,
        body: { metadata: { name: 'no-tag' }, spec: { restartPolicy: 'Never', containers: [{ name: 'step', image: 'alpine:3.99-nope', command: ['true'] }] } },
      });
      const repeated = await waitFor(async () => (await podEvents('no-tag', 'Failed')).find((e) => (e.count ?? 0) >= 2), { timeoutMs: 10_000, what: 'a counted Failed' });
      const raw = (await getJson<{ items: Record<string, unknown>[] }>(`/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3Dno-tag`)).items.find((e) => e.metadata && (e.metadata as { name: string }).name === repeated.metadata?.name);
      expect(shapeOf(raw)).toEqual(shapeOf(eventShape(SHAPES.kubeletRepeated)));
      expect(raw).toMatchObject({ source: { component: 'kubelet', host: 'embedded-node' }, eventTime: null, reportingComponent: 'kubelet', reportingInstance: 'embedded-node' });
    });

    it('combines the tenth different message with one reason about one pod into one Event, as on a real cluster', async () => {
      // Eight images that do not exist: eight pull errors, then "Error: ErrImagePull" and "Error: ImagePullBackOff".
      const containers = Array.from({ length: 8 }, (_, i) => ({ name: `c${i}`, image: `alpine:3.99-nope-${i}`, command: ['true'] }));
      await kube.api.createNamespacedPod({ namespace: NS, body: { metadata: { name: 'many' }, spec: { restartPolicy: 'Never', containers } } });
      const combined = await waitFor(async () => (await podEvents('many', 'Failed')).find((e) => e.message?.startsWith('(combined from similar events): ')), {
        timeoutMs: 15_000,
        what: 'a combined Failed event',
      });
      expect(combined).toMatchObject({ type: 'Warning', source: { component: 'kubelet', host: 'embedded-node' }, reportingComponent: '', reportingInstance: '' });
      // Names grow with the recorder's clock: nine different messages had their own Events before it.
      const before = (await podEvents('many', 'Failed')).filter((e) => (e.metadata?.name ?? '') < (combined.metadata?.name ?? ''));
      expect(new Set(before.map((e) => e.message)).size).toBe(9);
      const raw = (await getJson<{ items: Record<string, unknown>[] }>(`/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3Dmany,reason%3DFailed`)).items.find((e) =>
        String(e.message).startsWith('(combined'),
      );
      expect(shapeOf(raw)).toEqual(shapeOf(eventShape(SHAPES.kubeletCombined)));
    });
  });
});
