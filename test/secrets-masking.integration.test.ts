/**
 * Secrets stay secret. A step gets a Kubernetes Secret as an env var and prints it (on purpose,
 * as a careless `echo` or `set -x` would); a second step prints it and fails, so it reaches the
 * Cause too. Every output is then searched for the value: the whole event history, the console
 * lines, the stored logs, the commit status, the Powertools log lines, the pod specs as the API
 * served them, and `run --json`'s summary. What the step printed is kept, masked as "***".
 *
 * The webhook secret and the GitHub token are checked on every answer and log line by
 * test/webhook.integration.test.ts; here, the GitHub token and an EKS token quoted back by a misbehaving
 * server do not get through either.
 */
import './fixtures/handler-logs-shown.js';
import { jest } from '@jest/globals';
import { get as httpGet, createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { withKubeRetries, SECRET_MASK } from '../lib/kube/index.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { ConsoleOutput } from '../lib/local/console-output.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { runBuild } from '../lib/cli/commands/run.js';
import { gitHubApi } from '../lib/forge/github-api.js';
import { logger } from '../lib/workflow/lambda-task.js';

const NAMESPACE = 'default';
const PASSWORD = 'hunter2-Zq8vX3pL9wR';
/** A multi-line secret: each line may be printed on its own. */
const KEY_FILE = '-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----\n';
const KEY_LINE = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC';
const SECRETS = [PASSWORD, KEY_LINE];

const PIPELINE = `version: 1
steps:
  - name: show
    image: alpine:3.20
    commands:
      - echo "password is $DB_PASSWORD"
      - printf '%s\\n' "$DEPLOY_KEY"
      - echo "$DEPLOY_KEY" | sed -n 2p
      - echo done
    secrets:
      - { env: DB_PASSWORD, secret: ci-db, key: password }
      - { env: DEPLOY_KEY, secret: ci-deploy, key: key }
  - name: leak-and-fail
    image: alpine:3.20
    commands:
      - 'echo "about to fail with $DB_PASSWORD" >&2; exit 3'
    secrets:
      - { env: DB_PASSWORD, secret: ci-db, key: password }
`;

let cluster: EmbeddedCluster;
let api: CoreV1Api;
let scratch: string;
let kubeconfig: string;
let podWatch: IncomingMessage;
/** Every pod the API served to a watcher, as JSON text. */
let podsServed = '';
/** Everything written to stdout and stderr: the Powertools lines and printed commit statuses. */
let written = '';

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'secrets-'));
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS });
  kubeconfig = path.join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
  await api.createNamespacedSecret({ namespace: NAMESPACE, body: { metadata: { name: 'ci-db' }, stringData: { password: PASSWORD } } });
  await api.createNamespacedSecret({
    namespace: NAMESPACE,
    body: { metadata: { name: 'ci-deploy' }, data: { key: Buffer.from(KEY_FILE).toString('base64') } },
  });
  podWatch = await new Promise((resolve) => {
    httpGet(`${cluster.url}/api/v1/namespaces/${NAMESPACE}/pods?watch=true`, (response) => {
      response.on('data', (chunk: Buffer) => (podsServed += chunk.toString()));
      resolve(response);
    });
  });
  for (const stream of [process.stdout, process.stderr]) {
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written += chunk.toString();
      return true;
    });
  }
  logger.setLogLevel('DEBUG');
});

afterAll(async () => {
  jest.restoreAllMocks();
  podWatch.destroy();
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function storedLogs(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  return (await Promise.all(files.map((f) => readFile(f, 'utf8')))).join('\n');
}

function expectNoSecret(where: string, text: string) {
  for (const secret of SECRETS) expect({ where, leaks: text.includes(secret) }).toEqual({ where, leaks: false });
}

describe('a step that prints its secrets', () => {
  it('keeps its output, masked, and the values appear in no output of the build', async () => {
    const logsDir = path.join(scratch, 'logs-executor');
    const runtime = localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir });
    const events: ExecutionEvent[] = [];
    const lines: string[] = [];
    const console = new ConsoleOutput('secrets');
    const execution = startLocalExecution(
      // A GitHub build, so ReportStatus prints the commit status it would post.
      { build: { id: 'secrets-1', trigger: 'github push', repository: 'team/app', commit: 'a'.repeat(40) }, pipeline: { file: 'p.yml', text: PIPELINE }, withoutSource: 'these builds test their steps, not a checkout' },
      { runtime, overrides: { waitMs: 50, retryMs: 10 }, onEvent: (event) => (events.push(event), lines.push(...console.lines(event))) },
    );
    const summary = await execution.result;

    expect(summary).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    // The step did print the values (so masking had something to do) and the output is kept.
    const logs = await storedLogs(logsDir);
    expect(logs).toContain(`password is ${SECRET_MASK}`);
    expect(logs).toContain(`+ printf '%s\\n' "$DEPLOY_KEY"\n${SECRET_MASK}\n`);
    expect(logs).toContain(`sed -n 2p\n${SECRET_MASK}\n`);
    expect(summary.cause).toContain(`about to fail with ${SECRET_MASK}`);
    expect(written).toContain('commit status team/app@aaaaaaa step-runner: failure');

    expectNoSecret('event history', JSON.stringify(events));
    expectNoSecret('console lines', lines.join('\n'));
    expectNoSecret('stored logs', logs);
    expectNoSecret('summary', JSON.stringify(summary));
    expectNoSecret('stdout/stderr (Powertools lines, commit status)', written);
    expect(podsServed).toContain('"secretKeyRef":{"key":"password","name":"ci-db"}');
    expectNoSecret('pod specs', podsServed);
  }, 20_000);

  it('leaks nothing through step-runner run --json either', async () => {
    const file = path.join(scratch, 'pipeline.yml');
    await writeFile(file, PIPELINE);
    const out: string[] = [];
    // run keeps logs under STATE_DIR/logs: here, the scratch directory.
    const code = await runBuild({ file, kubeconfig, json: true, verbose: true, stateDir: scratch }, { out: (l) => out.push(l), err: (l) => out.push(l) });
    expect(code).toBe(1);
    const summary = JSON.parse(out.at(-1)!) as { cause: string };
    expect(summary.cause).toContain(SECRET_MASK);
    expectNoSecret('run output', out.join('\n'));
    expectNoSecret('stdout/stderr', written);
    const logs = await storedLogs(path.join(scratch, 'logs'));
    expect(logs).toContain(`password is ${SECRET_MASK}`);
    expectNoSecret('stored logs', logs);
  }, 20_000);
});

describe('credentials quoted back by a server', () => {
  const EKS_TOKEN = 'k8s-aws-v1.aHR0cHM6Ly9zdHMuZXUtd2VzdC0xLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1HZXRDYWxsZXJJZGVudGl0eQ';
  const GITHUB_TOKEN = 'ghp_quotedBackTokenValue0000000000001';

  it('an EKS token in an API error does not reach the KubernetesUnavailable Cause', async () => {
    const refused = { code: 401, body: JSON.stringify({ kind: 'Status', message: `Unauthorized: token "${EKS_TOKEN}" (Authorization: Bearer ${EKS_TOKEN})`, reason: 'Unauthorized', code: 401 }), headers: {} };
    const dropped = Object.assign(new Error(`request failed, header Authorization: Bearer ${EKS_TOKEN}`), { code: 'ECONNRESET' });
    for (const error of [refused, dropped]) {
      const failure = await withKubeRetries('read pod ci/x', () => Promise.reject(error), { maxAttempts: 1 }).catch((e: unknown) => e as Error);
      if (error === refused) expect(failure).toBe(refused);
      else {
        expect(failure.name).toBe('KubernetesUnavailable');
        expect(failure.message).not.toContain(EKS_TOKEN.slice(12));
      }
    }
    const { unexpectedKubeError } = await import('../lib/kube/api-error.js');
    const cause = (unexpectedKubeError('read pod ci/x', refused) as Error).message;
    expect(cause).toContain('401 Unauthorized');
    expect(cause).not.toContain(EKS_TOKEN.slice(12));
  });

  it('a GitHub token quoted in an error body does not reach the error', async () => {
    const server = createServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `Bad credentials: ${req.headers.authorization}` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const github = gitHubApi({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: GITHUB_TOKEN });
      const error = (await github.createCommitStatus('team/app', 'a'.repeat(40), { state: 'pending', description: 'x', context: 'c' }).then(() => new Error('posted'), (e: unknown) => e)) as Error;
      expect(error.message).toContain('401');
      expect(error.message).toContain('Bad credentials');
      expect(error.message).not.toContain(GITHUB_TOKEN);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
