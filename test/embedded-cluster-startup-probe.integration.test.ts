/**
 * Startup probes (tcpSocket) on the embedded cluster, over real HTTP: a sidecar is started (and
 * ready) only once its port accepts connections, and until then the containers after it wait, as
 * with KEP-753 on a real node; each failed attempt is an `Unhealthy` event in the prober's words;
 * after failureThreshold of them the kubelet kills the sidecar and starts it again. The catalog's
 * `kong/go-echo` stand-in serves as a real service would.
 */
import type { CoreV1Event, V1Container, V1Pod } from '@kubernetes/client-node';
import { PORT_GATE_SCRIPT } from '../lib/kube/service-containers.js';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { freePort } from './fixtures/free-port.js';
import { waitFor } from './fixtures/wait-for.js';

const NS = 'probes';
const kube = embeddedClusterForFile(NS);

/** A port nothing listens on now (the test's own processes open it later, or never). */

const probe = (port: number, failureThreshold = 30) => ({ tcpSocket: { port }, periodSeconds: 1, timeoutSeconds: 1, failureThreshold });

function pod(name: string, initContainers: V1Container[], main: string): V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 2,
      initContainers,
      containers: [{ name: 'step', image: 'alpine:3.20', command: ['/bin/sh', '-c', main] }],
    },
  };
}

async function podWhen(name: string, wanted: (pod: V1Pod) => boolean, what: string, timeoutMs = 15_000): Promise<V1Pod> {
  return waitFor(
    async () => {
      const found = await kube.api.readNamespacedPod({ name, namespace: NS });
      return wanted(found) ? found : undefined;
    },
    { timeoutMs, what: `pod ${name} ${what}` },
  );
}

const ended = (p: V1Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

async function eventsOf(name: string): Promise<CoreV1Event[]> {
  return (await kube.api.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=${name}` })).items;
}

/** A node one-liner the step runs (on this machine): connect, send a line, print what comes back. */
const talk = (port: number) =>
  `node -e "const s=require('net').connect(${port},'localhost',()=>s.write('ping\\n'));s.on('data',(d)=>{process.stdout.write(String(d));s.end()})"`;

/** The same over HTTP: POST "body", print the answer. */
const post = (port: number) => `node -e "fetch('http://127.0.0.1:${port}/',{method:'POST',body:'body'}).then((r)=>r.text()).then((t)=>process.stdout.write(t))"`;

test('the container waits until the sidecar\'s port opens; the sidecar is started and ready from then on', async () => {
  const port = await freePort();
  // The server comes up after about a second: the first attempts are refused.
  const service: V1Container = {
    name: 'db',
    image: 'alpine:3.20',
    command: ['/bin/sh', '-c', `sleep 1.2; exec node -e "require('net').createServer((c)=>{c.on('error',()=>{});c.end('hello\\n')}).listen(${port},'127.0.0.1')"`],
    restartPolicy: 'Always',
    startupProbe: probe(port),
  };
  await kube.api.createNamespacedPod({ namespace: NS, body: pod('waits', [service], talk(port)) });

  const starting = await podWhen('waits', (p) => p.status?.initContainerStatuses?.[0]?.state?.running !== undefined, 'to run its sidecar');
  expect(starting.status?.initContainerStatuses?.[0]).toMatchObject({ started: false, ready: false });
  expect(starting.status?.phase).toBe('Pending');

  const running = await podWhen('waits', (p) => p.status?.containerStatuses?.[0]?.state?.running !== undefined || ended(p), 'to start its step');
  expect(running.status?.initContainerStatuses?.[0]).toMatchObject({ started: true, restartCount: 0 });
  const done = await podWhen('waits', ended, 'to end');
  expect(done.status?.phase).toBe('Succeeded');
  expect(await kube.api.readNamespacedPodLog({ name: 'waits', namespace: NS, container: 'step' })).toBe('hello\n');

  const events = await eventsOf('waits');
  const unhealthy = events.filter((e) => e.reason === 'Unhealthy');
  expect(unhealthy.length).toBeGreaterThan(0);
  expect(unhealthy[0]).toMatchObject({
    type: 'Warning',
    message: `Startup probe failed: dial tcp 127.0.0.1:${port}: connect: connection refused`,
    involvedObject: { fieldPath: 'spec.initContainers{db}' },
  });
  // The step started after the sidecar's port opened, never before.
  const started = events.filter((e) => e.reason === 'Started').map((e) => e.involvedObject.fieldPath);
  expect(started).toEqual(['spec.initContainers{db}', 'spec.containers{step}']);
});

test('a port that never opens: after failureThreshold failures the sidecar is killed and started again, and the step never starts', async () => {
  const port = await freePort();
  const service: V1Container = { name: 'db', image: 'alpine:3.20', command: ['/bin/sh', '-c', 'echo up; exec sleep 60'], restartPolicy: 'Always', startupProbe: probe(port, 2) };
  await kube.api.createNamespacedPod({ namespace: NS, body: pod('never', [service], 'echo should-not-run') });

  const restarted = await podWhen('never', (p) => (p.status?.initContainerStatuses?.[0]?.restartCount ?? 0) > 0, 'to restart its sidecar', 20_000);
  expect(restarted.status?.initContainerStatuses?.[0]?.lastState?.terminated).toMatchObject({ exitCode: 143, reason: 'Error' });
  expect(restarted.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('PodInitializing');
  expect(restarted.status?.phase).toBe('Pending');
  const events = await eventsOf('never');
  expect(events.find((e) => e.reason === 'Killing')).toMatchObject({
    type: 'Normal',
    message: 'Init container db failed startup probe',
    involvedObject: { fieldPath: 'spec.initContainers{db}' },
  });
  const unhealthy = events.find((e) => e.reason === 'Unhealthy');
  expect(unhealthy?.message).toBe(`Startup probe failed: dial tcp 127.0.0.1:${port}: connect: connection refused`);
  expect(unhealthy?.count).toBeGreaterThanOrEqual(2);
  expect(events.some((e) => e.involvedObject.fieldPath === 'spec.containers{step}' && e.reason === 'Started')).toBe(false);
  await kube.api.deleteNamespacedPod({ name: 'never', namespace: NS });
}, 30_000);

test('the catalog\'s echo server as a service, with a port gate on its second port: the step talks to both', async () => {
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
  await kube.api.createNamespacedPod({ namespace: NS, body: pod('gated', [echo, gate], `${talk(tcp)} && ${post(web)}`) });
  const done = await podWhen('gated', (p) => ended(p) && p.status?.initContainerStatuses?.every((s) => s.state?.terminated) === true, 'to end and stop its sidecars');

  expect(done.status?.phase).toBe('Succeeded');
  expect(await kube.api.readNamespacedPodLog({ name: 'gated', namespace: NS, container: 'step' })).toBe('Running on Pod gated.\nping\nRunning on Pod gated.\nbody\n');
  expect(await kube.api.readNamespacedPodLog({ name: 'gated', namespace: NS, container: 'echo' })).toMatch(new RegExp(`^\\d{4}/\\d\\d/\\d\\d \\d\\d:\\d\\d:\\d\\d Listening on HTTP port ${web}\n`));
  // The gate idles until stopped, and stops cleanly.
  expect(done.status?.initContainerStatuses?.find((s) => s.name === `port-${web}`)?.state?.terminated).toMatchObject({ exitCode: 0 });
});

test('the API refuses a startup probe the embedded kubelet cannot run, and malformed host aliases', async () => {
  const exec = pod('exec-probe', [{ name: 'db', image: 'alpine:3.20', restartPolicy: 'Always', startupProbe: { exec: { command: ['true'] } } }], 'true');
  const refused = await kube.api.createNamespacedPod({ namespace: NS, body: exec }).catch((e: unknown) => e);
  expect(String((refused as { body?: unknown }).body)).toContain('spec.initContainers[0].startupProbe: Unsupported value: \\"exec\\": supported values: \\"tcpSocket\\"');

  const aliases = pod('aliases', [], 'true');
  aliases.spec!.hostAliases = [{ ip: 'localhost', hostnames: ['db'] }];
  const refusedAliases = await kube.api.createNamespacedPod({ namespace: NS, body: aliases }).catch((e: unknown) => e);
  expect(String((refusedAliases as { body?: unknown }).body)).toContain('spec.hostAliases[0].ip: Invalid value: \\"localhost\\": must be a valid IP address');
});
