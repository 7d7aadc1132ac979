/**
 * Superseded builds on the local server (issue 27), with GitHub's recorded pull_request
 * synchronize delivery (@octokit/webhooks-examples): the same delivery for two pushes to one pull
 * request, the second with a newer head and a later `pull_request.updated_at`, as GitHub sends it.
 *
 * The race: both sent at once, many times; each time exactly one build runs to its end (the newer
 * commit's) and the other is stopped, ABORTED with Error Superseded and a Cause naming the newer
 * commit, whether it had started a step or not. Then a second push to a pull request whose build is
 * running: the first build's pods go, and its commit status says it was superseded, as no failure.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { sign } from '@octokit/webhooks-methods';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import { pullRequest } from './fixtures/webhooks/examples.js';

const SECRET = 'superseded-secret-5c1e';
const PIPELINE = 'version: 1\ncheckout: false\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: ["sleep 2"]\n';
const LONG = 'version: 1\ncheckout: false\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: ["sleep 60"]\n';

interface Execution {
  name: string;
  buildId: string;
  commit: string;
  status: string;
  error: string | null;
  cause: string | null;
  steps: { name: string; status: string }[];
}

let cluster: EmbeddedCluster;
let scratch: string;
let api: CoreV1Api;
const servers: LocalServer[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'superseded-'));
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS });
  await writeFile(path.join(scratch, 'kubeconfig'), cluster.kubeconfigYaml());
  api = cluster.kubeConfig().makeApiClient(CoreV1Api);
}, 30_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  await cluster?.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function serve(pipeline: string, print: (line: string) => void = () => {}): Promise<LocalServer> {
  const file = path.join(scratch, `pipeline-${servers.length}.yml`);
  await writeFile(file, pipeline);
  const server = await startLocalServer({ port: 0, secret: SECRET, pipeline: file, kubeconfig: path.join(scratch, 'kubeconfig'), overrides: { waitMs: 20, retryMs: 20 }, print });
  servers.push(server);
  return server;
}

/** GitHub's synchronize delivery of pull request `number`, its head moved to `commit` at `updatedAt`. */
function synchronize(number: number, commit: string, updatedAt: string): Record<string, unknown> {
  const payload = pullRequest('synchronize') as { number: number; after: string; pull_request: { number: number; head: { sha: string }; updated_at: string } };
  payload.number = number;
  payload.pull_request.number = number;
  payload.after = commit;
  payload.pull_request.head.sha = commit;
  payload.pull_request.updated_at = updatedAt;
  return payload;
}

async function deliver(server: LocalServer, delivery: string, payload: Record<string, unknown>): Promise<string> {
  const body = JSON.stringify(payload);
  const response = await fetch(`${server.url}/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': delivery, 'x-hub-signature-256': await sign(SECRET, body) },
    body,
  });
  const answer = (await response.json()) as { executionName?: string };
  if (response.status !== 202 || !answer.executionName) throw new Error(`delivery ${delivery}: ${response.status} ${JSON.stringify(answer)}`);
  return answer.executionName;
}

async function execution(server: LocalServer, name: string): Promise<Execution> {
  return (await (await fetch(`${server.url}/executions/${encodeURIComponent(name)}`)).json()) as Execution;
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ended = (server: LocalServer, name: string) =>
  eventually(`${name} to end`, async () => {
    const got = await execution(server, name);
    return got.status === 'RUNNING' ? undefined : got;
  });

const podsOf = async (buildId: string) =>
  (await api.listNamespacedPod({ namespace: 'default', labelSelector: `step-runner.dev/build=${buildId}` })).items.filter((pod) => !pod.metadata?.deletionTimestamp);

const sha = (round: number, which: string) => `${which}${String(round).padStart(3, '0')}`.padEnd(40, which);

/** One race: both deliveries of pull request `100 + round` sent at once, then both executions ended. */
async function race(server: LocalServer, round: number): Promise<void> {
  // One pull request per round: each round is a group of its own.
  const number = 100 + round;
  const older = { commit: sha(round, 'a'), payload: synchronize(number, sha(round, 'a'), '2026-03-01T09:00:00Z') };
  const newer = { commit: sha(round, 'b'), payload: synchronize(number, sha(round, 'b'), '2026-03-01T09:00:07Z') };
  // Either may arrive first: GitHub does not promise its order.
  const sent = round % 2 === 0 ? [older, newer] : [newer, older];
  const names = await Promise.all(sent.map((push, i) => deliver(server, `race-${round}-${i}`, push.payload)));
  const results = await Promise.all(names.map((name) => ended(server, name)));
  const byCommit = new Map(results.map((result) => [result.commit, result]));
  const winner = byCommit.get(newer.commit)!;
  const loser = byCommit.get(older.commit)!;

  expect({ round, status: winner.status, error: winner.error, steps: winner.steps.map((s) => s.status) }).toEqual({ round, status: 'SUCCEEDED', error: null, steps: ['succeeded'] });
  expect({ round, status: loser.status, error: loser.error }).toEqual({ round, status: 'ABORTED', error: 'Superseded' });
  expect(loser.cause).toMatch(new RegExp(`^Superseded by ${newer.commit.slice(0, 7)} \\(execution ${winner.name}\\)`));
  // Stopped while it ran, or before it started a step: never a step that ran to its end.
  expect(loser.steps.map((s) => s.status)).not.toContain('succeeded');
  expect(await podsOf(loser.buildId)).toEqual([]);
}

/**
 * Rounds run RACES_AT_ONCE at a time: each is its own pull request, so its own group, and the race
 * inside each (two deliveries at once) is the same as alone, while the build's two-second step no
 * longer sets the file's pace twenty times over. Groups running side by side also show that
 * superseding in one group stops nothing in another.
 */
const RACES_AT_ONCE = 5;

test('two synchronize deliveries of one pull request sent at once, 20 times: the newer commit runs to its end, the older is stopped as Superseded', async () => {
  const server = await serve(PIPELINE);
  for (let first = 0; first < 20; first += RACES_AT_ONCE) {
    await Promise.all(Array.from({ length: RACES_AT_ONCE }, (_, i) => race(server, first + i)));
  }
}, 240_000);

test('a second push to the pull request stops the first build, deletes its pods and reports it superseded, not failed', async () => {
  const printed: string[] = [];
  const server = await serve(LONG, (line) => printed.push(line));
  const first = await deliver(server, 'push-1', synchronize(7, sha(1, 'c'), '2026-03-01T10:00:00Z'));
  const running = await eventually('the first build\'s step to run', async () => {
    const got = await execution(server, first);
    return got.steps.some((step) => step.status === 'running') && (await podsOf(got.buildId)).length > 0 ? got : undefined;
  });

  const second = await deliver(server, 'push-2', synchronize(7, sha(2, 'd'), '2026-03-01T10:01:00Z'));
  const stopped = await ended(server, first);
  expect(stopped).toMatchObject({ status: 'ABORTED', error: 'Superseded', cause: expect.stringMatching(new RegExp(`^Superseded by ${sha(2, 'd').slice(0, 7)} \\(execution ${second}\\)`)) });
  expect(stopped.steps.map((step) => step.status)).toEqual(['aborted']);
  expect(await podsOf(running.buildId)).toEqual([]);

  // The first commit's status: pending (no verdict), saying which commit took its place.
  const statuses = printed.filter((line) => line.startsWith(`commit status Codertocat/Hello-World@${sha(1, 'c').slice(0, 7)}`));
  expect(statuses.at(-1)).toBe(`commit status Codertocat/Hello-World@${sha(1, 'c').slice(0, 7)} step-runner: pending "superseded by ${sha(2, 'd').slice(0, 7)}"`);
  expect(statuses.join('\n')).not.toMatch(/: (error|failure) /);

  // The page shows the ABORTED execution's Error and Cause too.
  const page = await (await fetch(`${server.url}/executions/${first}`, { headers: { accept: 'text/html' } })).text();
  expect(page).toContain('Superseded');
  expect(page).toContain(`Superseded by ${sha(2, 'd').slice(0, 7)}`);

  const newer = await execution(server, second);
  expect(newer.status).toBe('RUNNING');
  await fetch(`${server.url}/executions/${second}/stop`, { method: 'POST' });
}, 60_000);
