/**
 * Whole builds through the real definition while the Kubernetes API misbehaves: a fifth of the
 * requests answered 429 (with Retry-After), 500, 503 or dropped, injected at the embedded cluster's
 * HTTP layer with seeded randomness; an API that answers 503 to everything; and a proxy that loses
 * the answer to a create the server did carry out (the case that makes launching idempotent).
 *
 * Pods are counted on a watch stream, which no fault touches: every ADDED is one pod created.
 */
import { randomInt } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster, type Fault, type FaultRequest } from '../lib/emulators/kubernetes/index.js';
import { kubeconfigYaml } from '../lib/emulators/kubernetes/kubeconfig.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { stepPodName, workspaceClaimName } from '../lib/kube/index.js';
import { openWatch } from './fixtures/watch-events.js';

const NAMESPACE = 'default';
/**
 * Three fixed seeds, so that every CI run meets the same fault sequences and a red run can be
 * replayed; `npm run test:fuzz` (STEP_RUNNER_FAULT_SEED=random) draws three new ones and prints
 * them. Each test's name carries its seed; to run one again:
 * STEP_RUNNER_FAULT_SEED=123456 npm run jest -- test/reliability-kube-faults
 * (or several, STEP_RUNNER_FAULT_SEED=1,2,3; RELIABILITY_FAULT_RATE=0.35 fails more requests). A seed
 * fixes which of the handlers' requests fail, in the order they are made; the builds' own timing
 * can still shift a fault from one request to the next, so a replay is close, not always exact.
 * Replaying prints the faults injected per seed.
 */
const FIXED_SEEDS = [1_771_468_512, 402_245_117, 1_234_567];
const SEEDS = faultSeeds(process.env.STEP_RUNNER_FAULT_SEED);
const FAULT_RATE = Number(process.env.RELIABILITY_FAULT_RATE ?? 0.2);

function faultSeeds(given: string | undefined): number[] {
  if (!given) return FIXED_SEEDS;
  if (given === 'random') {
    const drawn = Array.from({ length: 3 }, () => randomInt(1, 2 ** 31));
    process.stderr.write(`fault seeds ${drawn.join(',')} (replay: STEP_RUNNER_FAULT_SEED=${drawn.join(',')})\n`);
    return drawn;
  }
  const seeds = given.split(',').map((text) => Number(text.trim()));
  if (seeds.some((seed) => !Number.isSafeInteger(seed))) throw new Error(`STEP_RUNNER_FAULT_SEED must be integers separated by commas, or "random", not "${given}"`);
  return seeds;
}

let cluster: EmbeddedCluster;
let scratch: string;
/** What the API does to the next request; switched per test. */
let faults: (request: FaultRequest) => Fault | undefined = () => undefined;
const injected: Record<string, number> = {};
let requests = 0;
/** Pod name -> how many times it was created (ADDED on the watch). */
const created = new Map<string, number>();
let watch: IncomingMessage | undefined;
const WITNESS_TIMEOUT = 86_399;

/** mulberry32: small, seeded, good enough to pick faults reproducibly. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FAULT_KINDS: Fault[] = [
  // The apiserver's max-in-flight filter answers 429 with Retry-After: 1.
  { kind: 'status', code: 429, retryAfterSeconds: 1 },
  { kind: 'status', code: 500 },
  { kind: 'status', code: 503 },
  { kind: 'drop' },
];

function randomFaults(seed: number, rate: number) {
  const random = seeded(seed);
  return (): Fault | undefined => {
    requests++;
    if (random() >= rate) return undefined;
    const fault = FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)]!;
    const key = fault.kind === 'drop' ? 'drop' : String(fault.code);
    injected[key] = (injected[key] ?? 0) + 1;
    return fault;
  };
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'reliability-faults-'));
  cluster = await startEmbeddedCluster({
    workspace: scratch,
    timings: FAST_TIMINGS,
    // The test's own watch (known by its timeout) is never faulted: it is the witness, not the
    // subject. The handlers' requests, watches included, are.
    faults: (request) => (request.query.get('timeoutSeconds') === String(WITNESS_TIMEOUT) ? undefined : faults(request)),
  });
  await writeFile(path.join(scratch, 'kubeconfig'), cluster.kubeconfigYaml());
  watch = await watchPodCreations(cluster.url);
});

afterAll(async () => {
  watch?.destroy();
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
});

beforeEach(() => {
  faults = () => undefined;
  for (const key of Object.keys(injected)) delete injected[key];
  requests = 0;
});

function watchPodCreations(url: string): Promise<IncomingMessage> {
  return openWatch<{ metadata: { name: string } }>(`${url}/api/v1/namespaces/${NAMESPACE}/pods?watch=true&timeoutSeconds=${WITNESS_TIMEOUT}`, (event) => {
    if (event.type === 'ADDED') created.set(event.object.metadata.name, (created.get(event.object.metadata.name) ?? 0) + 1);
  });
}

let builds = 0;
async function build(pipeline: string, kubeconfig = path.join(scratch, 'kubeconfig')) {
  const id = `faults-${++builds}-${Date.now().toString(36)}`;
  const runtime = localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir: path.join(scratch, 'logs') });
  const events: ExecutionEvent[] = [];
  const execution = startLocalExecution(
    { build: { id, trigger: 'test' }, pipeline: { file: 'pipeline.yml', text: pipeline }, withoutSource: 'these builds test their steps, not a checkout' },
    { runtime, overrides: { waitMs: 50, retryMs: 10 }, onEvent: (event) => events.push(event) },
  );
  return { id, summary: await execution.result, events };
}

const step = (name: string, image: string, command: string) =>
  `  - name: ${name}\n    image: ${image}\n    commands: [${JSON.stringify(command)}]\n`;
// The sleeps make for several polls per step, so each build makes a few dozen API requests.
const GOOD = `version: 1\nsteps:\n${step('one', 'alpine:3.20', 'sleep 0.5; echo first')}${step('two', 'busybox:1.37', 'sleep 0.5; echo second')}`;
// The faults are about the kubelet's path: the registry check would stop the build before any pod.
const MISSING = `version: 1\nsteps:\n${step('one', 'alpine:3.20', 'echo first')}${step('pull', 'alpine:0.0-missing', 'true')}    image-check: false\n${step('never', 'alpine:3.20', 'true')}`;

/** Pods of the build each created exactly once: a retried create never made a second pod. */
function expectCreatedOnce(id: string, steps: string[]) {
  expect(steps.map((name) => [name, created.get(stepPodName(id, name)) ?? 0])).toEqual(steps.map((name) => [name, 1]));
}

describe.each(SEEDS.map((seed) => ({ seed })))(`with seed $seed (replay: STEP_RUNNER_FAULT_SEED=$seed), ${Math.round(FAULT_RATE * 100)} %% of API requests failing`, ({ seed }) => {
  it('a good build still succeeds, each pod created once', async () => {
    faults = randomFaults(seed, FAULT_RATE);
    const { id, summary } = await build(GOOD);
    expect(summary).toMatchObject({ status: 'SUCCEEDED', error: null });
    expect(summary.steps.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    expectCreatedOnce(id, ['one', 'two']);
    // The faults did happen: a run that injected nothing would prove nothing.
    expect(Object.values(injected).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    if (process.env.STEP_RUNNER_FAULT_SEED) process.stderr.write(`seed ${seed}: ${requests} requests, ${JSON.stringify(injected)}\n`);
  }, 25_000);

  it('a missing image still ends ImagePullFailed, and the next step is never created', async () => {
    faults = randomFaults(seed + 1000, FAULT_RATE);
    const { id, summary } = await build(MISSING);
    expect(summary).toMatchObject({ status: 'FAILED', error: 'ImagePullFailed' });
    expect(summary.cause).toContain('alpine:0.0-missing');
    expect(summary.steps.map((s) => s.status)).toEqual(['succeeded', 'failed', 'not-run']);
    expectCreatedOnce(id, ['one', 'pull']);
    expect(created.get(stepPodName(id, 'never'))).toBeUndefined();
  }, 25_000);
});

describe('an API that answers 503 to everything', () => {
  it('fails the build with KubernetesUnavailable naming the call, after the retries', async () => {
    // Retry-After: 0 keeps the handlers' backoff from sleeping; the number of attempts is the same.
    faults = () => ({ kind: 'status', code: 503, retryAfterSeconds: 0 });
    const { id, summary, events } = await build(GOOD);
    expect(summary.status).toBe('FAILED');
    expect(summary.error).toBe('KubernetesUnavailable');
    // The build's first call is PrepareBuild creating its workspace claim.
    expect(summary.cause).toContain(`create persistentvolumeclaim ${NAMESPACE}/${workspaceClaimName(id)}`);
    expect(summary.cause).toContain('failed 5 times');
    expect(summary.cause).toContain('503 ServiceUnavailable');
    // The state machine retried PrepareBuild (3 more times) before giving up, and no step started.
    expect(events.filter((e) => e.type === 'StateRetried' && e.state?.name === 'PrepareBuild')).toHaveLength(3);
    expect(events.some((e) => e.state?.name === 'LaunchStep')).toBe(false);
    expect(created.get(stepPodName(id, 'one'))).toBeUndefined();
  }, 25_000);
});

/**
 * A proxy in front of the cluster that forwards every request but, for the first create of each
 * pod, drops the connection after the server has answered: the pod exists, the caller saw an error.
 */
async function startLosingProxy(target: string): Promise<{ url: string; lost: string[]; server: Server }> {
  const lost: string[] = [];
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const isCreate = req.method === 'POST' && /\/pods$/.test(req.url?.split('?')[0] ?? '');
      const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        if (!isCreate) {
          // Streamed, not buffered: watches stay open for as long as the caller wants them.
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const name = (JSON.parse(body.toString('utf8')) as { metadata: { name: string } }).metadata.name;
          if (answer.statusCode === 201 && !seen.has(name)) {
            seen.add(name);
            lost.push(name);
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(parts));
        });
      });
      res.on('close', () => upstream.destroy());
      upstream.on('error', () => req.socket.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lost, server };
}

describe('a create whose answer is lost on the way back', () => {
  it('adopts the pod the first attempt created instead of creating another', async () => {
    const proxy = await startLosingProxy(cluster.url);
    try {
      const kubeconfig = path.join(scratch, 'kubeconfig-proxy');
      await writeFile(kubeconfig, kubeconfigYaml(proxy.url));
      const { id, summary, events } = await build(GOOD, kubeconfig);
      expect(summary.status).toBe('SUCCEEDED');
      expect(proxy.lost).toEqual([stepPodName(id, 'one'), stepPodName(id, 'two')]);
      expectCreatedOnce(id, ['one', 'two']);
      const launches = events.filter((e) => e.type === 'StateExited' && e.state?.name === 'LaunchStep');
      expect(launches.map((e) => (e.state?.output as { poll: { reason: string } }).poll.reason)).toEqual(['PodAdopted', 'PodAdopted']);
    } finally {
      proxy.server.closeAllConnections();
      await new Promise((resolve) => proxy.server.close(resolve));
    }
  }, 25_000);
});
