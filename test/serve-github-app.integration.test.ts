/**
 * `serve` with a GitHub App, against the loopback GitHub stand-in that checks every check-run body
 * against GitHub's OpenAPI description: a pull request's build (its delivery names the App's
 * installation) creates its check run when it starts and completes it when it ends, with the
 * steps, the conclusion, the failure and an annotation on the failing step's line.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sign } from '@octokit/webhooks-methods';
import { FAST_TIMINGS } from '../lib/emulators/kubernetes/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import { checkRun, pullRequest } from './fixtures/webhooks/examples.js';
import { startFakeGitHub, type FakeGitHub } from './fixtures/webhooks/github-server.js';

const SECRET = 'serve-app-secret-41d0';
const APP_ID = '424242';
const INSTALLATION = 97531;
const TOKEN = 'ghs_serveAppInstallationToken0042';
// Line 6 is the failing step's `- name: test`.
const PIPELINE = `version: 1
steps:
  - name: lint
    image: alpine:3.20
    commands: [echo lint ok]
  - name: test
    image: alpine:3.20
    commands: ["echo 1 failing test", "exit 1"]
  - name: deploy
    image: alpine:3.20
    commands: [echo never]
`;

let github: FakeGitHub;
let server: LocalServer;
let scratch: string;
let commit: string;
const printed: string[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'serve-app-'));
  const repo = path.join(scratch, 'repo');
  const git = (...args: string[]) => promisify(execFile)('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: repo }).then((r) => r.stdout.trim());
  await promisify(execFile)('git', ['init', '-q', repo]);
  await writeFile(path.join(repo, '.step-runner.yml'), PIPELINE);
  await git('add', '.');
  await git('commit', '-q', '-m', 'pipeline');
  commit = await git('rev-parse', 'HEAD');
  const key = path.join(scratch, 'app.pem');
  await writeFile(key, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  github = await startFakeGitHub();
  github.installations.set(INSTALLATION, { token: TOKEN });
  server = await startLocalServer({
    port: 0,
    secret: SECRET,
    pipeline: path.join(repo, '.step-runner.yml'),
    source: repo,
    githubApp: { appId: APP_ID, privateKeyFile: key, apiUrl: github.url },
    timings: FAST_TIMINGS,
    overrides: { waitMs: 20, retryMs: 20 },
    print: (line) => printed.push(line),
  });
}, 30_000);

afterAll(async () => {
  await server?.close();
  await github?.close();
  await rm(scratch, { recursive: true, force: true });
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a pull request build through the App creates its check run, then completes it with its steps, its failure and an annotation', async () => {
  const payload = pullRequest('opened') as Record<string, unknown> & { pull_request: { head: { sha: string } } };
  payload.pull_request.head.sha = commit;
  payload.installation = { id: INSTALLATION };
  const body = JSON.stringify(payload);
  const response = await fetch(`${server.url}/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': 'a1b2c3d4-0000-4000-8000-000000000042', 'x-hub-signature-256': await sign(SECRET, body) },
    body,
  });
  expect(response.status).toBe(202);
  const { executionName } = (await response.json()) as { executionName: string };

  const ended = await until(
    async () => (await (await fetch(`${server.url}/executions/${executionName}`)).json()) as { status: string },
    (e) => e.status !== 'RUNNING',
  );
  expect(ended).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
  const runs = [...github.checkRuns.values()];
  expect(runs).toHaveLength(1);
  const [run] = runs;
  expect(run).toMatchObject({
    name: 'step-runner',
    head_sha: commit,
    status: 'completed',
    conclusion: 'failure',
    external_id: expect.stringContaining(executionName),
    output: { title: 'StepFailed in step "test"' },
  });
  // Created in progress with the steps queued, kept current as each step ended, then completed: every body of the documented shape.
  expect(run!.bodies[0]).toMatchObject({ status: 'in_progress', output: { summary: expect.stringContaining('| `test` | 🕒 queued |') } });
  expect(run!.bodies.slice(1, -1)).toEqual([
    expect.objectContaining({ status: 'in_progress', output: expect.objectContaining({ title: 'Build running: 1 step done', summary: expect.stringContaining('| `clone` | ✅ succeeded |') }) }),
    expect.objectContaining({ status: 'in_progress', output: expect.objectContaining({ title: 'Build running: 2 steps done', summary: expect.stringContaining('| `lint` | ✅ succeeded |') }) }),
  ]);
  expect(run!.output.summary).toContain('| `lint` | ✅ succeeded |');
  expect(run!.output.summary).toContain('| `test` | ❌ failed |');
  expect(run!.output.summary).toContain('| `deploy` | ➖ not run |');
  expect(run!.output.text).toContain('1 failing test');
  expect(run!.annotations).toEqual([expect.objectContaining({ path: '.step-runner.yml', start_line: 6, annotation_level: 'failure' })]);
  expect(github.refusedBodies).toEqual([]);
  // Written with the installation's token, and said where the build is watched.
  expect(new Set(github.requests.filter((r) => r.path.includes('/check-runs')).map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
  expect(printed).toContain(`check run ${run!.repository}@${commit.slice(0, 7)} step-runner: failure "StepFailed in step "test""`);
}, 60_000);

test('"Re-run" on that check run starts a new build of the same commit, named as its re-run; its redelivery starts nothing new', async () => {
  const [run] = [...github.checkRuns.values()];
  const payload = checkRun('rerequested') as Record<string, unknown> & { check_run: Record<string, unknown> & { app: Record<string, unknown> } };
  payload.check_run = { ...payload.check_run, head_sha: commit, external_id: run!.external_id, app: { ...payload.check_run.app, id: Number(APP_ID) } };
  payload.installation = { id: INSTALLATION };
  const body = JSON.stringify(payload);
  const deliver = async () => {
    const response = await fetch(`${server.url}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'check_run', 'x-github-delivery': 'rerun-0000-4000-8000-000000000043', 'x-hub-signature-256': await sign(SECRET, body) },
      body,
    });
    return { status: response.status, json: (await response.json()) as { executionName?: string; alreadyStarted?: boolean } };
  };
  const first = await deliver();
  expect(first.status).toBe(202);
  const earlier = run!.external_id!.split(':').at(-1)!;
  expect(first.json.executionName).toMatch(new RegExp(`^${earlier.slice(0, 40)}.*-rerun-[0-9a-f]{10}$`));
  expect((await deliver()).json).toMatchObject({ executionName: first.json.executionName, alreadyStarted: true });
  const rerun = await until(
    async () => (await (await fetch(`${server.url}/executions/${first.json.executionName}`)).json()) as { status: string; commit: string },
    (e) => e.status !== 'RUNNING',
  );
  expect(rerun).toMatchObject({ commit, status: 'FAILED' });
}, 60_000);
