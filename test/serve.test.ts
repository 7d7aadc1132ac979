/**
 * `step-runner serve` end to end: the local server on the embedded cluster (fast kubelet, short
 * waits), a signed GitHub push example posted over HTTP, the build run by the local executor
 * through the real definition, and watched through GET /executions.
 */
import { sign } from '@octokit/webhooks-methods';
import { FAST_TIMINGS } from '../lib/local/cluster/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/local-server.js';
import { logger } from '../lib/workflow/lambda-task.js';
import { branchPush } from './fixtures/webhooks/examples.js';

const SECRET = 'local-serve-secret-77c2';
const PIPELINE = 'test/fixtures/pipelines/good/minimal.yml';

let server: LocalServer;
const printed: string[] = [];

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  server = await startLocalServer({
    port: 0,
    secret: SECRET,
    pipeline: PIPELINE,
    timings: FAST_TIMINGS,
    waitMs: 20,
    retryMs: 20,
    print: (line) => printed.push(line),
  });
}, 30_000);

afterAll(async () => {
  await server?.close();
});

async function deliver(body: string, headers: Record<string, string>) {
  const response = await fetch(`${server.url}/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', ...headers },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function get(path: string) {
  const response = await fetch(`${server.url}${path}`);
  return { status: response.status, json: (await response.json()) as unknown };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('step-runner serve', () => {
  const body = JSON.stringify(branchPush());
  const delivery = '5f0e6a2c-0000-4000-8000-00000000c0de';

  it('refuses a bad signature with 401 and starts nothing', async () => {
    const answer = await deliver(body, { 'x-github-delivery': delivery, 'x-hub-signature-256': await sign('wrong-secret', body) });
    expect(answer).toMatchObject({ status: 401, json: { error: 'InvalidSignature' } });
    expect((await get('/executions')).json).toEqual([]);
  });

  it('runs a signed push on the embedded cluster until /executions/NAME reports SUCCEEDED with its steps', async () => {
    const signature = await sign(SECRET, body);
    const answer = await deliver(body, { 'x-github-delivery': delivery, 'x-hub-signature-256': signature });
    expect(answer.status).toBe(202);
    const name = answer.json.executionName as string;
    expect(name).toMatch(/^gh-Hello-World-6113728-5f0e6a2c-/);
    expect(answer.json.consoleUrl).toBe(`${server.url}/executions/${name}`);

    const finished = await until(
      () => get(`/executions/${name}`),
      (r) => (r.json as { status: string }).status !== 'RUNNING',
    );
    expect(finished.status).toBe(200);
    expect(finished.json).toMatchObject({
      status: 'SUCCEEDED',
      error: null,
      cause: null,
      steps: [expect.objectContaining({ status: 'succeeded', exitCode: 0 })],
    });
    expect((finished.json as { events: { type: string }[] }).events.at(-1)?.type).toBe('ExecutionSucceeded');

    const list = (await get('/executions')).json as Record<string, unknown>[];
    expect(list).toEqual([
      expect.objectContaining({
        name,
        status: 'SUCCEEDED',
        trigger: 'github push',
        repository: 'Codertocat/Hello-World',
        commit: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
        startedAt: expect.any(String),
      }),
    ]);

    // A redelivery answers with the same execution and starts no second build.
    const again = await deliver(body, { 'x-github-delivery': delivery, 'x-hub-signature-256': signature });
    expect(again).toMatchObject({ status: 202, json: { executionName: name, alreadyStarted: true } });
    expect((await get('/executions')).json).toHaveLength(1);

    expect(printed.some((line) => line.startsWith(`Execution ${name}`))).toBe(true);
  }, 30_000);

  it('answers 404 for an execution it does not have', async () => {
    expect(await get('/executions/nope')).toMatchObject({ status: 404, json: { error: 'ExecutionDoesNotExist' } });
  });
});
