/**
 * Services on a real build: the state machine definition run locally against the embedded
 * cluster. The step's pod gets each service as a native sidecar (a startup probe on its first
 * port, a port gate on the next) and the step's container starts only once every port accepts
 * connections: here one service opens its port a second late, and the step, which connects at
 * once, succeeds. The catalog's `kong/go-echo` is another, and a third runs the slow server's image
 * with an `entrypoint` and a `command` of its own instead of the image's (a container's command and
 * args, as the kubelet runs them).
 * On the process runtime: the services are this machine's processes on 127.0.0.1 (the catalog's
 * echo stand-in among them), and the startup probes dial 127.0.0.1.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { freePort } from './fixtures/free-port.js';
import { launchedPods } from './fixtures/launched-pods.js';

/** A server that takes a second to listen (a database replaying its log, say), on $PORT. */
const SLOW_IMAGE = 'registry.example.com/ci/slow-server:1';
const server = (says: string) => `exec node -e "require('net').createServer((c)=>{c.on('error',()=>{});c.end('${says}\\n')}).listen(Number(process.env.PORT),'127.0.0.1')"`;
const SLOW_SERVER = `sleep 1; ${server('slow says hi')}`;

let root: string;
let cluster: EmbeddedCluster;
let api: CoreV1Api;
let kubeconfig: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'services-'));
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, images: [{ image: SLOW_IMAGE, size: 1_000_000, entrypoint: ['/bin/sh', '-c', SLOW_SERVER] }] });
  kubeconfig = path.join(root, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await cluster?.stop();
  await rm(root, { recursive: true, force: true });
});


/** What the step runs on this machine: connect to a port, send a line, print the answer. */
const talk = (port: number) =>
  `node -e "const s=require('net').connect(${port},'localhost',()=>s.write('ping\\n'));s.on('data',(d)=>{process.stdout.write(String(d));s.end()})"`;

async function build(id: string, pipeline: string) {
  const launched = launchedPods(api, 'default');
  const events: CoreV1Event[] = [];
  const execution = startLocalExecution(
    { build: { id, trigger: 'test' }, pipeline: { file: 'ci.yml', text: pipeline }, withoutSource: 'this build needs no source' },
    {
      runtime: localTaskRuntime({ kubeconfig, namespace: 'default', logsDir: path.join(root, 'logs') }),
      overrides: { waitMs: 50, retryMs: 10 },
      onEvent: (event) => {
        launched.onEvent(event);
        // The pod's events before FinishStep deletes it with its events' object.
        if (event.type === 'StateEntered' && event.state?.name === 'FinishStep') {
          void api.listNamespacedEvent({ namespace: 'default' }).then((list) => events.push(...list.items));
        }
      },
    },
  );
  const summary = await execution.result;
  return { summary, pods: await launched.pods(), events };
}

describe('services on the embedded cluster', () => {
  it('starts the step once every service port accepts connections, and the step talks to them over TCP', async () => {
    const [echoPort, httpPort, slowPort, toldPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const pipeline = `version: 1
checkout: false
service-start-grace: 30s
services:
  - name: echo
    image: kong/go-echo:0.3.0
    env: { TCP_PORT: "${echoPort}", HTTP_PORT: "${httpPort}", POD_NAME: "echo-service" }
    ports: [${echoPort}, ${httpPort}]
steps:
  - name: test
    image: node:22-alpine
    commands:
      - ${JSON.stringify(talk(echoPort))}
      - ${JSON.stringify(talk(slowPort))}
      - ${JSON.stringify(talk(toldPort))}
    services:
      - name: slow
        image: ${SLOW_IMAGE}
        env: { PORT: "${slowPort}" }
        ports: [${slowPort}]
      - name: told
        image: ${SLOW_IMAGE}
        entrypoint: [/bin/sh, -c]
        command: [${JSON.stringify(server('told says hi'))}]
        env: { PORT: "${toldPort}" }
        ports: [${toldPort}]
`;
    const { summary, pods, events } = await build('services-ok', pipeline);

    expect({ status: summary.status, error: summary.error, cause: summary.cause }).toEqual({ status: 'SUCCEEDED', error: null, cause: null });
    const [step] = summary.steps;
    expect(step?.status).toBe('succeeded');
    const log = await readFile(path.join(root, 'logs', 'services-ok', 'test.log'), 'utf8');
    expect(log).toContain('Running on Pod echo-service.\nping\n');
    expect(log).toContain('slow says hi\n');
    // Not the image's entrypoint (which would say "slow says hi" a second late) but the service's own.
    expect(log).toContain('told says hi\n');

    const [pod] = pods;
    expect(pod?.spec?.initContainers?.map((c) => [c.name, c.restartPolicy, c.startupProbe?.tcpSocket?.port])).toEqual([
      ['echo', 'Always', echoPort],
      ['slow', 'Always', slowPort],
      ['told', 'Always', toldPort],
      [`port-${httpPort}`, 'Always', httpPort],
    ]);
    expect(pod?.spec?.initContainers?.find((c) => c.name === 'told')).toMatchObject({ command: ['/bin/sh', '-c'], args: [server('told says hi')] });
    expect(pod?.spec?.initContainers?.[0]?.startupProbe).toMatchObject({ periodSeconds: 1, failureThreshold: 30 });
    expect(pod?.spec?.hostAliases).toEqual([{ ip: '127.0.0.1', hostnames: ['echo', 'slow', 'told'] }]);

    // The slow service's port was refused at first; the step started only after it opened.
    const own = events.filter((e) => e.involvedObject.name === pod?.metadata?.name);
    const refused = own.find((e) => e.reason === 'Unhealthy' && e.involvedObject.fieldPath === 'spec.initContainers{slow}');
    expect(refused?.message).toBe(`Startup probe failed: dial tcp 127.0.0.1:${slowPort}: connect: connection refused`);
    const started = own.filter((e) => e.reason === 'Started').map((e) => e.involvedObject.fieldPath);
    expect(started).toEqual(['spec.initContainers{echo}', 'spec.initContainers{slow}', 'spec.initContainers{told}', `spec.initContainers{port-${httpPort}}`, 'spec.containers{step}']);
  }, 30_000);
});
