/**
 * lib/kube's client over real HTTP, each subject below against its own API (a scripted one, the
 * embedded cluster with fast timings, the embedded cluster with slow pulls), started in its hooks
 * as before: they used to be a file each, which loaded the same modules again; their clusters'
 * settings differ, so none is shared.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { deleteStepPod, launchStepPod, observeStep, readStepLog, stepPodManifest, KubernetesUnavailable, PodConfigError, deleteBuildPods, Labels, readWholeStepLog, STEP_CONTAINER, type Observation, podProgress, watchPodsUntil, watchPodUntil } from '../lib/kube/index.js';
import { parseImageReference } from '../lib/pipeline/index.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { FAST_TIMINGS, startEmbeddedCluster, type Fault, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { classifyStep } from '../lib/kube/classify.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { type Step, DEFAULT_STEP_TIMEOUT_SECONDS } from '../lib/pipeline/types.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { openWatch } from './fixtures/watch-events.js';
import { waitFor } from './fixtures/wait-for.js';

/**
 * lib/kube against a scripted Kubernetes API on loopback: the real client, real HTTP, and the
 * failures a real API server or its load balancer produce (503, 429 + Retry-After, dropped
 * connections, Status bodies), which the embedded cluster never produces on its own.
 */
describe('against a scripted API', () => {
  type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

  interface Scripted {
    api: CoreV1Api;
    requests: { method: string; url: string }[];
    close(): Promise<void>;
  }

  /** Serves the handlers in turn, one per request (the last one repeats). */
  async function scriptedApi(...handlers: Handler[]): Promise<Scripted> {
    const requests: { method: string; url: string }[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        requests.push({ method: req.method ?? '', url: req.url ?? '' });
        const handler = handlers.length > 1 ? handlers.shift()! : handlers[0]!;
        handler(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      // client-node refuses plain http unless TLS verification is explicitly off.
      clusters: [{ name: 'scripted', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'c', cluster: 'scripted', user: 'u' }],
      currentContext: 'c',
    });
    return {
      api: kubeConfig.makeApiClient(CoreV1Api),
      requests,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  const json =
    (code: number, object: unknown, headers: Record<string, string> = {}): Handler =>
    (_req, res) => {
      res.writeHead(code, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(object));
    };
  const status = (code: number, reason: string, message: string, headers: Record<string, string> = {}) =>
    json(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code }, headers);
  const dropConnection: Handler = (req) => req.socket.destroy();

  const pod = (name: string, uid = 'uid-1') => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ci', uid },
    status: { phase: 'Pending' },
  });
  const fastRetry = { sleep: async () => {} };

  let scripted: Scripted | undefined;
  afterEach(async () => {
    await scripted?.close();
    scripted = undefined;
  });

  describe('lib/kube over HTTP', () => {
    it('retries a 503 and a dropped connection, then reads the pod', async () => {
      scripted = await scriptedApi(
        status(503, 'ServiceUnavailable', 'apiserver is shutting down'),
        dropConnection,
        json(200, pod('p')),
        json(200, { kind: 'EventList', apiVersion: 'v1', metadata: {}, items: [] }),
      );
      const observation = await observeStep(scripted.api, 'ci', 'p', { now: () => new Date(0), retry: fastRetry });
      expect(observation.pod?.metadata?.name).toBe('p');
      expect(scripted.requests.length).toBeGreaterThanOrEqual(4);
    });

    it('waits as long as Retry-After says on a 429', async () => {
      scripted = await scriptedApi(status(429, 'TooManyRequests', 'slow down', { 'retry-after': '1' }), json(200, pod('p')));
      const waits: number[] = [];
      const removed = await deleteStepPod(scripted.api, 'ci', 'p', { sleep: async (ms) => void waits.push(ms) });
      expect(removed).toBe(true);
      expect(waits).toEqual([1000]);
      expect(scripted.requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
    });

    it('ends in KubernetesUnavailable with the server words when the API keeps failing', async () => {
      scripted = await scriptedApi(status(503, 'ServiceUnavailable', 'etcd cluster is unavailable'));
      const error = await observeStep(scripted.api, 'ci', 'p', { retry: fastRetry }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubernetesUnavailable);
      expect((error as Error).message).toMatch(/failed 5 times; last error: 503 ServiceUnavailable: etcd cluster is unavailable/);
    });

    it('reports a pod that is gone as null and asks for its events with an escaped field selector', async () => {
      scripted = await scriptedApi((req, res, body) => {
        if (req.url?.includes('/events')) return json(200, { kind: 'EventList', apiVersion: 'v1', metadata: {}, items: [] })(req, res, body);
        return status(404, 'NotFound', 'pods "a,b=c" not found')(req, res, body);
      });
      const observation = await observeStep(scripted.api, 'ci', 'a,b=c', { now: () => new Date(5), retry: fastRetry });
      expect(observation).toEqual({ pod: null, events: [], observedAt: new Date(5) });
      expect(scripted.requests).toHaveLength(2);
      const eventsUrl = new URL(scripted.requests.find((r) => r.url.includes('/events'))!.url, 'http://x');
      expect(eventsUrl.pathname).toBe('/api/v1/namespaces/ci/events');
      expect(eventsUrl.searchParams.get('fieldSelector')).toBe('involvedObject.name=a\\,b\\=c');
    });

    it('turns a 422 on create into PodConfigError with the API message, without retrying', async () => {
      scripted = await scriptedApi(
        status(422, 'Invalid', 'Pod "p" is invalid: spec.containers[0].image: Required value'),
      );
      const error = await launchStepPod(
        scripted.api,
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ci' }, spec: { containers: [] } },
        fastRetry,
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PodConfigError);
      expect((error as Error).message).toContain('spec.containers[0].image: Required value');
      expect(scripted.requests).toHaveLength(1);
    });

    it.each([
      ['Pod Security', 'pods "p" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true (pod or container "step" must set securityContext.runAsNonRoot=true)'],
      ['a ResourceQuota that wants limits', 'pods "p" is forbidden: failed quota: compute-resources: must specify limits.cpu for: step; limits.memory for: step'],
      ['a LimitRange', 'pods "p" is forbidden: maximum cpu usage per Container is 2, but limit is 4'],
      ['a validating webhook', 'admission webhook "validation.gatekeeper.sh" denied the request: [must-have-team] you must provide labels: {"team"}'],
    ])('fails a pod refused at admission by %s at once, as PodConfigError with the API server\'s words', async (_rule, message) => {
      scripted = await scriptedApi(status(403, 'Forbidden', message));
      const manifest = stepPodManifest({ buildId: 'b-1', namespace: 'ci', step: { name: 'test', image: 'node:22-alpine', imageRef: parseImageReference('node:22-alpine'), commands: ['npm test'], env: {}, secrets: [], pull: 'if-not-present', timeoutSeconds: 600 } });
      const error = await launchStepPod(scripted.api, manifest, fastRetry).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PodConfigError);
      expect((error as Error).message).toMatch(
        /^Namespace "ci" refused the pod for step "test" of build "b-1" at admission \(Pod Security, a ResourceQuota or LimitRange, or an admission webhook\): 403 Forbidden: /,
      );
      expect((error as Error).message.endsWith(message)).toBe(true);
      expect(scripted.requests).toHaveLength(1);
    });

    it.each([
      ['the runner may not create pods (RBAC)', 'pods is forbidden: User "system:serviceaccount:ci:runner" cannot create resource "pods" in API group "" in the namespace "ci"'],
      ['the quota is used up for now', 'pods "p" is forbidden: exceeded quota: compute-resources, requested: pods=1, used: pods=10, limited: pods=10'],
    ])('leaves a 403 that is not about the pod itself as KubernetesUnavailable: %s', async (_why, message) => {
      scripted = await scriptedApi(status(403, 'Forbidden', message));
      const error = await launchStepPod(scripted.api, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ci' }, spec: { containers: [] } }, fastRetry).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(KubernetesUnavailable);
      expect((error as Error).message).toContain(message);
    });

    it('turns a 403 into KubernetesUnavailable naming what was refused', async () => {
      scripted = await scriptedApi(
        status(403, 'Forbidden', 'pods "p" is forbidden: User "runner" cannot get resource "pods/log"'),
      );
      const error = await readStepLog(scripted.api, 'ci', 'p', {}, fastRetry).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubernetesUnavailable);
      expect((error as Error).message).toBe(
        'The Kubernetes API refused to read log of pod ci/p: 403 Forbidden: pods "p" is forbidden: User "runner" cannot get resource "pods/log"',
      );
    });

    it('asks for a bounded tail of the step container log', async () => {
      scripted = await scriptedApi((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('+ echo hi\nhi\n');
      });
      await expect(readStepLog(scripted.api, 'ci', 'p', { tailLines: 5 }, fastRetry)).resolves.toBe('+ echo hi\nhi\n');
      const url = new URL(scripted.requests[0]!.url, 'http://x');
      expect(url.pathname).toBe('/api/v1/namespaces/ci/pods/p/log');
      expect(url.searchParams.get('container')).toBe('step');
      expect(url.searchParams.get('tailLines')).toBe('5');
      expect(url.searchParams.get('limitBytes')).toBe(String(64 * 1024));
    });
  });
});

/**
 * The step pod operations of lib/kube against the embedded cluster, over HTTP, exactly as they run
 * against EKS: launch, poll, logs, adoption, refusal, loss, cleanup.
 */
describe('step pods on the embedded cluster', () => {
  const NAMESPACE = 'default';

  let cluster: Awaited<ReturnType<typeof startEmbeddedCluster>>;
  let api: CoreV1Api;

  beforeAll(async () => {
    cluster = await startEmbeddedCluster({
      port: 0,
      timings: FAST_TIMINGS,
    });
    api = connect(cluster);
  });

  /** Connects the way `run --kubeconfig FILE` does, through the kubeconfig file a user would get. */
  function connect(embedded: { kubeconfigYaml(): string }): CoreV1Api {
    const dir = mkdtempSync(join(tmpdir(), 'kube-step-pods-'));
    try {
      const file = join(dir, 'kubeconfig');
      writeFileSync(file, embedded.kubeconfigYaml());
      // Read whole here: the client needs the file no longer.
      return kubeConfigFromFile(file).makeApiClient(CoreV1Api);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  afterAll(async () => {
    await cluster?.stop();
  });

  function step(overrides: Partial<Step> = {}): Step {
    return {
      name: 'greet',
      image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'),
      commands: ['echo hello', 'echo world'],
      env: {},
      pull: 'if-not-present',
      timeoutSeconds: 120,
      secrets: [],
      ...overrides,
    };
  }

  /** Polls the way PollStep does, until `done` holds for an observation; returns every observation seen. */
  async function pollUntil(podName: string, done: (o: Observation) => boolean, timeoutMs = 15_000): Promise<Observation[]> {
    const seen: Observation[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const observation = await observeStep(api, NAMESPACE, podName);
      seen.push(observation);
      if (done(observation)) return seen;
      if (Date.now() > deadline) {
        throw new Error(`gave up waiting on ${podName}; last observation: ${JSON.stringify(observation.pod?.status)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const phase = (o: Observation) => o.pod?.status?.phase;
  const waitingReason = (o: Observation) =>
    o.pod?.status?.containerStatuses?.find((c) => c.name === STEP_CONTAINER)?.state?.waiting?.reason;

  describe('step pods on the embedded cluster', () => {
    it('runs a good step to success and reads its log, commands echoed', async () => {
      const manifest = stepPodManifest({ buildId: 'build-ok', step: step(), namespace: NAMESPACE });
      const podName = manifest.metadata!.name!;
      const { adopted } = await launchStepPod(api, manifest);
      expect(adopted).toBe(false);

      const seen = await pollUntil(podName, (o) => phase(o) === 'Succeeded' || phase(o) === 'Failed');
      const last = seen.at(-1)!;
      expect(phase(last)).toBe('Succeeded');
      expect(classifyStep(last, { step: 'greet', image: 'alpine:3.20' })).toMatchObject({ phase: 'succeeded', exitCode: 0 });

      const tail = await readStepLog(api, NAMESPACE, podName);
      expect(tail).toContain('+ echo hello\nhello\n+ echo world\nworld\n');
      expect(await readStepLog(api, NAMESPACE, podName, { tailLines: 1 })).toBe('world\n');
      expect(await readWholeStepLog(api, NAMESPACE, podName)).toBe(tail);
      expect(last.events.length).toBeGreaterThan(0);
      expect(last.events.every((e) => e.involvedObject.name === podName)).toBe(true);
    });

    it("reaches the shell as written: the kubelet's $(VAR) expansion and $$ escape change nothing of a step's commands or env", async () => {
      const commands = ['echo "pid=$$"', 'echo "$(CI) $$(CI) ${LITERAL}"'];
      const manifest = stepPodManifest({ buildId: 'build-dollars', step: step({ commands, env: { LITERAL: 'a$$b$(CI)' } }), namespace: NAMESPACE, buildEnv: { CI: 'true' } });
      const podName = manifest.metadata!.name!;
      await launchStepPod(api, manifest);
      await pollUntil(podName, (o) => phase(o) === 'Succeeded' || phase(o) === 'Failed');
      const log = await readWholeStepLog(api, NAMESPACE, podName);
      // `$(CI)` is command substitution for the shell (no program CI: an error line, then empty).
      expect(log).toMatch(/^pid=\d+$/m);
      expect(log).toContain('+ echo "$(CI) $$(CI) ${LITERAL}"\n');
      expect(log).toMatch(/^ \d+\(CI\) a\$\$b\$\(CI\)$/m);
    });

    it('sees a missing image in the first observation after the kubelet reports it', async () => {
      const image = 'alpine:no-such-tag-0';
      const manifest = stepPodManifest({ buildId: 'build-pull', step: step({ image }), namespace: NAMESPACE });
      const podName = manifest.metadata!.name!;
      await launchStepPod(api, manifest);

      const seen = await pollUntil(
        podName,
        (o) =>
          ['ErrImagePull', 'ImagePullBackOff'].includes(waitingReason(o) ?? '') ||
          o.events.some((e) => e.reason === 'Failed' && /pull/i.test(e.message ?? '')),
      );
      const first = seen.at(-1)!;
      const status = classifyStep(first, { step: 'greet', image });
      expect(status).toMatchObject({ phase: 'failed', error: 'ImagePullFailed' });
      expect(status.phase === 'failed' && status.cause).toContain(image);
      // Nothing ran, so there is no log to read, and asking for it is not an error.
      expect(await readStepLog(api, NAMESPACE, podName)).toBe('');
    });

    it('adopts its own pod when launched twice', async () => {
      const manifest = stepPodManifest({ buildId: 'build-twice', step: step(), namespace: NAMESPACE });
      const first = await launchStepPod(api, manifest);
      const second = await launchStepPod(api, manifest);
      expect(first.adopted).toBe(false);
      expect(second.adopted).toBe(true);
      expect(second.pod.metadata?.uid).toBe(first.pod.metadata?.uid);
    });

    it('refuses a pod with the same name that belongs to another build', async () => {
      const manifest = stepPodManifest({ buildId: 'build-mine', step: step(), namespace: NAMESPACE });
      const squatter = structuredClone(manifest);
      squatter.metadata!.labels![Labels.build] = 'build-theirs';
      squatter.metadata!.annotations = { 'step-runner.dev/build-id': 'build-theirs' };
      await api.createNamespacedPod({ namespace: NAMESPACE, body: squatter });

      const error = await launchStepPod(api, manifest).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PodConfigError);
      expect((error as Error).message).toContain(`a pod named "${manifest.metadata!.name}" already exists`);
      expect((error as Error).message).toContain('build "build-theirs"');
    });

    it('observes a pod deleted mid-step as gone', async () => {
      const manifest = stepPodManifest({
        buildId: 'build-lost',
        step: step({ commands: ['sleep 30'] }),
        namespace: NAMESPACE,
      });
      const podName = manifest.metadata!.name!;
      await launchStepPod(api, manifest);
      await pollUntil(podName, (o) => phase(o) === 'Running');

      expect(await deleteStepPod(api, NAMESPACE, podName)).toBe(true);
      const seen = await pollUntil(podName, (o) => o.pod === null);
      const gone = seen.at(-1)!;
      expect(gone.pod).toBeNull();
      expect(classifyStep(gone, { step: 'greet', image: 'alpine:3.20' })).toMatchObject({ phase: 'failed', error: 'PodLost' });
      expect(await deleteStepPod(api, NAMESPACE, podName)).toBe(false);
    });

    it('deletes every pod of a build and nothing else', async () => {
      const steps = ['one', 'two', 'three'].map((name) => step({ name, commands: ['sleep 30'] }));
      for (const s of steps) await launchStepPod(api, stepPodManifest({ buildId: 'Build/42', step: s, namespace: NAMESPACE }));
      const other = stepPodManifest({ buildId: 'build-43', step: step({ commands: ['sleep 30'] }), namespace: NAMESPACE });
      await launchStepPod(api, other);

      expect(await deleteBuildPods(api, NAMESPACE, 'Build/42')).toBe(3);
      // Deleted pods linger as Terminating for a moment, as on a real node; then none is left.
      const selector = `${Labels.build}=Build-42`;
      const deadline = Date.now() + 10_000;
      let left = await api.listNamespacedPod({ namespace: NAMESPACE, labelSelector: selector });
      expect(left.items.every((p) => p.metadata?.deletionTimestamp)).toBe(true);
      while (left.items.length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        left = await api.listNamespacedPod({ namespace: NAMESPACE, labelSelector: selector });
      }
      expect(left.items).toHaveLength(0);
      await expect(api.readNamespacedPod({ name: other.metadata!.name!, namespace: NAMESPACE })).resolves.toBeDefined();
      expect(await deleteBuildPods(api, NAMESPACE, 'build-43')).toBe(1);
    });
  });

  describe('step pods on an embedded cluster that fails now and then', () => {
    it('launches and observes through 503s, 429s and dropped connections', async () => {
      const faults: Fault[] = [
        { kind: 'status', code: 503 },
        { kind: 'drop' },
        { kind: 'status', code: 429, retryAfterSeconds: 0 },
      ];
      const flaky = await startEmbeddedCluster({
        port: 0,
        timings: FAST_TIMINGS,
        faults: ({ path }) => (path.includes('/pods') ? faults.shift() : undefined),
      });
      try {
        const flakyApi = connect(flaky);
        const retry = { baseDelayMs: 5 };
        const manifest = stepPodManifest({ buildId: 'build-flaky', step: step(), namespace: NAMESPACE });
        const { pod } = await launchStepPod(flakyApi, manifest, retry);
        expect(pod.metadata?.name).toBe(manifest.metadata?.name);
        expect(faults).toHaveLength(0);

        faults.push(...Array.from({ length: 10 }, (): Fault => ({ kind: 'status', code: 503 })));
        const error = await observeStep(flakyApi, NAMESPACE, manifest.metadata!.name!, { retry }).catch(
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(KubernetesUnavailable);
        expect((error as Error).message).toContain(`read pod ${NAMESPACE}/${manifest.metadata!.name}`);
        expect((error as Error).message).toContain('503 ServiceUnavailable');
      } finally {
        await flaky.stop();
      }
    });
  });
});

/** The bounded pod watch PollStep holds while a pod is pending, against the embedded cluster. */
describe('the pod watch', () => {
  let cluster: EmbeddedCluster;
  let kubeConfig: KubeConfig;
  let api: CoreV1Api;
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'watch-'));
    // A slow pull, so there is a window in which nothing changes.
    cluster = await startEmbeddedCluster({ workspace: scratch, timings: { ...FAST_TIMINGS, pullMs: 600 } });
    const file = path.join(scratch, 'kubeconfig');
    await writeFile(file, cluster.kubeconfigYaml());
    kubeConfig = kubeConfigFromFile(file);
    api = kubeConfig.makeApiClient(CoreV1Api);
  });

  afterAll(async () => {
    await cluster.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  const step = (name: string, image: string): Step => ({
    name,
    image,
    imageRef: parseImageReference(image),
    commands: ['sleep 2'],
    env: {},
    pull: 'if-not-present',
    timeoutSeconds: DEFAULT_STEP_TIMEOUT_SECONDS,
    secrets: [],
  });

  async function launch(name: string, image: string) {
    const manifest = stepPodManifest({ buildId: 'watch-test', step: step(name, image), namespace: 'default' });
    return api.createNamespacedPod({ namespace: 'default', body: manifest });
  }

  /** One version of a pod as a watch delivered it. */
  interface SeenVersion {
    name: string;
    resourceVersion: string;
    waiting: string | undefined;
  }

  /**
   * A witness: a watch of its own on every pod of the namespace, opened (and established) before the
   * test acts, recording each version of each pod in the order the API server produced them.
   */
  async function witnessPods(): Promise<{ seen: SeenVersion[]; stop(): void }> {
    const seen: SeenVersion[] = [];
    const response = await openWatch<V1Pod>(`${cluster.url}/api/v1/namespaces/default/pods?watch=true`, ({ object }) => {
      seen.push({
        name: object.metadata?.name ?? '',
        resourceVersion: object.metadata?.resourceVersion ?? '',
        waiting: object.status?.containerStatuses?.[0]?.state?.waiting?.reason,
      });
    });
    return { seen, stop: () => response.destroy() };
  }

  describe('watchPodUntil', () => {
    it('answers the moment the kubelet reports a pull failure, with the pod as it then is', async () => {
      const witness = await witnessPods();
      const pod = await launch('missing', 'alpine:3.99-nope');
      const pullFailed = (p: V1Pod | null) => {
        const container = podProgress(p).container;
        return container?.state === 'waiting' && /ErrImagePull|BackOff/.test(container.reason);
      };
      const watched = await watchPodUntil(kubeConfig, 'default', pod.metadata!.name!, pullFailed, 10_000);
      expect(watched?.settled).toBe(true);
      expect(podProgress(watched!.pod).container).toEqual({ state: 'waiting', reason: 'ErrImagePull' });
      expect(watched!.pod!.status?.containerStatuses?.[0]?.state?.waiting?.message).toContain('not in the local image catalog');
      // "The moment": the pod it answered with is the very first version in which the kubelet
      // reported the failure (what the witness saw first), not a later one, nor the timeout.
      try {
        const first = await waitFor(
          () => witness.seen.find((v) => v.name === pod.metadata!.name && /ErrImagePull|BackOff/.test(v.waiting ?? '')),
          { timeoutMs: 5_000, what: 'the witness to see the pull failure' },
        );
        expect(first.waiting).toBe('ErrImagePull');
        expect(watched!.pod!.metadata?.resourceVersion).toBe(first.resourceVersion);
      } finally {
        witness.stop();
      }
    });

    it('gives the pod as it stands when nothing changes in time', async () => {
      const pod = await launch('unchanged', 'alpine:3.20');
      const watched = await watchPodUntil(kubeConfig, 'default', pod.metadata!.name!, () => false, 300);
      expect(watched?.settled).toBe(false);
      expect(watched?.pod?.metadata?.name).toBe(pod.metadata!.name);
    });

    it('reports a deleted pod as null', async () => {
      const pod = await launch('deleted', 'alpine:3.20');
      const name = pod.metadata!.name!;
      const watching = watchPodUntil(kubeConfig, 'default', name, (p) => p === null, 10_000);
      await api.deleteNamespacedPod({ name, namespace: 'default', gracePeriodSeconds: 0 });
      expect(await watching).toEqual({ pod: null, settled: true, lastState: expect.objectContaining({ metadata: expect.objectContaining({ name }) }) });
    });

    it('resumed from an earlier look, sees what happened since, a deletion with the pod\'s last state included', async () => {
      const pod = await launch('evicted-between-looks', 'alpine:3.20');
      const name = pod.metadata!.name!;
      const looked = await api.readNamespacedPod({ name, namespace: 'default' });
      // Gone before the next look begins: a fresh watch would find nothing to say.
      await api.createNamespacedPodEviction({ name, namespace: 'default', body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } } });
      await waitFor(async () => ((await api.listNamespacedPod({ namespace: 'default', fieldSelector: `metadata.name=${name}` })).items.length === 0 ? true : undefined), { timeoutMs: 20_000, what: 'the pod gone' });
      expect(await watchPodUntil(kubeConfig, 'default', name, () => false, 300)).toBeUndefined();
      const resumed = await watchPodUntil(kubeConfig, 'default', name, (p) => p === null, 10_000, undefined, looked.metadata!.resourceVersion);
      expect(resumed?.pod).toBeNull();
      expect(resumed?.lastState?.status?.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }));
    });

    it('delivers nothing for a pod that does not exist, so the caller reads it plainly', async () => {
      expect(await watchPodUntil(kubeConfig, 'default', 'no-such-pod', () => true, 300)).toBeUndefined();
    });

    it('ends when its signal is aborted (the execution has ended), with what it saw, long before its time', async () => {
      const pod = await launch('aborted', 'alpine:3.20');
      const name = pod.metadata!.name!;
      const ended = new AbortController();
      // Aborted once the watch has delivered the pod: the one watch and the build's both answer with it.
      const one = watchPodUntil(kubeConfig, 'default', name, () => (setImmediate(() => ended.abort()), false), 240_000, ended.signal);
      expect(await one).toMatchObject({ settled: false, pod: { metadata: { name } } });
      const builds = new AbortController();
      const all = watchPodsUntil(kubeConfig, 'default', 'step-runner.dev/build=watch-test', (pods) => (pods.has(name) && setImmediate(() => builds.abort()), false), 240_000, builds.signal);
      expect([...(await all)!.pods.keys()]).toContain(name);
      // A watch asked for after the end opens nothing.
      expect(await watchPodsUntil(kubeConfig, 'default', 'step-runner.dev/build=watch-test', () => false, 240_000, builds.signal)).toBeUndefined();
    });
  });
});
