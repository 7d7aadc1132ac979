/**
 * `step-runner serve` end to end: the local server on the embedded cluster (fast kubelet, short
 * waits), a signed GitHub push example posted over HTTP for a commit of a local repository
 * (--source), the build (its checkout first) run by the local executor through the real
 * definition, and watched through GET /executions. With --otlp-endpoint, each build that ends
 * reaches an OTLP/HTTP receiver the test starts as one trace (test/fixtures/otlp-receiver.ts decodes
 * it with the protocol's own .proto files), a stopped one's too.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sign } from '@octokit/webhooks-methods';
import { FAST_TIMINGS } from '../lib/emulators/kubernetes/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import {
  ATTR_CICD_PIPELINE_NAME,
  ATTR_CICD_PIPELINE_RESULT,
  ATTR_CICD_PIPELINE_RUN_ID,
  ATTR_CICD_PIPELINE_RUN_URL_FULL,
  ATTR_CICD_PIPELINE_TASK_NAME,
  ATTR_CICD_PIPELINE_TASK_RUN_ID,
  ATTR_CICD_PIPELINE_TASK_RUN_RESULT,
  ATTR_CICD_PIPELINE_TASK_RUN_URL_FULL,
  ATTR_ERROR_TYPE,
  ATTR_VCS_REF_HEAD_REVISION,
  ATTR_VCS_REPOSITORY_NAME,
} from '@opentelemetry/semantic-conventions/incubating';
import { branchPush } from './fixtures/webhooks/examples.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './fixtures/otlp-receiver.js';

const SECRET = 'local-serve-secret-77c2';
// The step runs the commit's script: a later commit's sleeps, for a build to stop while it runs.
const PIPELINE = 'version: 1\nsteps:\n  - name: greet\n    image: alpine:3.20\n    commands: [sh greet.sh]\n';

let server: LocalServer;
let receiver: OtlpReceiver;
let repo: string;
let commit: string;
let git: (...args: string[]) => Promise<string>;
const printed: string[] = [];

/** The repository GitHub deliveries check out from: one commit with a greeting and the pipeline. */
async function sourceRepository(): Promise<{ dir: string; commit: string; git: typeof git }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'serve-source-'));
  const git = (...args: string[]) =>
    promisify(execFile)('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: dir }).then((r) => r.stdout.trim());
  await git('init', '-q');
  await writeFile(path.join(dir, 'greeting.txt'), 'hello from the commit\n');
  await writeFile(path.join(dir, 'greet.sh'), 'cat greeting.txt\n');
  await writeFile(path.join(dir, '.step-runner.yml'), PIPELINE);
  await git('add', '.');
  await git('commit', '-q', '-m', 'greeting');
  return { dir, commit: await git('rev-parse', 'HEAD'), git };
}

beforeAll(async () => {
  ({ dir: repo, commit, git } = await sourceRepository());
  receiver = await startOtlpReceiver();
  server = await startLocalServer({
    otlpEndpoint: receiver.endpoint,
    port: 0,
    secret: SECRET,
    pipeline: path.join(repo, '.step-runner.yml'),
    source: repo,
    timings: FAST_TIMINGS,
    overrides: { waitMs: 20, retryMs: 20 },
    print: (line) => printed.push(line),
  });
}, 30_000);

afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await rm(repo, { recursive: true, force: true });
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

/** The trace's root span and each step's span with the names of its phases, checking that it is one trace of nested spans. */
function traceOf(spans: ReceivedSpan[]) {
  expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
  const roots = spans.filter((span) => span.parentSpanId === '');
  expect(roots).toHaveLength(1);
  const root = roots[0]!;
  const steps = spans.filter((span) => span.parentSpanId === root.spanId);
  // Every other span is a phase of a step.
  expect(spans).toHaveLength(1 + steps.length + spans.filter((span) => steps.some((step) => span.parentSpanId === step.spanId)).length);
  const phases = (step: ReceivedSpan) => spans.filter((span) => span.parentSpanId === step.spanId).sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
  return { root, steps, phases };
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
  // GitHub's own example push, for a commit the --source repository has.
  const push = () => ({ ...branchPush(), after: commit });
  const delivery = '5f0e6a2c-0000-4000-8000-00000000c0de';
  let body: string;
  beforeAll(() => {
    body = JSON.stringify(push());
  });

  it('refuses a bad signature with 401 and starts nothing', async () => {
    const answer = await deliver(body, { 'x-github-delivery': delivery, 'x-hub-signature-256': await sign('wrong-secret', body) });
    expect(answer).toMatchObject({ status: 401, json: { error: 'InvalidSignature' } });
    expect((await get('/executions')).json).toEqual([]);
  });

  it('checks the pushed commit out and runs the pipeline on it until /executions/NAME reports SUCCEEDED', async () => {
    const signature = await sign(SECRET, body);
    const answer = await deliver(body, { 'x-github-delivery': delivery, 'x-hub-signature-256': signature });
    expect(answer.status).toBe(202);
    const name = answer.json.executionName as string;
    expect(name).toMatch(new RegExp(`^gh-Hello-World-${commit.slice(0, 7)}-5f0e6a2c-`));
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
      steps: [
        expect.objectContaining({ name: 'clone', status: 'succeeded', exitCode: 0 }),
        expect.objectContaining({ name: 'greet', status: 'succeeded', exitCode: 0 }),
      ],
    });
    // The step read the file of the commit, from the workspace the checkout filled.
    expect(printed.some((line) => line.includes('hello from the commit'))).toBe(true);
    expect((finished.json as { events: { type: string }[] }).events.at(-1)?.type).toBe('ExecutionSucceeded');

    const list = (await get('/executions')).json as Record<string, unknown>[];
    expect(list).toEqual([
      expect.objectContaining({
        name,
        status: 'SUCCEEDED',
        trigger: 'github push',
        repository: 'Codertocat/Hello-World',
        commit,
        startedAt: expect.any(String),
      }),
    ]);

    // A redelivery answers with the same execution and starts no second build.
    const again = await deliver(body, { 'x-github-delivery': delivery, 'x-hub-signature-256': signature });
    expect(again).toMatchObject({ status: 202, json: { executionName: name, alreadyStarted: true } });
    expect((await get('/executions')).json).toHaveLength(1);

    expect(printed.some((line) => line.startsWith(`Execution ${name}`))).toBe(true);

    // One trace, sent by ReportSucceeded before the execution ended: the run, its two steps, their phases.
    expect(receiver.exports).toHaveLength(1);
    expect(receiver.exports[0]!.path).toBe('/v1/traces');
    const { root, steps, phases } = traceOf(receiver.exports[0]!.spans);
    expect(root).toMatchObject({ name: 'RUN Codertocat/Hello-World', kind: 'SPAN_KIND_SERVER', status: { code: 'STATUS_CODE_UNSET' } });
    expect(root.attributes).toMatchObject({
      [ATTR_CICD_PIPELINE_NAME]: 'Codertocat/Hello-World',
      [ATTR_CICD_PIPELINE_RUN_ID]: expect.any(String),
      [ATTR_CICD_PIPELINE_RESULT]: 'success',
      [ATTR_VCS_REPOSITORY_NAME]: 'Hello-World',
      [ATTR_VCS_REF_HEAD_REVISION]: commit,
      // Where a person sees the run: the console page the webhook answered with.
      [ATTR_CICD_PIPELINE_RUN_URL_FULL]: answer.json.consoleUrl,
    });
    expect(steps.map((step) => [step.name, step.kind, step.attributes[ATTR_CICD_PIPELINE_TASK_NAME], step.attributes[ATTR_CICD_PIPELINE_TASK_RUN_RESULT]])).toEqual([
      ['clone', 'SPAN_KIND_INTERNAL', 'clone', 'success'],
      ['greet', 'SPAN_KIND_INTERNAL', 'greet', 'success'],
    ]);
    expect(steps[1]!.attributes[ATTR_CICD_PIPELINE_TASK_RUN_ID]).toBe(`${root.attributes[ATTR_CICD_PIPELINE_RUN_ID]}/greet`);
    // Where a person sees each step: the console page with it selected.
    expect(steps.map((step) => step.attributes[ATTR_CICD_PIPELINE_TASK_RUN_URL_FULL])).toEqual([`${answer.json.consoleUrl as string}?step=0`, `${answer.json.consoleUrl as string}?step=1`]);
    for (const step of steps) {
      const names = phases(step).map((span) => span.name);
      // Pulling only when the kubelet had to pull the image.
      expect([['pending', 'running'], ['pending', 'pulling', 'running']]).toContainEqual(names);
      for (const phase of phases(step)) {
        expect(BigInt(phase.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(step.startTimeUnixNano));
        expect(BigInt(phase.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(step.endTimeUnixNano));
      }
    }
  }, 30_000);

  it('fails the checkout, as on AWS, for a pushed commit the repository does not have', async () => {
    const missing = JSON.stringify({ ...push(), after: '6113728f27ae82c7b1a177c8d03f9e96e0adf246' });
    const answer = await deliver(missing, { 'x-github-delivery': 'missing-commit', 'x-hub-signature-256': await sign(SECRET, missing) });
    expect(answer.status).toBe(202);
    const finished = await until(
      () => get(`/executions/${answer.json.executionName as string}`),
      (r) => (r.json as { status: string }).status !== 'RUNNING',
    );
    expect(finished.json).toMatchObject({
      status: 'FAILED',
      error: 'CheckoutFailed',
      steps: [expect.objectContaining({ name: 'clone', status: 'failed' }), expect.objectContaining({ name: 'greet', status: 'not-run' })],
    });
    expect((finished.json as { cause: string }).cause).toContain('6113728f27ae82c7b1a177c8d03f9e96e0adf246');

    // Its trace says where it failed, with the Error's name: the run, the clone, and the phase it reached.
    const { root, steps, phases } = traceOf(receiver.exports.at(-1)!.spans);
    expect(root.status).toEqual({ code: 'STATUS_CODE_ERROR', message: 'CheckoutFailed' });
    expect(root.attributes).toMatchObject({ [ATTR_CICD_PIPELINE_RESULT]: 'failure', [ATTR_ERROR_TYPE]: 'CheckoutFailed' });
    expect(steps.map((step) => [step.name, step.status.code, step.attributes[ATTR_CICD_PIPELINE_TASK_RUN_RESULT]])).toEqual([['clone', 'STATUS_CODE_ERROR', 'failure']]);
    expect(phases(steps[0]!).at(-1)).toMatchObject({ name: 'running', status: { code: 'STATUS_CODE_ERROR', message: 'CheckoutFailed' } });
  }, 30_000);

  it("sends a stopped build's trace, its running step ended with it: the ended-execution cleanup's, as on AWS", async () => {
    await writeFile(path.join(repo, 'greet.sh'), 'sleep 600\n');
    await git('commit', '-q', '-am', 'a greeting that never ends');
    const slow = await git('rev-parse', 'HEAD');
    const delivered = JSON.stringify({ ...push(), after: slow });
    const answer = await deliver(delivered, { 'x-github-delivery': 'slow-greeting', 'x-hub-signature-256': await sign(SECRET, delivered) });
    const name = answer.json.executionName as string;
    // Stopped once the console shows the step's container running.
    const greetRuns = () => server.executions.detail(name)?.pods.get(1)?.container?.state === 'running';
    await until(async () => greetRuns(), Boolean);
    expect(greetRuns()).toBe(true);
    const sent = receiver.exports.length;

    const stopped = await fetch(`${server.url}/executions/${name}/stop`, { method: 'POST' });
    expect(stopped.status).toBe(200);
    expect(await stopped.json()).toMatchObject({ status: 'ABORTED' });

    // Sent by the cleanup before the stop answered: the run, the clone that ended, and the greeting still running.
    expect(receiver.exports).toHaveLength(sent + 1);
    const { root, steps, phases } = traceOf(receiver.exports.at(-1)!.spans);
    expect(root.status).toEqual({ code: 'STATUS_CODE_ERROR', message: 'ExecutionAborted' });
    expect(root.attributes).toMatchObject({ [ATTR_CICD_PIPELINE_RESULT]: 'cancellation', [ATTR_ERROR_TYPE]: 'ExecutionAborted', [ATTR_CICD_PIPELINE_RUN_URL_FULL]: answer.json.consoleUrl });
    expect(steps.map((step) => [step.name, step.status.code, step.attributes[ATTR_CICD_PIPELINE_TASK_RUN_RESULT]])).toEqual([
      ['clone', 'STATUS_CODE_UNSET', 'success'],
      ['greet', 'STATUS_CODE_ERROR', 'cancellation'],
    ]);
    const greet = steps[1]!;
    expect(greet.status.message).toBe('ExecutionAborted: still running when the execution ended');
    expect(greet.attributes[ATTR_CICD_PIPELINE_TASK_RUN_URL_FULL]).toBe(`${answer.json.consoleUrl as string}?step=1`);
    expect(greet.endTimeUnixNano).toBe(root.endTimeUnixNano);
    expect(phases(greet).at(-1)).toMatchObject({ name: 'running', endTimeUnixNano: root.endTimeUnixNano, status: { code: 'STATUS_CODE_ERROR' } });
  }, 30_000);

  it('answers 404 for an execution it does not have', async () => {
    expect(await get('/executions/nope')).toMatchObject({ status: 404, json: { error: 'ExecutionDoesNotExist' } });
  });
});
