/**
 * pods/exec on the embedded cluster, over real HTTP and WebSockets: @kubernetes/client-node's Exec
 * (v5.channel.k8s.io, stdin closed with the v5 close signal), a raw v4.channel.k8s.io client, the
 * real kubectl (exec, exec -i, cp both ways), the apiserver's refusals before the upgrade and the
 * kubelet's after it, and exec'd processes ending with their pod and with the cluster. kubectl is
 * needed on PATH for its part (CI installs it; under CI=true a missing kubectl fails).
 * On the process runtime: an exec'd command is a process of this machine (its pid checked here),
 * and one that cannot start fails in containerd's words, as that runtime writes them.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { CoreV1Api, Exec, type V1Pod, type V1Status } from '@kubernetes/client-node';
import WebSocket from 'ws';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { KUBECTL_ON_PATH } from './fixtures/kubectl.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';

const NS = 'default';
let cluster: EmbeddedCluster;
let api: CoreV1Api;
let dir: string;
/** Method and pod of every exec request, in order. */
const execRequests: { method: string; pod: string }[] = [];

function podBody(name: string, containers: { name: string; script: string }[], extra: Partial<V1Pod['spec']> = {}): V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      volumes: [{ name: 'workspace', emptyDir: {} }],
      containers: containers.map(({ name: container, script }) => ({
        name: container,
        image: 'alpine:3.20',
        command: ['/bin/sh', '-c', script],
        workingDir: '/workspace',
        env: [
          { name: 'CI_WORKSPACE', value: '/workspace' },
          { name: 'MARK', value: 'from-spec' },
        ],
        volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
      })),
      ...extra,
    },
  };
}

/**
 * Prints where it runs, then waits for `ready` and prints `data`: what an exec writes, the container
 * reads. Then it waits for `done` before it ends: an exec still running when the container's first
 * process exits is killed with it (137; pid_namespaces(7): when a PID namespace's init ends, the
 * kernel SIGKILLs every process in it), and the exec that wrote `ready` may not have been reaped yet
 * on a busy machine. The test says `done` once it has the writing exec's status.
 */
const WAITS_FOR_DATA = 'pwd; while [ ! -e ready ]; do sleep 0.2; done; cat data; while [ ! -e done ]; do sleep 0.2; done';
const SLEEPS = 'exec sleep 600';

async function waitForPod(name: string, done: (pod: V1Pod) => boolean, what: string, on: CoreV1Api = api): Promise<V1Pod> {
  return waitFor(
    async () => {
      const pod = await on.readNamespacedPod({ namespace: NS, name });
      return done(pod) && pod;
    },
    { timeoutMs: 10_000, what: `pod ${name} ${what}` },
  );
}

const running = (container: string) => (pod: V1Pod) => pod.status?.containerStatuses?.find((s) => s.name === container)?.state?.running !== undefined;

/** The first line the pod's container logged: there, its working directory. */
async function firstLogLine(name: string): Promise<string> {
  return waitFor(async () => (await api.readNamespacedPodLog({ namespace: NS, name })).split('\n')[0] || undefined, {
    timeoutMs: 10_000,
    what: `pod ${name} to log its working directory`,
  });
}

interface ExecResult {
  stdout: string;
  stderr: string;
  status: V1Status | undefined;
  closeCode: number;
}

/** client-node's Exec, as lib/kube would call it; `input` is stdin, ended after it is sent. */
async function clientExec(pod: string, container: string, command: string[], input?: string | Buffer, kubeConfig = cluster.kubeConfig()): Promise<ExecResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  let status: V1Status | undefined;
  const stdin = input === undefined ? null : Readable.from([Buffer.from(input)]);
  const ws = await new Exec(kubeConfig).exec(NS, pod, container, command, stdout, stderr, stdin, false, (s) => {
    status = s;
  });
  const closeCode = await new Promise<number>((resolve) => ws.on('close', (code: number) => resolve(code)));
  return { stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), status, closeCode };
}

/** Starts `sh -c 'echo $$; exec sleep 600'` in a pod: the session, and the pid of the sleep. */
async function startSleeper(pod: string, kubeConfig = cluster.kubeConfig()): Promise<{ pid: number; done: Promise<ExecResult> }> {
  let out = '';
  const stdout = new PassThrough().on('data', (chunk: Buffer) => (out += chunk.toString()));
  let status: V1Status | undefined;
  const ws = await new Exec(kubeConfig).exec(NS, pod, 'step', ['sh', '-c', 'echo $$; exec sleep 600'], stdout, null, null, false, (s) => {
    status = s;
  });
  const done = new Promise<ExecResult>((resolve) => ws.on('close', (code: number) => resolve({ stdout: out, stderr: '', status, closeCode: code })));
  const pid = await waitFor(() => (out.includes('\n') ? Number(out.trim()) : undefined), { timeoutMs: 10_000, what: 'the exec to print its pid' });
  return { pid, done };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface RawAnswer {
  code: number;
  contentType: string | undefined;
  body: string;
}

/** One request to the exec path, answered without an upgrade (an upgrade fails the test). */
function refusal(path: string, headers: Record<string, string>, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, cluster.url), { method, headers });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, contentType: res.headers['content-type'], body: Buffer.concat(chunks).toString() }));
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      reject(new Error(`${path} was upgraded`));
    });
    req.on('error', reject);
    req.end();
  });
}

function websocketHeaders(protocols: string): Record<string, string> {
  return {
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    'Sec-WebSocket-Protocol': protocols,
  };
}

const V5 = websocketHeaders('v5.channel.k8s.io');
const SPDY = { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' };

function execPath(pod: string, query: string): string {
  return `/api/v1/namespaces/${NS}/pods/${pod}/exec?${query}`;
}

const status = (answer: RawAnswer) => JSON.parse(answer.body) as Record<string, unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'step-runner-exec-'));
  cluster = await startEmbeddedCluster({
    timings: FAST_TIMINGS,
    workspace: dir,
    faults: ({ method, path }) => {
      const exec = /\/pods\/([^/]+)\/exec$/.exec(path);
      if (exec) execRequests.push({ method, pod: exec[1]! });
      return undefined;
    },
  });
  api = cluster.kubeConfig().makeApiClient(CoreV1Api);
  await api.createNamespacedPod({ namespace: NS, body: podBody('work', [{ name: 'step', script: WAITS_FOR_DATA }]) });
  await api.createNamespacedPod({
    namespace: NS,
    body: podBody('two', [
      { name: 'main', script: SLEEPS },
      { name: 'quick', script: 'true' },
    ]),
  });
  await api.createNamespacedPod({ namespace: NS, body: podBody('stuck', [{ name: 'step', script: 'true' }], { nodeSelector: { 'kubernetes.io/hostname': 'another-node' } }) });
  await waitForPod('work', running('step'), 'running');
  await waitForPod('two', (p) => running('main')(p) && p.status?.containerStatuses?.find((s) => s.name === 'quick')?.state?.terminated !== undefined, 'with main running and quick done');
});

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('exec with client-node (v5.channel.k8s.io)', () => {
  test('runs in the container: its working directory, its environment, HOSTNAME the pod', async () => {
    const containerDir = await firstLogLine('work');
    const result = await clientExec('work', 'step', ['sh', '-c', 'pwd; echo "$CI_WORKSPACE"; echo "$MARK"; echo "$HOSTNAME"']);
    expect(result).toEqual({ stdout: `${containerDir}\n${containerDir}\nfrom-spec\nwork\n`, stderr: '', status: { metadata: {}, status: 'Success' }, closeCode: 1000 });
  });

  test('streams stdin until the client closes it, and all of stdout back', async () => {
    const input = randomBytes(3 * 1024 * 1024).toString('base64');
    const result = await clientExec('work', 'step', ['cat'], input);
    expect(result.stdout.length).toBe(input.length);
    expect(result.stdout === input).toBe(true);
    expect(result.status).toEqual({ metadata: {}, status: 'Success' });
  });

  test('a non-zero exit: NonZeroExitCode with the code, after stdout and stderr', async () => {
    const result = await clientExec('work', 'step', ['sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(result).toEqual({
      stdout: 'out\n',
      stderr: 'err\n',
      status: {
        metadata: {},
        status: 'Failure',
        message: 'command terminated with non-zero exit code: command terminated with exit code 3',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '3' }] },
      },
      closeCode: 1000,
    });
  });

  test('tty: a terminal, whose one output carries stderr too, sized by the client as its stdout is', async () => {
    let out = '';
    // What client-node takes for a terminal (terminal-size-queue.ts isResizable): it sends this size on the resize channel.
    const stdout = Object.assign(new PassThrough().on('data', (chunk: Buffer) => (out += chunk.toString())), { columns: 91, rows: 17 });
    let status: V1Status | undefined;
    // Waits for the size (which arrives after the start), so that the test waits on the resize, not on time.
    const command = ['sh', '-c', 'echo out; echo err >&2; tty >/dev/null && echo terminal; until [ "$(stty size)" = "17 91" ]; do sleep 0.05; done; echo sized'];
    const ws = await new Exec(cluster.kubeConfig()).exec(NS, 'work', 'step', command, stdout, null, null, true, (s) => {
      status = s;
    });
    await new Promise((resolve) => ws.on('close', resolve));
    // A terminal ends its lines with CR LF (onlcr).
    expect({ out, status }).toEqual({ out: 'out\r\nerr\r\nterminal\r\nsized\r\n', status: { metadata: {}, status: 'Success' } });
  });

  test('a command that cannot start: the runtime error, wrapped by the kubelet and the translator', async () => {
    const result = await clientExec('work', 'step', ['no-such-command', 'x']);
    const runtime = /^failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "no-such-command": executable file not found in \$PATH: unknown$/;
    const kubeletMessage = (result.status?.details?.causes?.[0]?.message ?? '').replace('Internal error occurred: error executing command in container: ', '');
    expect(kubeletMessage).toMatch(runtime);
    expect(result.status).toEqual({
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: Internal error occurred: error executing command in container: ${kubeletMessage}`,
      reason: 'InternalError',
      details: { causes: [{ message: `Internal error occurred: error executing command in container: ${kubeletMessage}` }] },
      code: 500,
    });
  });

  test('a container that is not running: the kubelet refuses, on the error channel after the upgrade', async () => {
    const result = await clientExec('two', 'quick', ['true']);
    expect(result).toEqual({
      stdout: '',
      stderr: '',
      status: {
        metadata: {},
        status: 'Failure',
        message: 'Internal error occurred: unable to upgrade connection: container not found ("quick")',
        reason: 'InternalError',
        details: { causes: [{ message: 'unable to upgrade connection: container not found ("quick")' }] },
        code: 500,
      },
      closeCode: 1000,
    });
  });

  test('what an exec writes in the working directory, the container sees', async () => {
    const result = await clientExec('work', 'step', ['sh', '-c', 'echo hi > data; touch ready']);
    expect(result.status).toEqual({ metadata: {}, status: 'Success' });
    // Its own status is not asked: it races the container's end, as it would on a node.
    await clientExec('work', 'step', ['touch', 'done']);
    await waitForPod('work', (p) => p.status?.phase === 'Succeeded', 'Succeeded');
    expect(await api.readNamespacedPodLog({ namespace: NS, name: 'work' })).toBe(`${await firstLogLine('work')}\nhi\n`);
  });

  test('an init container can be exec\'d into while it runs, and is the one released', async () => {
    const body = podBody('initialising', [{ name: 'step', script: 'cat from-init' }]);
    body.spec!.initContainers = [{ ...body.spec!.containers[0]!, name: 'clone', command: ['/bin/sh', '-c', 'while [ ! -e ready ]; do sleep 0.2; done; echo cloned > from-init'] }];
    await api.createNamespacedPod({ namespace: NS, body });
    await waitForPod('initialising', (p) => p.status?.initContainerStatuses?.[0]?.state?.running !== undefined, 'running its init container');
    expect((await clientExec('initialising', 'clone', ['touch', 'ready'])).status).toEqual({ metadata: {}, status: 'Success' });
    await waitForPod('initialising', (p) => p.status?.phase === 'Succeeded', 'Succeeded');
    expect(await api.readNamespacedPodLog({ namespace: NS, name: 'initialising', container: 'step' })).toBe('cloned\n');
  });

  test("exec'd processes are killed with their container when the pod is deleted", async () => {
    await api.createNamespacedPod({ namespace: NS, body: podBody('doomed', [{ name: 'step', script: SLEEPS }]) });
    await waitForPod('doomed', running('step'), 'running');
    const sleeper = await startSleeper('doomed');
    expect(isAlive(sleeper.pid)).toBe(true);
    await api.deleteNamespacedPod({ namespace: NS, name: 'doomed', gracePeriodSeconds: 1 });
    const result = await sleeper.done;
    expect(result.status).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: command terminated with exit code 137',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '137' }] },
    });
    expect(isAlive(sleeper.pid)).toBe(false);
  });
});

describe('the refusals before the upgrade', () => {
  test('the apiserver: Status errors for the pod, the container, the node, the upgrade, the method', async () => {
    const ghost = await refusal(execPath('ghost', 'command=true&stdout=true'), V5);
    expect({ code: ghost.code, contentType: ghost.contentType, status: status(ghost) }).toEqual({
      code: 404,
      contentType: 'application/json',
      status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "ghost" not found', reason: 'NotFound', details: { name: 'ghost', kind: 'pods' }, code: 404 },
    });
    const cases: [string, Record<string, string>, string, number, string][] = [
      ['two', V5, 'command=true&stdout=true', 400, 'a container name must be specified for pod two, choose one of: [main quick]'],
      ['two', V5, 'command=true&stdout=true&container=nope', 400, 'container nope is not valid for pod two'],
      ['stuck', V5, 'command=true&stdout=true', 400, 'pod stuck does not have a host assigned'],
      ['two', {}, 'command=true&stdout=true&container=main', 400, 'Upgrade request required'],
    ];
    for (const [pod, headers, query, code, message] of cases) {
      const answer = await refusal(execPath(pod, query), headers);
      expect({ pod, query, code: answer.code, status: status(answer) }).toEqual({
        pod,
        query,
        code,
        status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code },
      });
    }
    const deleted = await refusal(execPath('two', 'command=true&container=main'), {}, 'DELETE');
    expect(deleted.code).toBe(405);
  });

  test('SPDY: the kubelet refuses in plain text as it would, and a valid request is told SPDY is not served', async () => {
    const notRunning = await refusal(execPath('two', 'command=true&stdout=true&container=quick'), SPDY, 'POST');
    expect(notRunning).toEqual({ code: 500, contentType: 'text/plain; charset=utf-8', body: 'container not found ("quick")' });
    const noStreams = await refusal(execPath('two', 'command=true&container=main'), SPDY, 'POST');
    expect(noStreams).toEqual({ code: 400, contentType: 'text/plain; charset=utf-8', body: 'you must specify at least 1 of stdin, stdout, stderr' });
    const spdy = await refusal(execPath('two', 'command=true&stdout=true&container=main'), SPDY, 'POST');
    expect(spdy.code).toBe(400);
    expect(status(spdy).message).toMatch(/^the embedded cluster serves pods\/exec over WebSocket only, .*SPDY .* not served/);
  });

  test('pods/exec is in discovery, as the apiserver lists it', async () => {
    const resources = (await (await fetch(`${cluster.url}/api/v1`)).json()) as { resources: { name: string }[] };
    expect(resources.resources.find((r) => r.name === 'pods/exec')).toEqual({ name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] });
  });
});

describe('exec over v4.channel.k8s.io: the kubelet answers itself', () => {
  /** A raw v4 session: the frames received, by channel. */
  function v4Exec(query: string): Promise<{ protocol: string; frames: [number, string][] }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${cluster.url.replace('http', 'ws')}${execPath('two', query)}`, ['v4.channel.k8s.io']);
      const frames: [number, string][] = [];
      ws.on('message', (data) => {
        const frame = data as Buffer;
        frames.push([frame[0]!, frame.subarray(1).toString()]);
      });
      ws.on('close', () => resolve({ protocol: ws.protocol, frames }));
      ws.on('error', reject);
    });
  }

  test("a non-zero exit in containerd's words", async () => {
    const session = await v4Exec('container=main&stdout=true&stderr=true&command=sh&command=-c&command=echo%20out%3B%20exit%202');
    expect(session).toEqual({
      protocol: 'v4.channel.k8s.io',
      frames: [
        [1, ''],
        [1, 'out\n'],
        [
          3,
          JSON.stringify({
            metadata: {},
            status: 'Failure',
            message: 'command terminated with non-zero exit code: error executing command [sh -c echo out; exit 2], exit code 2',
            reason: 'NonZeroExitCode',
            details: { causes: [{ reason: 'ExitCode', message: '2' }] },
          }),
        ],
      ],
    });
  });

  test('a container that is not running: refused before the upgrade, in plain text', async () => {
    const answer = await refusal(execPath('two', 'container=quick&stdout=true&command=true'), websocketHeaders('v4.channel.k8s.io'));
    expect(answer).toEqual({ code: 500, contentType: 'text/plain; charset=utf-8', body: 'container not found ("quick")' });
  });
});

describeRequiring('kubectl exec and cp', KUBECTL_ON_PATH, () => {
  function kubectl(args: string[], input?: string): Promise<{ stdout: string; stderr: string; code: number | null }> {
    const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
    const child = spawn('kubectl', [`--cache-dir=${join(dir, 'cache')}`, ...args], { env, cwd: dir });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(input);
    return new Promise((resolve) => child.on('close', (code) => resolve({ stdout, stderr, code })));
  }

  beforeAll(async () => {
    writeFileSync(join(dir, 'kubeconfig'), cluster.kubeconfigYaml());
    await api.createNamespacedPod({ namespace: NS, body: podBody('kwork', [{ name: 'step', script: WAITS_FOR_DATA }]) });
    await waitForPod('kwork', running('step'), 'running');
  });

  test('exec runs in the working directory the container has, and passes on the exit code', async () => {
    const containerDir = await firstLogLine('kwork');
    expect(await kubectl(['exec', 'kwork', '--', 'sh', '-c', 'pwd; echo "$CI_WORKSPACE"'])).toEqual({ stdout: `${containerDir}\n${containerDir}\n`, stderr: '', code: 0 });
    expect(await kubectl(['exec', 'kwork', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3'])).toEqual({ stdout: 'out\n', stderr: 'err\ncommand terminated with exit code 3\n', code: 3 });
    expect(await kubectl(['exec', '-i', 'kwork', '--', 'cat'], 'typed in\n')).toEqual({ stdout: 'typed in\n', stderr: '', code: 0 });
  });

  test('cp a folder into the container and back, relative to its working directory', async () => {
    mkdirSync(join(dir, 'src', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'src', 'a.txt'), 'one\n');
    writeFileSync(join(dir, 'src', 'sub', 'b.txt'), 'two\n');
    expect(await kubectl(['cp', join(dir, 'src'), 'kwork:copied'])).toMatchObject({ code: 0, stderr: '' });
    expect(await kubectl(['exec', 'kwork', '--', 'sh', '-c', 'find copied -type f | sort; cat copied/sub/b.txt'])).toEqual({
      stdout: 'copied/a.txt\ncopied/sub/b.txt\ntwo\n',
      stderr: '',
      code: 0,
    });
    expect(await kubectl(['cp', 'kwork:copied', join(dir, 'back')])).toMatchObject({ code: 0 });
    expect(readFileSync(join(dir, 'back', 'a.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(dir, 'back', 'sub', 'b.txt'), 'utf8')).toBe('two\n');
  });

  test("kubectl's errors: a container not running, one the pod lacks, a completed pod", async () => {
    expect(await kubectl(['exec', 'two', '-c', 'quick', '--', 'true'])).toEqual({
      stdout: '',
      stderr: 'error: Internal error occurred: unable to upgrade connection: container not found ("quick")\n',
      code: 1,
    });
    expect(await kubectl(['exec', 'kwork', '-c', 'nope', '--', 'true'])).toEqual({ stdout: '', stderr: 'Error from server (BadRequest): container nope is not valid for pod kwork\n', code: 1 });
    expect(await kubectl(['exec', 'kwork', '--', 'sh', '-c', 'echo hi > data; touch ready'])).toEqual({ stdout: '', stderr: '', code: 0 });
    await kubectl(['exec', 'kwork', '--', 'touch', 'done']);
    await waitForPod('kwork', (p) => p.status?.phase === 'Succeeded', 'Succeeded');
    expect(await api.readNamespacedPodLog({ namespace: NS, name: 'kwork' })).toMatch(/\nhi\n$/);
    expect(await kubectl(['exec', 'kwork', '--', 'true'])).toEqual({ stdout: '', stderr: 'error: cannot exec into a container in a completed pod; current phase is Succeeded\n', code: 1 });
  });

  test('kubectl takes the WebSocket path: SPDY (POST) only as its fallback after a refused upgrade', () => {
    // Only kubectl execs into kwork; the one request refused before the upgrade (the unknown
    // container) it tried again over SPDY, as it does against EKS.
    const methods = execRequests.filter((r) => r.pod === 'kwork').map((r) => r.method);
    expect(methods.filter((m) => m === 'POST')).toEqual(['POST']);
    expect(methods.filter((m) => m === 'GET').length).toBeGreaterThanOrEqual(8);
  });
});

test("stopping the cluster kills exec'd processes and ends their sessions", async () => {
  const own = await startEmbeddedCluster({ timings: FAST_TIMINGS, workspace: dir });
  try {
    const ownApi = own.kubeConfig().makeApiClient(CoreV1Api);
    await ownApi.createNamespacedPod({ namespace: NS, body: podBody('held', [{ name: 'step', script: SLEEPS }]) });
    await waitForPod('held', running('step'), 'running', ownApi);
    const sleeper = await startSleeper('held', own.kubeConfig());
    await own.stop();
    expect(isAlive(sleeper.pid)).toBe(false);
    // Cut, as by an apiserver going away: no status, an abnormal closure.
    expect(await sleeper.done).toMatchObject({ status: undefined, closeCode: 1006 });
  } finally {
    await own.stop();
  }
});
