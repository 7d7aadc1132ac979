/**
 * Stop and re-run on the local server, end to end: a generic webhook starts a long build on an
 * embedded cluster of this test's own (so its pods can be listed), POST /executions/NAME/stop
 * aborts it and its pods go, and POST /executions/NAME/rerun starts the same input again under a
 * new name, the two linked both ways.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import { deliverGeneric } from './fixtures/webhooks/generic-delivery.js';

const SECRET = 'stop-rerun-secret-3a9f';
const LONG = 'version: 1\ncheckout: false\nsteps:\n  - name: long\n    image: alpine:3.20\n    commands: ["sleep 60"]\n';

let cluster: EmbeddedCluster;
let server: LocalServer;
let scratch: string;
let api: CoreV1Api;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'stop-rerun-'));
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS });
  const kubeconfig = path.join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = cluster.kubeConfig().makeApiClient(CoreV1Api);
  server = await startLocalServer({ port: 0, secret: SECRET, kubeconfig, overrides: { waitMs: 20, retryMs: 20 }, print: () => {} });
}, 30_000);

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function deliver(delivery: string): Promise<string> {
  return deliverGeneric(server.url, SECRET, delivery, { repository: 'team/app', commit: 'a1b2c3d4e5f6', ref: 'refs/heads/main', pipeline: LONG });
}

async function call(method: string, route: string) {
  const response = await fetch(`${server.url}${route}`, { method });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function runningPods(): Promise<string[]> {
  const pods = await api.listNamespacedPod({ namespace: 'default', labelSelector: 'app.kubernetes.io/managed-by=serverless-step-runner' });
  return pods.items.filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp).map((p) => p.metadata!.name!);
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const podsNamed = (buildId: string) => async () =>
  (await api.listNamespacedPod({ namespace: 'default', labelSelector: `step-runner.dev/build=${buildId}` })).items.filter((p) => !p.metadata?.deletionTimestamp);

test('stop aborts a running build and deletes its pods; stopping it again is 409', async () => {
  const name = await deliver('stop-1');
  await eventually('the step pod to run', async () => ((await runningPods()).length > 0 ? true : undefined));
  const running = (await call('GET', `/executions/${name}`)).json as { buildId: string; steps: { name: string; status: string }[] };
  const { buildId } = running;
  expect(running).toMatchObject({ status: 'RUNNING' });
  expect(running.steps.map((s) => s.status)).toContain('running');

  const stopped = await call('POST', `/executions/${name}/stop`);
  expect(stopped).toMatchObject({ status: 200, json: { name, status: 'ABORTED', stoppedAt: expect.any(String) } });
  expect(await podsNamed(buildId)()).toEqual([]);
  const ended = (await call('GET', `/executions/${name}`)).json as { status: string; steps: { status: string }[] };
  expect(ended.status).toBe('ABORTED');
  expect(ended.steps.map((s) => s.status)).toContain('aborted');
  expect(ended.steps.map((s) => s.status)).not.toContain('running');

  expect(await call('POST', `/executions/${name}/stop`)).toMatchObject({ status: 409, json: { error: 'ExecutionNotRunning' } });
  expect(await call('POST', '/executions/nope/stop')).toMatchObject({ status: 404, json: { error: 'ExecutionDoesNotExist' } });
  // Step Functions would redrive it from where it stood, but its pods and claim are gone: refused, saying so.
  expect(await call('POST', `/executions/${name}/redrive`)).toMatchObject({
    status: 409,
    json: { error: 'ExecutionNotRedrivable', message: expect.stringMatching(/^This build was stopped: the cleanup deleted its pods and its workspace claim/) },
  });
  expect(await call('POST', '/executions/nope/redrive')).toMatchObject({ status: 404, json: { error: 'ExecutionDoesNotExist' } });
  // The old answer for other methods stays.
  expect((await call('DELETE', `/executions/${name}`)).status).toBe(405);
}, 45_000);

test('rerun starts the same input under a new name and build id, linked both ways', async () => {
  const name = await deliver('rerun-1');
  const answer = await call('POST', `/executions/${name}/rerun`);
  expect(answer).toMatchObject({ status: 201, json: { executionName: `${name}-rerun-1`, rerunOf: name, consoleUrl: `${server.url}/executions/${name}-rerun-1` } });
  const rerun = answer.json.executionName as string;

  const original = (await call('GET', `/executions/${name}`)).json;
  const again = (await call('GET', `/executions/${rerun}`)).json;
  expect(original).toMatchObject({ reruns: [rerun], rerunOf: null });
  expect(again).toMatchObject({ rerunOf: name, reruns: [], trigger: original.trigger, repository: 'team/app', commit: 'a1b2c3d4e5f6', status: 'RUNNING' });
  expect(again.buildId).not.toBe(original.buildId);

  for (const execution of [name, rerun]) expect((await call('POST', `/executions/${execution}/stop`)).status).toBe(200);
}, 45_000);

test('"re-run failed steps" goes on with the same failed execution: only its failed step runs again, and then it is refused', async () => {
  // The process runtime runs steps on this machine: the test ends the flake by writing the file.
  const fixed = path.join(scratch, 'fixed-redrive-1');
  const pipeline = `version: 1\ncheckout: false\nsteps:\n  - name: first\n    image: alpine:3.20\n    commands: ["echo once > once"]\n  - name: flaky\n    image: alpine:3.20\n    commands: ["test -f once", "test -f ${fixed}"]\n`;
  const name = await deliverGeneric(server.url, SECRET, 'redrive-1', { repository: 'team/app', commit: 'a1b2c3d4e5f6', ref: 'refs/heads/main', pipeline });
  const failed = await eventually('the build to fail', async () => {
    const got = (await call('GET', `/executions/${name}`)).json;
    return got.status === 'FAILED' ? got : undefined;
  });
  expect(failed).toMatchObject({ error: 'StepFailed', redriveCount: 0, redrivable: true });
  const page = await (await fetch(`${server.url}/executions/${name}`, { headers: { accept: 'text/html' } })).text();
  expect(page).toContain('Re-run failed steps');

  await writeFile(fixed, '');
  expect(await call('POST', `/executions/${name}/redrive`)).toMatchObject({ status: 200, json: { name, status: 'RUNNING', redriveCount: 1 } });
  const redriven = await eventually('the redriven build to end', async () => {
    const got = (await call('GET', `/executions/${name}`)).json as { status: string; steps: { name: string; status: string }[]; events: { type: string; state: string | null }[] };
    return got.status === 'RUNNING' ? undefined : got;
  });
  expect(redriven).toMatchObject({ status: 'SUCCEEDED', error: null, redrivable: false });
  expect(redriven.steps.map((s) => [s.name, s.status])).toEqual([
    ['first', 'succeeded'],
    ['flaky', 'succeeded'],
  ]);
  // One history, the redrive in it; `first` launched once, in the first run only.
  expect(redriven.events.filter((e) => e.type === 'ExecutionRedriven')).toHaveLength(1);
  const launches = redriven.events.filter((e) => e.type === 'StateEntered' && e.state === 'LaunchStep');
  expect(launches).toHaveLength(3);

  expect(await call('POST', `/executions/${name}/redrive`)).toMatchObject({ status: 409, json: { error: 'ExecutionNotRedrivable', message: 'Execution is SUCCEEDED and cannot be redriven.' } });
}, 45_000);
