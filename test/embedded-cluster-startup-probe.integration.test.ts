/**
 * Startup probes (tcpSocket) on the embedded cluster, over real HTTP, on both runtimes: a sidecar
 * is started (and ready) only once its port accepts connections, and until then the containers
 * after it wait, as with KEP-753 on a real node; each failed attempt is an `Unhealthy` event in
 * the prober's words; after failureThreshold of them the kubelet kills the sidecar and starts it
 * again. The address a probe dials is the runtime's: 127.0.0.1 for host processes, the pod's IP on
 * Docker, where a service must listen on all addresses (as on EKS).
 */
import { jest } from '@jest/globals';
import type { CoreV1Event, V1Container, V1Pod } from '@kubernetes/client-node';
import { PORT_GATE_SCRIPT } from '../lib/kube/service-containers.js';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { freePort } from './fixtures/free-port.js';
import { describeOnRuntimes, RuntimeKind, type KubeletRuntime, podWhen as podWhenIn, podFirstSeen } from './fixtures/kubelet-runtimes.js';
import { waitFor } from './fixtures/wait-for.js';

// Docker's containers start in hundreds of milliseconds, and many times that on a loaded CI
// machine: the waits below are upper bounds for a hang, not expectations of speed.
jest.setTimeout(120_000);

const NS = 'probes';

const probe = (port: number, failureThreshold = 30) => ({ tcpSocket: { port }, periodSeconds: 1, timeoutSeconds: 1, failureThreshold });

function podOf(image: string, name: string, initContainers: V1Container[], main: string): V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 2,
      initContainers,
      containers: [{ name: 'step', image, command: ['/bin/sh', '-c', main] }],
    },
  };
}

/**
 * The shell commands a service and a step run, which are the image's: the process runtime runs
 * this machine's node (the catalog's images have no files), the fixture's busybox has nc but no
 * node. Either server answers every connection with `reply` and a newline.
 */
interface Tools {
  /** A server on `port`; on Docker bound to all addresses, since the probe dials the pod IP. */
  serve(port: number, reply: string): string;
  /** Connects to the port on 127.0.0.1 (the pod's own loopback on Docker) and prints what comes back. */
  talk(port: number): string;
}

const hostNode: Tools = {
  serve: (port, reply) => `node -e "require('net').createServer((c)=>{c.on('error',()=>{});c.end('${reply}\\n')}).listen(${port},'127.0.0.1')"`,
  talk: (port) => `node -e "require('net').connect(${port},'127.0.0.1').on('data',(d)=>process.stdout.write(String(d)))"`,
};

const busyboxNc: Tools = {
  // -ll with -e: a persistent server, one `echo` per connection, so no connection meets a gap between listens.
  serve: (port, reply) => `nc -ll -p ${port} -e echo ${reply}`,
  talk: (port) => `nc 127.0.0.1 ${port} </dev/null`,
};

/**
 * A service's shell ends at the kubelet's SIGTERM at once on both runtimes (a handler, which PID 1
 * under Docker honours), its servers with it; the test about a PID 1 without one `exec`s sleep.
 */
const STOPS_ON_TERM = 'trap "exit 143" TERM;';

function toolsOf(runtime: KubeletRuntime): Tools {
  return runtime.kind === RuntimeKind.docker ? busyboxNc : hostNode;
}

/** The refused dial in the prober's words, at the address this runtime's prober dials. */
function refusedDial(runtime: KubeletRuntime, pod: V1Pod, port: number): string {
  const address = runtime.kind === RuntimeKind.docker ? pod.status?.podIP : '127.0.0.1';
  return `Startup probe failed: dial tcp ${address}:${port}: connect: connection refused`;
}

describeOnRuntimes(NS, (runtime) => {
  const pod = (name: string, initContainers: V1Container[], main: string) => podOf(runtime.images.shell, name, initContainers, main);

  const podWhen = (name: string, wanted: (pod: V1Pod) => boolean, what: string, timeoutMs?: number) => podWhenIn(runtime.api, NS, name, wanted, what, timeoutMs);

  const ended = (p: V1Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

  async function eventsOf(name: string): Promise<CoreV1Event[]> {
    return (await runtime.api.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=${name}` })).items;
  }

  test("the container waits until the sidecar's port opens; the sidecar is started and ready from then on", async () => {
    const port = await freePort();
    const tools = toolsOf(runtime);
    // The server comes up after about a second: the first attempts are refused.
    const service: V1Container = {
      name: 'db',
      image: runtime.images.shell,
      command: ['/bin/sh', '-c', `${STOPS_ON_TERM} sleep 1.2; ${tools.serve(port, 'hello')} & wait`],
      restartPolicy: 'Always',
      startupProbe: probe(port),
    };
    // The sidecar's first running status, before its port opens: watched, since it lasts about a second.
    const firstRunning = await podFirstSeen(runtime.cluster, NS, 'waits', (p) => p.status?.initContainerStatuses?.[0]?.state?.running !== undefined);
    // The step's first running status, watched too: its `talk` ends at once, and a read after the
    // pod ended finds the sidecar stopped (started: false), which says nothing of when it started.
    const stepRunning = await podFirstSeen(runtime.cluster, NS, 'waits', (p) => p.status?.containerStatuses?.[0]?.state?.running !== undefined || ended(p));
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('waits', [service], tools.talk(port)) });

    const starting = await firstRunning.seen;
    expect(starting.status?.initContainerStatuses?.[0]).toMatchObject({ started: false, ready: false });
    expect(starting.status?.phase).toBe('Pending');

    const running = await stepRunning.seen;
    expect(running.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    expect(running.status?.initContainerStatuses?.[0]).toMatchObject({ started: true, restartCount: 0 });
    const done = await podWhen('waits', ended, 'to end');
    expect(done.status?.phase).toBe('Succeeded');
    expect(await runtime.api.readNamespacedPodLog({ name: 'waits', namespace: NS, container: 'step' })).toBe('hello\n');

    const events = await eventsOf('waits');
    const unhealthy = events.filter((e) => e.reason === 'Unhealthy');
    expect(unhealthy.length).toBeGreaterThan(0);
    expect(unhealthy[0]).toMatchObject({ type: 'Warning', message: refusedDial(runtime, done, port), involvedObject: { fieldPath: 'spec.initContainers{db}' } });
    // The step started after the sidecar's port opened, never before.
    const started = events.filter((e) => e.reason === 'Started').map((e) => e.involvedObject.fieldPath);
    expect(started).toEqual(['spec.initContainers{db}', 'spec.containers{step}']);
  });

  test('a port that never opens: after failureThreshold failures the sidecar is killed and started again, and the step never starts', async () => {
    const port = await freePort();
    const service: V1Container = { name: 'db', image: runtime.images.shell, command: ['/bin/sh', '-c', 'echo up; exec sleep 60'], restartPolicy: 'Always', startupProbe: probe(port, 2) };
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('never', [service], 'echo should-not-run') });

    const restarted = await podWhen('never', (p) => (p.status?.initContainerStatuses?.[0]?.restartCount ?? 0) > 0, 'to restart its sidecar');
    // `sleep` as PID 1 under Docker ignores the SIGTERM: killed after the grace period.
    expect(restarted.status?.initContainerStatuses?.[0]?.lastState?.terminated).toMatchObject({ exitCode: runtime.stoppedExitCode, reason: 'Error' });
    expect(restarted.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('PodInitializing');
    expect(restarted.status?.phase).toBe('Pending');
    const events = await eventsOf('never');
    expect(events.find((e) => e.reason === 'Killing')).toMatchObject({
      type: 'Normal',
      message: 'Init container db failed startup probe',
      involvedObject: { fieldPath: 'spec.initContainers{db}' },
    });
    const unhealthy = events.find((e) => e.reason === 'Unhealthy');
    expect(unhealthy?.message).toBe(refusedDial(runtime, restarted, port));
    expect(unhealthy?.count).toBeGreaterThanOrEqual(2);
    expect(events.some((e) => e.involvedObject.fieldPath === 'spec.containers{step}' && e.reason === 'Started')).toBe(false);
    await runtime.api.deleteNamespacedPod({ name: 'never', namespace: NS, gracePeriodSeconds: 0 });
  }, 120_000);

  test("a port gate on a service's second port: the step starts once both are open, talks to both, and the gate stops cleanly", async () => {
    const [tcp, web] = [await freePort(), await freePort()];
    const tools = toolsOf(runtime);
    const service: V1Container = {
      name: 'db',
      image: runtime.images.shell,
      // The second port opens a second after the first: the step waits for the gate too, not only for the service.
      command: ['/bin/sh', '-c', `${STOPS_ON_TERM} ${tools.serve(tcp, 'one')} & sleep 1; ${tools.serve(web, 'two')} & wait`],
      restartPolicy: 'Always',
      startupProbe: probe(tcp),
    };
    // The gate's shell traps TERM, so it ends 0 at the kubelet's stop on both runtimes (a handler counts for PID 1).
    const gate: V1Container = { name: `port-${web}`, image: runtime.images.shell, command: ['/bin/sh', '-c', PORT_GATE_SCRIPT], restartPolicy: 'Always', startupProbe: probe(web) };
    await runtime.api.createNamespacedPod({ namespace: NS, body: pod('gate', [service, gate], `${tools.talk(tcp)} && ${tools.talk(web)}`) });
    const done = await podWhen('gate', (p) => ended(p) && p.status?.initContainerStatuses?.every((s) => s.state?.terminated) === true, 'to end and stop its sidecars');

    expect(done.status?.phase).toBe('Succeeded');
    expect(await runtime.api.readNamespacedPodLog({ name: 'gate', namespace: NS, container: 'step' })).toBe('one\ntwo\n');
    expect(done.status?.initContainerStatuses?.find((s) => s.name === `port-${web}`)?.state?.terminated).toMatchObject({ exitCode: 0 });
    const started = (await eventsOf('gate')).filter((e) => e.reason === 'Started').map((e) => e.involvedObject.fieldPath);
    expect(started).toEqual(['spec.initContainers{db}', `spec.initContainers{port-${web}}`, 'spec.containers{step}']);
  });
});

/** The catalog's `kong/go-echo` stand-in is a process-runtime image (a node script): on Docker the image is the real one. */
describe("on the process runtime, the catalog's echo server", () => {
  const kube = embeddedClusterForFile(`${NS}-catalog`);
  const namespace = `${NS}-catalog`;

  test('serves as a service, with a port gate on its second port: the step talks to both', async () => {
    const [tcp, web] = [await freePort(), await freePort()];
    const echo: V1Container = {
      name: 'echo',
      image: 'kong/go-echo:0.3.0',
      env: [
        { name: 'TCP_PORT', value: String(tcp) },
        { name: 'HTTP_PORT', value: String(web) },
        { name: 'POD_NAME', value: 'gated' },
      ],
      ports: [{ containerPort: tcp }, { containerPort: web }],
      restartPolicy: 'Always',
      startupProbe: probe(tcp),
    };
    const gate: V1Container = { name: `port-${web}`, image: 'alpine:3.20', command: ['/bin/sh', '-c', PORT_GATE_SCRIPT], restartPolicy: 'Always', startupProbe: probe(web) };
    const talk = `node -e "const s=require('net').connect(${tcp},'localhost',()=>s.write('ping\\n'));s.on('data',(d)=>{process.stdout.write(String(d));s.end()})"`;
    const post = `node -e "fetch('http://127.0.0.1:${web}/',{method:'POST',body:'body'}).then((r)=>r.text()).then((t)=>process.stdout.write(t))"`;
    await kube.api.createNamespacedPod({ namespace, body: podOf('alpine:3.20', 'gated', [echo, gate], `${talk} && ${post}`) });
    const done = await waitFor(
      async () => {
        const p = await kube.api.readNamespacedPod({ name: 'gated', namespace });
        const over = p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
        return over && p.status?.initContainerStatuses?.every((s) => s.state?.terminated) === true ? p : undefined;
      },
      { timeoutMs: 60_000, what: 'pod gated to end and stop its sidecars' },
    );

    expect(done.status?.phase).toBe('Succeeded');
    expect(await kube.api.readNamespacedPodLog({ name: 'gated', namespace, container: 'step' })).toBe('Running on Pod gated.\nping\nRunning on Pod gated.\nbody\n');
    expect(await kube.api.readNamespacedPodLog({ name: 'gated', namespace, container: 'echo' })).toMatch(new RegExp(`^\\d{4}/\\d\\d/\\d\\d \\d\\d:\\d\\d:\\d\\d Listening on HTTP port ${web}\n`));
  });

  test('the API refuses a startup probe the embedded kubelet cannot run, and malformed host aliases (whatever the runtime)', async () => {
    const exec = podOf('alpine:3.20', 'exec-probe', [{ name: 'db', image: 'alpine:3.20', restartPolicy: 'Always', startupProbe: { exec: { command: ['true'] } } }], 'true');
    const refused = await kube.api.createNamespacedPod({ namespace, body: exec }).catch((e: unknown) => e);
    expect(String((refused as { body?: unknown }).body)).toContain('spec.initContainers[0].startupProbe: Unsupported value: \\"exec\\": supported values: \\"tcpSocket\\"');

    const aliases = podOf('alpine:3.20', 'aliases', [], 'true');
    aliases.spec!.hostAliases = [{ ip: 'localhost', hostnames: ['db'] }];
    const refusedAliases = await kube.api.createNamespacedPod({ namespace, body: aliases }).catch((e: unknown) => e);
    expect(String((refusedAliases as { body?: unknown }).body)).toContain('spec.hostAliases[0].ip: Invalid value: \\"localhost\\": must be a valid IP address');
  });
});
