/**
 * The Docker runtime against the real daemon, with the test images from the loopback registry:
 * pulls and their failure words, a container's command line, env, working directory, hostname and
 * /etc/hosts as a pod sees them, the pod's shared network, the OOM killer, stop, exec, and the
 * removal of an earlier process's leftovers.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import { classifyPullMessage } from '../../../../kube/image-pull.js';
import { startDistributionRegistry } from '../../../../../test/fixtures/distribution-registry.js';
import { dockerSocket } from '../../../../../test/fixtures/docker/engine-api.js';
import { MARKER, MARKER_PATH, dockerDaemon, startTestImages, testImagesBuildable, type TestImages } from '../../../../../test/fixtures/docker/test-images.js';
import { describeRequiring } from '../../../../../test/fixtures/requirements.js';
import { waitFor } from '../../../../../test/fixtures/wait-for.js';
import { systemClock } from '../../clock.js';
import { LogBuffer } from '../../log-buffer.js';
import type { Container, Pod } from '../../objects.js';
import type { ContainerExit, ContainerRuntime, ContainerStart, PodSandbox, RunningContainer, RuntimeImage } from '../container-runtime.js';
import { createDockerRuntime } from './docker-runtime.js';
import { DockerLabels } from './labels.js';

const socketPath = dockerSocket();
const docker = new Docker({ socketPath });
const OWNER = `${hostname()}:${process.pid}`;

function pod(name: string, containers: Container[], spec: Partial<Pod['spec']> = {}): Pod {
  return { metadata: { name, namespace: 'default', uid: randomUUID(), labels: { 'step-runner.dev/build': 'b-1' } }, spec: { containers, ...spec } };
}

function text(stream: Readable | null): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    if (stream === null) return resolve(out);
    stream.on('data', (chunk: Buffer) => (out += chunk.toString()));
    stream.on('end', () => resolve(out));
  });
}

describeRequiring('the Docker runtime', dockerDaemon, () => {
  describeRequiring('with the test images', testImagesBuildable, () => {
    let images: TestImages;
    let runtime: ContainerRuntime;
    const pulled = new Map<string, RuntimeImage>();
    const sandboxes: PodSandbox[] = [];
    let scratch: string;

    beforeAll(async () => {
      images = await startTestImages();
      runtime = await createDockerRuntime({ socketPath, sandboxImage: images.sandbox });
      scratch = await mkdtemp(path.join(tmpdir(), 'docker-runtime-test-'));
    }, 120_000);

    afterAll(async () => {
      await Promise.all(sandboxes.map((s) => s.remove()));
      await runtime?.close();
      // Whatever a failed test left: everything with this process's owner label.
      const left = await docker.listContainers({ all: true, filters: { label: [`${DockerLabels.owner}=${OWNER}`] } });
      await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
      const named = [...pulled.keys(), images?.sandbox].filter((name): name is string => name !== undefined);
      await Promise.all(named.map((name) => docker.getImage(name).remove({ force: true }).catch(() => {})));
      await images?.stop();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    async function image(name: string): Promise<RuntimeImage> {
      const known = pulled.get(name);
      if (known) return known;
      const result = await runtime.pullImage(name);
      if (!result.ok) throw new Error(`pull of ${name} failed: ${result.error}`);
      pulled.set(name, result.image);
      return result.image;
    }

    async function sandboxFor(p: Pod, hostAliases: { ip: string; hostnames: string[] }[] = []): Promise<PodSandbox> {
      const sandbox = await runtime.runPodSandbox({ pod: p, hostname: p.metadata.name!, hostAliases });
      sandboxes.push(sandbox);
      return sandbox;
    }

    interface Started {
      start: ContainerStart;
      log: LogBuffer;
    }

    async function start(p: Pod, sandbox: PodSandbox, container: Container, argv: string[], env: Record<string, string> = {}): Promise<Started> {
      const log = new LogBuffer(systemClock);
      const start = await runtime.startContainer({ pod: p, container, sandbox, image: await image(container.image), argv, env, mounts: [], root: scratch, log });
      return { start, log };
    }

    function running(started: Started): RunningContainer {
      if (!started.start.ok) throw new Error(`container did not start: ${started.start.reason}: ${started.start.message}`);
      return started.start.container;
    }

    /** One container in its own pod, run to its end: its exit and its log. */
    async function runOnce(container: Partial<Container> & { image: string }, argv: string[], options: { env?: Record<string, string>; hostAliases?: { ip: string; hostnames: string[] }[]; podName?: string } = {}) {
      const c: Container = { name: 'step', ...container };
      const p = pod(options.podName ?? `run-${randomUUID().slice(0, 8)}`, [c]);
      const sandbox = await sandboxFor(p, options.hostAliases);
      const started = await start(p, sandbox, c, argv, options.env);
      const exit = await running(started).exited;
      return { exit, log: started.log.read(), ended: started.log.ended, pod: p, sandbox };
    }

    it('names the daemon version', () => {
      expect(runtime.version).toMatch(/^docker:\/\/\d+\.\d+/);
    });

    describe('images', () => {
      it('is absent before a pull, present after it, with the digest the registry gave', async () => {
        expect(await runtime.presentImage(images.busybox)).toBeUndefined();
        const result = await runtime.pullImage(images.busybox);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        pulled.set(images.busybox, result.image);
        expect(result.image.imageID).toMatch(new RegExp(`^docker-pullable://${images.registry.replace(/[.]/g, '\\.')}/test/busybox@sha256:[0-9a-f]{64}$`));
        expect(result.image.size).toBeGreaterThan(0);
        expect(await runtime.presentImage(images.busybox)).toEqual(result.image);
      });

      it('reads the image config, root when it names no user', async () => {
        expect((await image(images.configured)).config).toEqual({
          entrypoint: ['/bin/echo', 'entrypoint'],
          cmd: ['cmd-default'],
          env: expect.arrayContaining(['GREETING=from-image']),
          workingDir: '/srv/app',
          user: '',
        });
        expect((await image(images.nonRoot)).config.user).toBe('1000:1000');
        expect((await image(images.namedUser)).config.user).toBe('nobody');
      });

      it('fails a missing tag in the daemon words, which the classifier finds permanent', async () => {
        const result = await runtime.pullImage(images.missingTag);
        expect(result).toEqual({ ok: false, error: `Error response from daemon: manifest for ${images.missingTag} not found: manifest unknown: manifest unknown` });
        if (!result.ok) expect(classifyPullMessage(result.error, images.missingTag)).toBe('permanent');
      });

      it('fails a registry nobody listens on in the daemon words, which the classifier finds transient', async () => {
        const port = await closedPort();
        const name = `127.0.0.1:${port}/team/app:1`;
        const result = await runtime.pullImage(name, { username: 'u', password: 'p', serveraddress: `127.0.0.1:${port}` });
        expect(result).toEqual({ ok: false, error: `Error response from daemon: Get "http://127.0.0.1:${port}/v2/": dial tcp 127.0.0.1:${port}: connect: connection refused` });
        if (!result.ok) expect(classifyPullMessage(result.error, name)).toBe('transient');
      });
    });

    describe('pull failures in the daemon words', () => {
      it('names a registry host that does not resolve', async () => {
        const result = await runtime.pullImage('registry.invalid/team/app:1');
        expect(result).toEqual({ ok: false, error: expect.stringMatching(/^Error response from daemon: Get "https:\/\/registry\.invalid\/v2\/": dial tcp: lookup registry\.invalid.*: no such host$/) });
        if (!result.ok) expect(classifyPullMessage(result.error, 'registry.invalid/team/app:1')).toBe('transient');
      });

      // The fixture registry's pushed image has a layer that is not a tar: with the right login the
      // pull gets past the registry and fails on the layer, in the progress stream, so unprefixed.
      it('sends the login to a registry that wants one, and says when there is none or it is wrong', async () => {
        const login = { username: 'builder', password: 's3cret+/=?' };
        const registry = await startDistributionRegistry({ htpasswd: login });
        const name = `${registry.host}/team/private:1`;
        try {
          await registry.push('team/private', '1');
          const none = await runtime.pullImage(name);
          const wrong = await runtime.pullImage(name, { username: login.username, password: 'wrong', serveraddress: registry.host });
          const right = await runtime.pullImage(name, { ...login, serveraddress: registry.host });
          expect({ none, wrong, right }).toEqual({
            none: { ok: false, error: `Error response from daemon: Head "http://${registry.host}/v2/team/private/manifests/1": no basic auth credentials` },
            wrong: { ok: false, error: 'Error response from daemon: unauthorized: authentication required' },
            right: { ok: false, error: 'failed to register layer: Error processing tar file(exit status 1): unexpected EOF' },
          });
          for (const failed of [none, wrong]) if (!failed.ok) expect(classifyPullMessage(failed.error, name)).toBe('permanent');
        } finally {
          await docker.getImage(name).remove({ force: true }).catch(() => {});
          await registry.stop();
        }
      });
    });

    describe('a container', () => {
      it('runs the argv whole: the image ENTRYPOINT and CMD add nothing, the image env and WORKDIR apply', async () => {
        const { exit, log } = await runOnce({ image: images.configured }, ['/bin/sh', '-c', 'echo $GREETING; pwd; echo "$@"', 'sh']);
        expect({ exit, log }).toEqual({ exit: { exitCode: 0 }, log: 'from-image\n/srv/app\n\n' });
      });

      it('puts the pod env over the image env, and its workingDir over WORKDIR', async () => {
        const { log } = await runOnce({ image: images.configured, workingDir: '/tmp' }, ['/bin/sh', '-c', 'echo $GREETING; pwd'], { env: { GREETING: 'from-pod' } });
        expect(log).toBe('from-pod\n/tmp\n');
      });

      it("reads the image's files, keeps stdout and stderr in order and ends the log", async () => {
        const { exit, log, ended } = await runOnce({ image: images.busybox }, ['/bin/sh', '-c', `cat ${MARKER_PATH}; echo; echo to-err >&2; echo after; exit 3`]);
        // Docker copies stdout and stderr on their own, so only each stream's order is kept.
        const lines = log.split('\n');
        expect({ exit, ended, lines: [...lines].sort() }).toEqual({ exit: { exitCode: 3 }, ended: true, lines: ['', 'after', MARKER, 'to-err'].sort() });
        expect(lines.indexOf(MARKER)).toBeLessThan(lines.indexOf('after'));
      });

      it('has the pod name as hostname (and $HOSTNAME) and the hostAliases in /etc/hosts', async () => {
        const { log } = await runOnce({ image: images.busybox }, ['/bin/sh', '-c', 'hostname; echo $HOSTNAME; grep db.example /etc/hosts'], {
          podName: 'named-pod',
          hostAliases: [{ ip: '10.1.2.3', hostnames: ['db.example', 'cache.example'] }],
        });
        expect(log).toMatch(/^named-pod\nnamed-pod\n10\.1\.2\.3\s+db\.example\n$/);
      });

      it('ends OOMKilled, 137, past its memory limit', async () => {
        // It allocates a second in, as a real step does after its start; the runtime reads the kill from State.OOMKilled or, when containerd reported it after the exit, from the daemon's oom event (oom-events.ts).
        const { exit } = await runOnce({ image: images.busybox, resources: { limits: { memory: '8Mi' } } }, ['/bin/sh', '-c', 'sleep 1; x=$(head -c 64m /dev/zero | tr "\\0" a); echo ${#x}']);
        expect(exit).toEqual({ exitCode: 137, reason: 'OOMKilled' });
      });

      it('is removed once it has ended', async () => {
        const { pod: p } = await runOnce({ image: images.busybox }, ['/bin/true']);
        const left = await docker.listContainers({ all: true, filters: { label: [`${DockerLabels.podUid}=${p.metadata.uid}`, `${DockerLabels.containerName}=step`] } });
        expect(left).toEqual([]);
      });

      it('shares the pod network with the other containers of its pod', async () => {
        const server: Container = { name: 'server', image: images.busybox };
        const client: Container = { name: 'client', image: images.busybox };
        const p = pod(`pair-${randomUUID().slice(0, 8)}`, [server, client]);
        const sandbox = await sandboxFor(p);
        expect(sandbox.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
        // The server answers every connection (busybox nc -ll -e): a client never meets a gap between listens.
        const s = await start(p, sandbox, server, ['nc', '-ll', '-p', '8080', '-e', 'echo', 'hello-from-server']);
        const c = await start(p, sandbox, client, [
          '/bin/sh',
          '-c',
          'for i in $(seq 1 50); do out=$(nc -w 2 127.0.0.1 8080 </dev/null 2>/dev/null) && [ -n "$out" ] && echo "$out" && exit 0; sleep 0.1; done; exit 1',
        ]);
        expect(await running(c).exited).toEqual({ exitCode: 0 });
        expect(c.log.read()).toBe('hello-from-server\n');
        await running(s).stop(0);
      });
    });

    describe('start failures', () => {
      it('is a StartError in the daemon words when the command does not exist', async () => {
        const c: Container = { name: 'step', image: images.busybox };
        const p = pod(`nocmd-${randomUUID().slice(0, 8)}`, [c]);
        const { start: result } = await start(p, await sandboxFor(p), c, ['/no/such/command']);
        expect(result).toEqual({ ok: false, reason: 'StartError', containerID: expect.stringMatching(/^docker:\/\//), message: expect.stringMatching(/^Error response from daemon: .*no such file or directory/) });
        const left = await docker.listContainers({ all: true, filters: { label: [`${DockerLabels.podUid}=${p.metadata.uid}`, `${DockerLabels.containerName}=step`] } });
        expect(left).toEqual([]);
      });

      it('is a CreateContainerError for a Localhost seccomp profile', async () => {
        const c: Container = { name: 'step', image: images.busybox, securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' } } };
        const p = pod(`seccomp-${randomUUID().slice(0, 8)}`, [c]);
        const { start: result } = await start(p, await sandboxFor(p), c, ['/bin/true']);
        expect(result).toEqual({ ok: false, reason: 'CreateContainerError', message: expect.stringContaining('"localhost/profiles/audit.json"') });
      });
    });

    describe('stop', () => {
      async function startLong(argv: string[]): Promise<Started> {
        const c: Container = { name: 'step', image: images.busybox };
        const p = pod(`stop-${randomUUID().slice(0, 8)}`, [c]);
        return start(p, await sandboxFor(p), c, argv);
      }

      it('kills a PID 1 that ignores SIGTERM once the grace period is over: 137, no signal', async () => {
        const started = await startLong(['/bin/sh', '-c', 'sleep 100']);
        expect(await running(started).stop(1000)).toEqual({ exitCode: 137 });
      });

      it("ends with the process's own code when it handles SIGTERM", async () => {
        const started = await startLong(['/bin/sh', '-c', 'trap "echo bye; exit 3" TERM; echo ready; while true; do sleep 0.1; done']);
        await waitFor(() => started.log.read().includes('ready'), { timeoutMs: 10_000, what: 'the trap to be set' });
        expect(await running(started).stop(10_000)).toEqual({ exitCode: 3 });
        expect(started.log.read()).toBe('ready\nbye\n');
      });
    });

    describe('exec', () => {
      let target: Started;

      beforeAll(async () => {
        const c: Container = { name: 'step', image: images.busybox };
        const p = pod(`exec-${randomUUID().slice(0, 8)}`, [c]);
        target = await start(p, await sandboxFor(p), c, ['/bin/sleep', '100']);
      });

      afterAll(async () => {
        if (target?.start.ok) await target.start.container.stop(0);
      });

      it('prints to stdout and stderr and returns the exit code', async () => {
        const result = await running(target).exec(['/bin/sh', '-c', 'echo out; echo err >&2; hostname >/dev/null; exit 5'], { stdin: false, stdout: true, stderr: true });
        if (!result.ok) throw new Error(result.message);
        const [out, err, code] = await Promise.all([text(result.process.stdout), text(result.process.stderr), result.process.exited]);
        expect({ out, err, code }).toEqual({ out: 'out\n', err: 'err\n', code: 5 });
      });

      it('passes stdin and its end', async () => {
        const result = await running(target).exec(['cat'], { stdin: true, stdout: true, stderr: true });
        if (!result.ok) throw new Error(result.message);
        result.process.stdin!.end('through stdin\n');
        const [out, code] = await Promise.all([text(result.process.stdout), result.process.exited]);
        expect({ out, code }).toEqual({ out: 'through stdin\n', code: 0 });
      });

      it('takes stdin alone, as an upload does', async () => {
        const upload = await running(target).exec(['/bin/sh', '-c', 'cat > /tmp/uploaded'], { stdin: true, stdout: false, stderr: false });
        if (!upload.ok) throw new Error(upload.message);
        expect({ stdout: upload.process.stdout, stderr: upload.process.stderr }).toEqual({ stdout: null, stderr: null });
        upload.process.stdin!.end('uploaded bytes');
        expect(await upload.process.exited).toBe(0);
        const read = await running(target).exec(['cat', '/tmp/uploaded'], { stdin: false, stdout: true, stderr: false });
        if (!read.ok) throw new Error(read.message);
        expect(await text(read.process.stdout)).toBe('uploaded bytes');
      });

      it('fails a command the container lacks in the OCI runtime words', async () => {
        const result = await running(target).exec(['no-such-command'], { stdin: false, stdout: true, stderr: true });
        expect(result).toEqual({ ok: false, message: 'OCI runtime exec failed: exec failed: unable to start container process: exec: "no-such-command": executable file not found in $PATH: unknown' });
      });
    });

    describe('a daemon that goes away', () => {
      it('ends the container as lost, naming the socket, instead of hanging', async () => {
        const proxy = await socketProxy(socketPath);
        const lost = await createDockerRuntime({ socketPath: proxy.path, sandboxImage: images.sandbox });
        try {
          const c: Container = { name: 'step', image: images.busybox };
          const p = pod(`lost-${randomUUID().slice(0, 8)}`, [c]);
          // Not in `sandboxes`: its runtime cannot reach the daemon once the proxy is closed; afterAll's sweep removes it.
          const sandbox = await lost.runPodSandbox({ pod: p, hostname: p.metadata.name!, hostAliases: [] });
          const log = new LogBuffer(systemClock);
          const started = await lost.startContainer({ pod: p, container: c, sandbox, image: await image(images.busybox), argv: ['/bin/sleep', '100'], env: {}, mounts: [], root: scratch, log });
          if (!started.ok) throw new Error(started.message);
          await proxy.close();
          const exit: ContainerExit = await started.container.exited;
          expect(exit).toEqual({ exitCode: 137, lost: expect.stringContaining(`unix://${proxy.path}`) });
          expect(log.ended).toBe(true);
        } finally {
          await lost.close();
          await proxy.close();
        }
      });
    });

    describe('removeLeftovers', () => {
      it("removes an owner's containers once its process is gone, and leaves a live one's", async () => {
        const deadPid = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim()) + 1;
        const make = (owner: string) =>
          docker.createContainer({ Image: images.busybox, Cmd: ['/bin/true'], Labels: { [DockerLabels.owner]: owner, [DockerLabels.type]: 'container' }, HostConfig: { NetworkMode: 'none' } });
        const dead = await make(`${hostname()}:${deadPid}`);
        const live = await make(`${hostname()}:${process.ppid}`);
        try {
          expect(await runtime.removeLeftovers()).toBeGreaterThanOrEqual(1);
          await expect(dead.inspect()).rejects.toMatchObject({ statusCode: 404 });
          await expect(live.inspect()).resolves.toMatchObject({ Id: live.id });
        } finally {
          await Promise.all([dead, live].map((c) => c.remove({ force: true }).catch(() => {})));
        }
      });
    });
  });
});

/** A port nothing listens on: one the OS gave and was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A unix socket that relays to the daemon's, and can be closed with its connections, as a daemon that dies. */
async function socketProxy(target: string): Promise<{ path: string; close(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'docker-proxy-'));
  const proxyPath = path.join(dir, 'docker.sock');
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(target);
    open.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(proxyPath, resolve));
  let closed = false;
  return {
    path: proxyPath,
    async close() {
      if (closed) return;
      closed = true;
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
