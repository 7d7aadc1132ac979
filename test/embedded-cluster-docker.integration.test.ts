/**
 * The embedded kubelet on its Docker runtime, certified as a CRI kubelet behaves: pods created
 * through the API run in their images (pulled from a registry on loopback, built by the test
 * fixture), in one sandbox per pod, with the pull failures, OOM kills, runAsNonRoot refusals,
 * signals, exec and leftovers a real node shows.
 */
import { jest } from '@jest/globals';
import { rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CoreV1Api, Exec, type V1Pod } from '@kubernetes/client-node';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { describeRequiring } from './fixtures/requirements.js';
import { dockerDaemon, startTestImages, testImagesBuildable, type TestImages } from './fixtures/docker/test-images.js';
import { dockerSocket } from './fixtures/docker/engine-api.js';
import { waitFor } from './fixtures/wait-for.js';
import { openWatch } from './fixtures/watch-events.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

// Docker's containers start in hundreds of milliseconds, and many times that on a loaded CI
// machine: the waits below are upper bounds for a hang, not expectations of speed.
jest.setTimeout(120_000);

const run = promisify(execFile);
const NS = 'docker-kubelet';

/** The containers of this process's clusters, as `docker ps` lists them by the kubelet's pod label. */
async function containersOfPod(uid: string): Promise<string[]> {
  const { stdout } = await run('docker', ['ps', '-a', '--filter', `label=io.kubernetes.pod.uid=${uid}`, '--format', '{{.Names}}']);
  return stdout.split('\n').filter(Boolean);
}

describeRequiring('the embedded kubelet on Docker', dockerDaemon, () => {
  describeRequiring('with the test images', testImagesBuildable, () => {
    let images: TestImages;
    let cluster: EmbeddedCluster;
    let api: CoreV1Api;

    beforeAll(async () => {
      images = await startTestImages();
      cluster = await startEmbeddedCluster({
        timings: FAST_TIMINGS,
        namespaces: [NS],
        runtime: { kind: 'docker', socketPath: dockerSocket(), sandboxImage: images.sandbox },
      });
      api = cluster.kubeConfig().makeApiClient(CoreV1Api);
    }, 120_000);

    afterAll(async () => {
      await cluster?.stop();
      await images?.stop();
    });

    function pod(name: string, containers: V1Pod['spec'] extends infer S ? (S extends { containers: infer C } ? C : never) : never, extra: Partial<NonNullable<V1Pod['spec']>> = {}): V1Pod {
      return { metadata: { name, namespace: NS }, spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 2, containers, ...extra } };
    }

    const read = (name: string) => api.readNamespacedPod({ name, namespace: NS });
    const log = (name: string, container = 'step') => api.readNamespacedPodLog({ name, namespace: NS, container });

    async function ended(name: string, timeoutMs = 30_000): Promise<V1Pod> {
      return waitFor(
        async () => {
          const p = await read(name);
          return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed' ? p : undefined;
        },
        { timeoutMs, what: `pod ${name} to end` },
      );
    }

    /** Runs a command in a container through the API's exec: its stdout, and `Success` or its exit code. */
    async function execIn(name: string, container: string, command: string[]): Promise<{ out: string; status: string }> {
      const stdout = new PassThrough();
      let out = '';
      stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const status = await new Promise<string>((resolve, reject) => {
        new Exec(cluster.kubeConfig())
          .exec(NS, name, container, command, stdout, null, null, false, (s) => resolve(s.status === 'Success' ? 'Success' : String(s.details?.causes?.[0]?.message)))
          .catch(reject);
      });
      return { out, status };
    }

    async function events(name: string): Promise<string[]> {
      const list = await api.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=${name}` });
      return list.items.map((e) => `${e.reason}: ${e.message}`);
    }

    test("a step runs in its image: the image's file, its ENV and WORKDIR, a home that is not the host's", async () => {
      // A file in the user's home, which no step may see (~/.npmrc, ~/.aws, ~/.ssh are there).
      const secretFile = join(homedir(), `.step-runner-test-${process.pid}`);
      await writeFile(secretFile, 'host secret\n');
      await api.createNamespacedPod({
        namespace: NS,
        body: pod('in-image', [
          { name: 'step', image: images.configured, command: ['/bin/sh', '-c', 'cat /etc/test-image-marker; echo; echo "greeting=$GREETING"; pwd; ls -a "$HOME"; hostname'] },
        ]),
      });
      const done = await ended('in-image').finally(() => rm(secretFile, { force: true }));
      expect(done.status?.phase).toBe('Succeeded');
      const text = await log('in-image');
      expect(text).toContain('carried by the busybox test image\n');
      expect(text).toContain('greeting=from-image\n');
      expect(text).toContain('/srv/app\n');
      expect(text).not.toContain(`.step-runner-test-${process.pid}`);
      expect(text).toContain('in-image\n');
      expect(done.status?.containerStatuses?.[0]?.containerID).toMatch(/^docker:\/\/[0-9a-f]{64}$/);
      expect(done.status?.containerStatuses?.[0]?.imageID).toMatch(/^docker-pullable:\/\/.+@sha256:[0-9a-f]{64}$/);
    });

    test("no command: the image's ENTRYPOINT and CMD; args alone replace CMD", async () => {
      await api.createNamespacedPod({ namespace: NS, body: pod('entrypoint', [{ name: 'step', image: images.configured }]) });
      await api.createNamespacedPod({ namespace: NS, body: pod('args', [{ name: 'step', image: images.configured, args: ['given', '$(WHO)'], env: [{ name: 'WHO', value: 'me' }] }]) });
      await ended('entrypoint');
      await ended('args');
      expect(await log('entrypoint')).toBe('entrypoint cmd-default\n');
      expect(await log('args')).toBe('entrypoint given me\n');
    });

    test("a tag the registry lacks: the daemon's own words, ErrImagePull then ImagePullBackOff", async () => {
      await api.createNamespacedPod({ namespace: NS, body: pod('missing-tag', [{ name: 'step', image: images.missingTag, command: ['true'] }]) });
      const waiting = await waitFor(
        async () => {
          const reason = (await read('missing-tag')).status?.containerStatuses?.[0]?.state?.waiting;
          return reason?.reason === 'ImagePullBackOff' ? reason : undefined;
        },
        { timeoutMs: 20_000, what: 'ImagePullBackOff' },
      );
      expect(waiting.message).toMatch(/manifest unknown|not found/);
      const failed = (await events('missing-tag')).find((e) => e.startsWith(`Failed: Failed to pull image "${images.missingTag}": `));
      expect(failed).toMatch(/manifest unknown|not found/);
      await api.deleteNamespacedPod({ name: 'missing-tag', namespace: NS, gracePeriodSeconds: 0 });
    });

    test('past its memory limit a container ends OOMKilled with 137', async () => {
      await api.createNamespacedPod({
        namespace: NS,
        body: pod('oom', [
          {
            name: 'step',
            image: images.busybox,
            // Holds 64 MiB in the shell's memory against a 16 MiB limit. It allocates a second in, as a real step does after its start; the runtime reads the kill from State.OOMKilled or, when containerd reported it after the exit, from the daemon's oom event (oom-events.ts).
            command: ['/bin/sh', '-c', 'sleep 1; x=$$(head -c 67108864 /dev/zero | tr "\\000" a); echo ${#x}'],
            resources: { limits: { memory: '16Mi' }, requests: { memory: '16Mi' } },
          },
        ]),
      });
      const done = await ended('oom');
      expect(done.status?.phase).toBe('Failed');
      expect(done.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({ reason: 'OOMKilled', exitCode: 137 });
    });

    test('runAsNonRoot against an image that runs as root: CreateContainerConfigError in the kubelet\'s words', async () => {
      await api.createNamespacedPod({ namespace: NS, body: pod('as-root', [{ name: 'step', image: images.busybox, command: ['true'] }], { securityContext: { runAsNonRoot: true } }) });
      const waiting = await waitFor(
        async () => {
          const state = (await read('as-root')).status?.containerStatuses?.[0]?.state?.waiting;
          return state?.reason === 'CreateContainerConfigError' ? state : undefined;
        },
        { timeoutMs: 20_000, what: 'CreateContainerConfigError' },
      );
      expect(waiting.message).toMatch(/^container has runAsNonRoot and image will run as root \(pod: "as-root_docker-kubelet\(.+\)", container: step\)$/);
      await api.createNamespacedPod({ namespace: NS, body: pod('non-root', [{ name: 'step', image: images.nonRoot, command: ['id', '-u'] }], { securityContext: { runAsNonRoot: true } }) });
      await ended('non-root');
      expect(await log('non-root')).toBe('1000\n');
      await api.deleteNamespacedPod({ name: 'as-root', namespace: NS, gracePeriodSeconds: 0 });
    });

    test('fsGroup: a non-root container writes its volume, and what it writes stays in the group', async () => {
      await api.createNamespacedPod({
        namespace: NS,
        body: pod('fs-group', [{ name: 'step', image: images.busybox, command: ['/bin/sh', '-c', 'id -u; echo made > /work/file && stat -c %g /work/file'], volumeMounts: [{ name: 'work', mountPath: '/work' }] }], {
          securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 2000 },
          volumes: [{ name: 'work', emptyDir: {} }],
        }),
      });
      const done = await ended('fs-group');
      expect(await log('fs-group')).toBe('1000\n2000\n');
      expect(done.status?.phase).toBe('Succeeded');
    });

    test('a service in the pod is reached by its name (hostAliases) and on localhost; the pod has its own network', async () => {
      await api.createNamespacedPod({
        namespace: NS,
        body: pod(
          'services',
          [{ name: 'step', image: images.busybox, command: ['/bin/sh', '-c', 'grep -c db /etc/hosts; ask() { until out=$$(nc -w 2 "$$1" 7000 </dev/null 2>/dev/null) && [ -n "$$out" ]; do sleep 0.1; done; echo "$$out"; }; ask db; ask 127.0.0.1'] }],
          {
            hostAliases: [{ ip: '127.0.0.1', hostnames: ['db'] }],
            initContainers: [
              {
                name: 'db',
                image: images.busybox,
                restartPolicy: 'Always',
                // Listening on, one `echo pong` per connection (busybox nc -ll -e).
                command: ['nc', '-ll', '-p', '7000', '-e', 'echo', 'pong'],
                startupProbe: { tcpSocket: { port: 7000 }, periodSeconds: 1, failureThreshold: 30 },
              },
            ],
          },
        ),
      });
      const done = await ended('services');
      expect(await log('services')).toBe('1\npong\npong\n');
      expect(done.status?.phase).toBe('Succeeded');
      expect(done.status?.podIP).not.toBe('127.0.0.1');
    });

    test("a service bound to the pod's loopback only fails its startup probe, as on EKS", async () => {
      await api.createNamespacedPod({
        namespace: NS,
        body: pod('loopback-only', [{ name: 'step', image: images.busybox, command: ['true'] }], {
          initContainers: [
            {
              name: 'db',
              image: images.busybox,
              restartPolicy: 'Always',
              // busybox's nc cannot bind one address; its httpd can, and listens on the pod's loopback only.
              command: ['/bin/sh', '-c', 'mkdir -p /tmp/www && echo serving > /tmp/www/index.html && exec httpd -f -p 127.0.0.1:7000 -h /tmp/www'],
              startupProbe: { tcpSocket: { port: 7000 }, periodSeconds: 1, failureThreshold: 30 },
            },
          ],
        }),
      });
      const unhealthy = await waitFor(async () => (await events('loopback-only')).find((e) => e.startsWith('Unhealthy: Startup probe failed: dial tcp ')), {
        timeoutMs: 20_000,
        what: 'a failed probe',
      });
      const podIP = (await read('loopback-only')).status?.podIP;
      expect(unhealthy).toContain(`dial tcp ${podIP}:7000: connect: connection refused`);
      // It does serve, on the pod's own loopback, which the kubelet's probe never dials.
      expect(await execIn('loopback-only', 'db', ['wget', '-q', '-O-', 'http://127.0.0.1:7000/'])).toEqual({ out: 'serving\n', status: 'Success' });
      await api.deleteNamespacedPod({ name: 'loopback-only', namespace: NS, gracePeriodSeconds: 0 });
    });

    test('a deleted pod: SIGTERM to PID 1, which a shell ignores, then SIGKILL after the grace period: 137, and no signal field', async () => {
      await api.createNamespacedPod({
        namespace: NS,
        body: pod('stopped', [
          { name: 'step', image: images.busybox, command: ['/bin/sh', '-c', 'echo up; while :; do sleep 0.1; done'] },
          { name: 'trapper', image: images.busybox, command: ['/bin/sh', '-c', "trap 'echo bye; exit 3' TERM; echo up; while :; do sleep 0.1; done"] },
        ]),
      });
      await waitFor(async () => ((await log('stopped')) === 'up\n' && (await log('stopped', 'trapper')) === 'up\n' ? true : undefined), { timeoutMs: 30_000, what: 'both up' });
      const uid = (await read('stopped')).metadata?.uid ?? '';
      // The pod's last status before it goes is only in the watch: the kubelet removes it once stopped.
      const seen: V1Pod[] = [];
      const watch = await openWatch<V1Pod>(`${cluster.url}/api/v1/namespaces/${NS}/pods?watch=true&fieldSelector=metadata.name=stopped`, (e) => seen.push(e.object));
      try {
        await api.deleteNamespacedPod({ name: 'stopped', namespace: NS, gracePeriodSeconds: 1 });
        const last = await waitFor(
          async () => {
            const statuses = seen.at(-1)?.status?.containerStatuses ?? [];
            return statuses.length === 2 && statuses.every((c) => c.state?.terminated) ? new Map(statuses.map((c) => [c.name, c.state!.terminated!])) : undefined;
          },
          { timeoutMs: 30_000, what: 'both terminated' },
        );
        expect(last.get('step')).toMatchObject({ exitCode: 137 });
        expect(last.get('trapper')).toMatchObject({ exitCode: 3 });
        for (const state of last.values()) expect(state.signal).toBeUndefined();
      } finally {
        watch.destroy();
      }
      await waitFor(async () => ((await containersOfPod(uid)).length === 0 ? true : undefined), { timeoutMs: 20_000, what: 'its containers removed' });
    });

    test('exec runs in the container through Docker exec: its filesystem, its exit code', async () => {
      await api.createNamespacedPod({ namespace: NS, body: pod('exec', [{ name: 'step', image: images.busybox, command: ['/bin/sh', '-c', 'echo inside > /tmp/mark; sleep 30'] }]) });
      await waitFor(async () => ((await read('exec')).status?.containerStatuses?.[0]?.state?.running ? true : undefined), { timeoutMs: 20_000, what: 'running' });
      const { out, status } = await execIn('exec', 'step', ['/bin/sh', '-c', 'sleep 0.2; cat /tmp/mark; exit 4']);
      expect(out).toBe('inside\n');
      expect(status).toBe('4');
      await api.deleteNamespacedPod({ name: 'exec', namespace: NS, gracePeriodSeconds: 0 });
    });

    test('a sandbox the runtime cannot make: FailedCreatePodSandBox, retried, the pod left ContainerCreating', async () => {
      const broken = await startEmbeddedCluster({ timings: FAST_TIMINGS, runtime: { kind: 'docker', socketPath: dockerSocket(), sandboxImage: images.missingTag } });
      try {
        const brokenApi = broken.kubeConfig().makeApiClient(CoreV1Api);
        await brokenApi.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'no-sandbox' }, spec: { restartPolicy: 'Never', containers: [{ name: 'step', image: images.busybox, command: ['true'] }] } } });
        const failures = await waitFor(
          async () => {
            const list = await brokenApi.listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.name=no-sandbox,reason=FailedCreatePodSandBox' });
            const event = list.items[0];
            return event && (event.count ?? 0) >= 2 ? event : undefined;
          },
          { timeoutMs: 20_000, what: 'the sandbox tried twice' },
        );
        expect(failures.message).toMatch(/^Failed to create pod sandbox: failed pulling image ".+": .*(manifest unknown|not found)/);
        const pod = await brokenApi.readNamespacedPod({ name: 'no-sandbox', namespace: 'default' });
        expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ContainerCreating');
      } finally {
        await broken.stop();
      }
    });

    test("the cluster's stop leaves no container of its own behind", async () => {
      const other = await startEmbeddedCluster({ timings: FAST_TIMINGS, runtime: { kind: 'docker', socketPath: dockerSocket(), sandboxImage: images.sandbox } });
      const otherApi = other.kubeConfig().makeApiClient(CoreV1Api);
      await otherApi.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'long' }, spec: { restartPolicy: 'Never', containers: [{ name: 'step', image: images.busybox, command: ['sleep', '300'] }] } } });
      const uid = await waitFor(
        async () => {
          const p = await otherApi.readNamespacedPod({ name: 'long', namespace: 'default' });
          return p.status?.containerStatuses?.[0]?.state?.running ? p.metadata?.uid : undefined;
        },
        { timeoutMs: 20_000, what: 'running' },
      );
      expect((await containersOfPod(uid!)).length).toBe(2);
      await other.stop();
      expect(await containersOfPod(uid!)).toEqual([]);
    });
  });
});
