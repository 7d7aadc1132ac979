/**
 * `run --secret`, `--secret-file` and `--env` on the embedded cluster, through the CLI in-process:
 * a step reads values given on the command line (by flag, from this shell's environment, from a
 * file), prints them and finds them masked everywhere; the build's Secrets are gone afterwards; a
 * secret nobody gave stops the run before anything starts; a user's own Secret is never replaced.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { SECRET_MASK } from '../lib/kube/index.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { main } from '../lib/cli/main.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { capturedIO } from './fixtures/captured-io.js';

const NAMESPACE = 'default';
const PASSWORD = 'by-flag-Zq8vX3pL9wR=';
const TOKEN = 'from-env-Hk29sLq0Vb';
const CERT = '-----BEGIN CERT-----\nMIIBfromFileQ8x7Lm2\n-----END CERT-----';
const VALUES = [PASSWORD, TOKEN, 'MIIBfromFileQ8x7Lm2'];

const PIPELINE = `version: 1
checkout: false
steps:
  - name: show
    image: alpine:3.20
    env: { OWN: step-wins }
    commands:
      - echo "password is $DB_PASSWORD, token is $API_TOKEN"
      - printf '%s\\n' "$TLS_CERT"
      # What the values are, in a form the mask does not hide, to check they arrived whole.
      - printf '%s|%s|%s' "$DB_PASSWORD" "$API_TOKEN" "$TLS_CERT" | od -An -tx1 | tr -d ' \\n'; echo
      - echo "greeting=$GREETING own=$OWN"
    secrets:
      - { env: DB_PASSWORD, secret: ci-db, key: password }
      - { env: API_TOKEN, secret: ci-api, key: token }
      - { env: TLS_CERT, secret: ci-tls, key: cert }
  - name: leak-and-fail
    image: alpine:3.20
    commands:
      - 'echo "failing with $DB_PASSWORD" >&2; exit 3'
    secrets:
      - { env: DB_PASSWORD, secret: ci-db, key: password }
`;

let cluster: EmbeddedCluster;
let api: CoreV1Api;
let scratch: string;
let kubeconfig: string;
let file: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'run-secrets-'));
  cluster = await startEmbeddedCluster({ workspace: path.join(scratch, 'cluster'), timings: FAST_TIMINGS });
  kubeconfig = path.join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
  file = path.join(scratch, 'pipeline.yml');
  await writeFile(file, PIPELINE);
});

afterAll(async () => {
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
});

/** `step-runner run FILE --kubeconfig ... ARGS --json`, its logs kept under the scratch directory. */
async function run(args: string[], env: Record<string, string> = {}) {
  const io = capturedIO();
  const saved = { cwd: process.cwd(), env: { ...process.env } };
  process.chdir(scratch);
  Object.assign(process.env, { XDG_STATE_HOME: path.join(scratch, 'state'), ...env });
  let code;
  try {
    code = await main(['run', file, '--kubeconfig', kubeconfig, '--namespace', NAMESPACE, '--json', ...args], io);
  } finally {
    process.chdir(saved.cwd);
    process.env = saved.env;
  }
  const summary = JSON.parse(io.outLines.at(-1)!) as { status: string; error: string | null; cause: string | null; executionArn: string | null; events: unknown[] };
  return { code, summary, printed: [...io.outLines, ...io.errLines].join('\n') };
}

async function storedLogs(): Promise<string> {
  const entries = await readdir(scratch, { recursive: true, withFileTypes: true });
  const logs = entries.filter((e) => e.isFile() && e.name.endsWith('.log')).map((e) => path.join(e.parentPath, e.name));
  return (await Promise.all(logs.map((f) => readFile(f, 'utf8')))).join('\n');
}

async function secretExists(name: string): Promise<boolean> {
  return api.readNamespacedSecret({ name, namespace: NAMESPACE }).then(
    () => true,
    (error: { code?: number }) => (error.code === 404 ? false : Promise.reject(error)),
  );
}

function expectNoValue(where: string, text: string) {
  for (const value of VALUES) expect({ where, leaks: text.includes(value) }).toEqual({ where, leaks: false });
}

it('gives the steps the values by flag, from the environment and from a file, masks them, and deletes their Secrets with the build', async () => {
  const secretFile = path.join(scratch, 'secrets.env');
  await writeFile(secretFile, `# staging\n\nci-tls/cert=${JSON.stringify(CERT)}\n`);
  const { code, summary, printed } = await run(
    ['--secret', `ci-db/password=${PASSWORD}`, '--secret', 'ci-api/token', '--secret-file', secretFile, '--env', 'GREETING=hello=world', '--env', 'OWN=flag'],
    { API_TOKEN: TOKEN },
  );

  expect({ code, status: summary.status, error: summary.error }).toEqual({ code: 1, status: 'FAILED', error: 'StepFailed' });
  const logs = await storedLogs();
  expect(logs).toContain(`password is ${SECRET_MASK}, token is ${SECRET_MASK}`);
  expect(logs).toContain(Buffer.from(`${PASSWORD}|${TOKEN}|${CERT}`).toString('hex'));
  // A --env variable reaches the step; the step's own env wins over it.
  expect(logs).toContain('greeting=hello=world own=step-wins');
  expect(summary.cause).toContain(`failing with ${SECRET_MASK}`);
  expectNoValue('console output and run --json', printed);
  expectNoValue('stored logs', logs);
  for (const name of ['ci-db', 'ci-api', 'ci-tls']) expect({ name, exists: await secretExists(name) }).toEqual({ name, exists: false });
}, 30_000);

it('refuses, before anything starts, a secret the steps read that nobody gave and the cluster lacks, naming it and the flag', async () => {
  const { code, summary, printed } = await run(['--secret', `ci-db/password=${PASSWORD}`, '--secret', 'ci-tls/cert=x']);

  expect(code).toBe(2);
  expect(printed).toContain('ci-api/token, read by step "show" as API_TOKEN (--secret ci-api/token=VALUE)');
  expect({ error: summary.error, executionArn: summary.executionArn, events: summary.events }).toEqual({ error: 'SecretMissing', executionArn: null, events: [] });
  // Nothing was made for a build that never started.
  expect(await secretExists('ci-db')).toBe(false);
}, 30_000);

it('never replaces a Secret of the user: a value given for it is refused, naming it', async () => {
  await api.createNamespacedSecret({ namespace: NAMESPACE, body: { metadata: { name: 'ci-api' }, stringData: { token: 'users-own' } } });
  try {
    const { code, summary, printed } = await run(['--secret', `ci-db/password=${PASSWORD}`, '--secret', 'ci-api/token=replaced', '--secret', 'ci-tls/cert=x']);

    expect({ code, error: summary.error, events: summary.events }).toEqual({ code: 2, error: 'SecretAlreadyExists', events: [] });
    expect(printed).toContain('Secret "ci-api" already exists in namespace default');
    const kept = await api.readNamespacedSecret({ name: 'ci-api', namespace: NAMESPACE });
    expect(Buffer.from(kept.data!.token!, 'base64').toString()).toBe('users-own');
    expect(await secretExists('ci-db')).toBe(false);
  } finally {
    await api.deleteNamespacedSecret({ name: 'ci-api', namespace: NAMESPACE });
  }
}, 30_000);

it('deletes the build\'s Secrets after Ctrl-C too', async () => {
  const slow = path.join(scratch, 'slow.yml');
  await writeFile(slow, 'version: 1\ncheckout: false\nsteps:\n  - name: wait\n    image: alpine:3.20\n    commands: [sleep 60]\n    secrets:\n      - { env: T, secret: ci-slow, key: t }\n');
  const io = capturedIO();
  const before = new Set(process.listeners('SIGINT'));
  const running = main(['run', slow, '--kubeconfig', kubeconfig, '--namespace', NAMESPACE, '--secret', 'ci-slow/t=v', '--state-dir', path.join(scratch, 'state')], io);
  // Ctrl-C once the step runs, through the handler `run` installed (no real signal reaches jest).
  let ended = false;
  void running.finally(() => (ended = true));
  while (!ended && !io.outLines.some((line) => line.includes('PollStep #1: running'))) await new Promise((resolve) => setTimeout(resolve, 20));
  expect({ ended, printed: ended ? io.errLines.join('\n') : '' }).toEqual({ ended: false, printed: '' });
  expect(await secretExists('ci-slow')).toBe(true);
  const interrupt = process.listeners('SIGINT').find((listener) => !before.has(listener))!;
  interrupt('SIGINT');

  expect(await running).toBe(1);
  expect(io.outLines.join('\n')).toContain('Execution ABORTED');
  expect(await secretExists('ci-slow')).toBe(false);
}, 30_000);
