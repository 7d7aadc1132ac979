/**
 * What PrepareBuild reads from GitHub itself, through the real definition on the embedded cluster:
 * what the webhook left to it, and a schedule's build (the input the packaged schedule starts).
 *
 * The webhook against a GitHub slower than its budget: functions/webhook as API Gateway invokes
 * it (secrets from Secrets Manager, StartExecution through the real SDK request path, both mocked
 * at the client), GitHub a loopback stand-in that answers every call late, and the execution it
 * starts then run through the real definition on the embedded cluster, whose PrepareBuild reads
 * from that same GitHub what the webhook left to it. The budget is made small here so that the
 * tests stay fast; the deployed one is WEBHOOK_LOOKUP_BUDGET_MS.
 */
import './fixtures/handler-logs-shown.js';
import { signedGitHubDelivery } from './fixtures/webhooks/signed-delivery.js';
import { jest } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SFNClient } from '@aws-sdk/client-sfn';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { clearCache } from '@middy/util';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ExecutionInput, PendingBuildInput, StatusReport, StatusRequest } from '../lib/contract/index.js';
import { gitHubChangeSource } from '../lib/forge/change-source.js';
import { gitHubPipelineSource } from '../lib/forge/pipeline-source.js';
import { gitHubRefHeadSource } from '../lib/forge/ref-head.js';
import { checkSchedules, scheduleExecutionInput } from '../lib/forge/schedules.js';
import type { StepResult } from '../lib/workflow/state-data.js';
import { buildIdFor } from '../lib/forge/execution-name.js';
import { createLambdaWebhookHandler } from '../lib/lambda/webhook.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { branchPush, branchUpdate } from './fixtures/webhooks/examples.js';
import { startFakeGitHub, type FakeGitHub } from './fixtures/webhooks/github-server.js';
import { FakeStepFunctions } from './fixtures/step-functions.js';

const GITHUB_SECRET = 'gh-webhook-secret-deferred-51c2';
const GITHUB_TOKEN = 'ghp_deferredTokenThatMustNeverLeak01';
const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:serverless-step-runner-dev-build';
/** Small, so the tests are quick; GitHub answers each call well after it. */
const BUDGET_MS = 30;
const GITHUB_DELAY_MS = 400;

const PIPELINE = `version: 1
checkout: false
steps:
  - name: test
    image: alpine:3.20
    commands: [echo deferred]
`;

const sfn = mockClient(SFNClient);
const secretsManager = mockClient(SecretsManagerClient);
let stepFunctions: FakeStepFunctions;
let github: FakeGitHub;
let cluster: EmbeddedCluster;
let root: string;
let kubeconfig: string;
let logged = '';
const push = branchPush();
const repoAt = `${(push as { repository: { full_name: string } }).repository.full_name}@${(push as { after: string }).after}`;

beforeAll(async () => {
  github = await startFakeGitHub();
  root = await mkdtemp(path.join(tmpdir(), 'webhook-deferred-'));
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
  kubeconfig = path.join(root, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  for (const stream of [process.stdout, process.stderr]) {
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged += chunk.toString();
      return true;
    });
  }
});

afterAll(async () => {
  jest.restoreAllMocks();
  clearCache();
  await github.close();
  await cluster.stop();
  await rm(root, { recursive: true, force: true });
});

beforeEach(() => {
  sfn.reset();
  secretsManager.reset();
  github.requests.length = 0;
  github.files.clear();
  github.files.set(repoAt, { text: PIPELINE, form: 'raw' });
  github.delayMs = GITHUB_DELAY_MS;
  const values: Record<string, string> = { 'ci/github-webhook': GITHUB_SECRET, 'ci/github-token': GITHUB_TOKEN };
  secretsManager.on(GetSecretValueCommand).callsFake(async (input: { SecretId: string }) => ({ SecretString: values[input.SecretId], Name: input.SecretId }));
  stepFunctions = new FakeStepFunctions([STATE_MACHINE_ARN]).answerFor(sfn);
  clearCache();
});

afterEach(() => {
  expect(logged).not.toContain(GITHUB_TOKEN);
  logged = '';
});

function webhook(budgetMs = BUDGET_MS) {
  return createLambdaWebhookHandler(
    { STATE_MACHINE_ARN, GITHUB_WEBHOOK_SECRET_ID: 'ci/github-webhook', GITHUB_TOKEN_SECRET_ID: 'ci/github-token', GITHUB_API_URL: github.url },
    new SFNClient({ region: 'eu-west-1' }),
    {},
    budgetMs,
  );
}

async function deliver(handler: ReturnType<typeof webhook>, options: { delivery?: string; secret?: string; payload?: unknown } = {}) {
  const event = await signedGitHubDelivery({ payload: options.payload ?? push, secret: options.secret ?? GITHUB_SECRET, delivery: options.delivery ?? 'a1b2c3d4-0000-11f0-8000-000000000001' });
  const answer = (await handler(event, localLambdaContext('webhook'))) as APIGatewayProxyStructuredResultV2;
  return { status: answer.statusCode, json: JSON.parse(answer.body ?? 'null') as Record<string, unknown> };
}

/** The started execution, run through the real definition; PrepareBuild asks the same GitHub. */
async function runStarted() {
  const [execution] = stepFunctions.list();
  return runInput(JSON.parse(execution!.input) as ExecutionInput, execution!.name);
}

async function runInput(input: ExecutionInput, executionName: string) {
  const statuses: StatusRequest[] = [];
  const events: ExecutionEvent[] = [];
  const runtime = localTaskRuntime({ kubeconfig, namespace: 'default', logsDir: path.join(root, 'logs') });
  const credentials = { token: GITHUB_TOKEN };
  runtime.deps.lookup = {
    pipelines: gitHubPipelineSource(credentials, { baseUrl: github.url }),
    changes: gitHubChangeSource(credentials, { baseUrl: github.url }),
    refHeads: gitHubRefHeadSource(credentials, { baseUrl: github.url }),
  };
  const summary = await startLocalExecution(input, {
    runtime,
    executionName,
    overrides: { waitMs: 50, retryMs: 10 },
    statuses: { report: async (request: StatusRequest): Promise<StatusReport> => (statuses.push(request), { posted: false, reason: 'recorded by the test' }) },
    onEvent: (event) => events.push(event),
  }).result;
  return { input, summary, statuses, events };
}

const entered = (events: ExecutionEvent[], state: string) => events.some((e) => e.type === 'StateEntered' && e.state?.name === state);

describe('a GitHub slower than the webhook\'s budget', () => {
  it('gets a 202 with the execution started, and the build reads the pipeline file itself and runs it', async () => {
    const answer = await deliver(webhook());
    expect(answer.status).toBe(202);
    expect(answer.json).toMatchObject({ executionName: expect.any(String), executionArn: expect.stringContaining(':execution:') });
    expect(answer.json.deferred).toMatch(/^GitHub did not answer within 30 ms: the build reads \.step-runner\.yml itself/);
    expect(stepFunctions.list()).toHaveLength(1);

    const { input, summary, statuses, events } = await runStarted();
    expect((input as PendingBuildInput).lookup).toMatchObject({ pipelineFile: '.step-runner.yml' });
    expect(input.pipeline).toBeUndefined();
    expect([summary.error, summary.cause]).toEqual([null, null]);
    expect(summary.status).toBe('SUCCEEDED');
    expect(summary.steps.map(({ name, status }) => [name, status])).toEqual([['test', 'succeeded']]);
    expect(entered(events, 'LaunchStep')).toBe(true);
    // Reported as any build is: pending, each step's end (for a check run; a commit status says nothing then), then success.
    expect(statuses.map((s) => s.outcome).filter((outcome) => outcome !== 'progress')).toEqual(['started', 'succeeded']);
    expect(statuses.filter((s) => s.outcome === 'progress').length).toBeGreaterThanOrEqual(1);
    // The build read the file with the deployment's token.
    const reads = github.requests.filter((r) => r.path.endsWith('/contents/.step-runner.yml'));
    expect(reads.length).toBeGreaterThanOrEqual(1);
    expect(reads.every((r) => r.headers.authorization === `Bearer ${GITHUB_TOKEN}`)).toBe(true);
  });

  it('for a repository without a pipeline file: the build runs no step and posts no status, as the webhook\'s 422 posted none', async () => {
    github.files.clear();
    const answer = await deliver(webhook());
    expect(answer.status).toBe(202);
    const { summary, statuses, events } = await runStarted();
    expect(summary.status).toBe('SUCCEEDED');
    expect(summary.steps).toEqual([]);
    expect(entered(events, 'LaunchStep')).toBe(false);
    expect(entered(events, 'NotBuilt')).toBe(true);
    expect(statuses).toEqual([]);
    const prepared = events.find((e) => e.type === 'StateExited' && e.state?.name === 'PrepareBuild')?.state?.output as { notBuilt?: string };
    expect(prepared.notBuilt).toMatch(/has no \.step-runner\.yml at [0-9a-f]{40} \(not found/);
  });

  it('for an invalid pipeline file: the build fails as InvalidPipeline before any pod, reported as a failure', async () => {
    github.files.set(repoAt, { text: 'version: 1\nsteps:\n  - name: x\n    image: alpine:3.20\n    commands: [echo]\n    timeout: soon\n', form: 'raw' });
    expect((await deliver(webhook())).status).toBe(202);
    const { summary, statuses, events } = await runStarted();
    expect(summary).toMatchObject({ status: 'FAILED', error: 'InvalidPipeline' });
    expect(entered(events, 'LaunchStep')).toBe(false);
    expect(statuses.map((s) => s.outcome)).toEqual(['failed']);
  });

  it('leaves the changed files to the build too, which skips by when.paths as the webhook would have', async () => {
    const update = { ...branchUpdate(), commits: [] } as unknown as { repository: { full_name: string }; before: string; after: string };
    const at = `${update.repository.full_name}@${update.after}`;
    github.files.set(at, { text: `${PIPELINE}  - name: api\n    image: alpine:3.20\n    commands: [echo api]\n    when:\n      paths: [src/**]\n`, form: 'raw' });
    github.comparisons.set(`${update.repository.full_name} ${update.before}...${update.after}`, [{ filename: 'docs/x.md' }]);
    expect((await deliver(webhook(), { payload: update, delivery: 'a1b2c3d4-0000-11f0-8000-000000000002' })).status).toBe(202);
    const { input, summary } = await runStarted();
    expect((input as PendingBuildInput).lookup.changes).toMatchObject({ kind: 'compare', base: update.before, head: update.after });
    expect(summary.status).toBe('SUCCEEDED');
    expect(summary.steps.map(({ name, status, reason }) => [name, status, reason ?? null])).toEqual([
      ['test', 'succeeded', null],
      ['api', 'skipped', 'when.paths: no changed file matches src/**'],
    ]);
  });

  it('a redelivery starts nothing new: the same execution name', async () => {
    const handler = webhook();
    const first = await deliver(handler);
    const again = await deliver(handler);
    expect(again.status).toBe(202);
    expect(again.json.executionArn).toBe(first.json.executionArn);
    expect(stepFunctions.list()).toHaveLength(1);
  });

  it('a wrong signature is refused at once: 401, no GitHub call, nothing started', async () => {
    const answer = await deliver(webhook(), { secret: 'not-the-secret' });
    expect(answer).toMatchObject({ status: 401, json: { error: 'InvalidSignature' } });
    expect(github.requests).toEqual([]);
    expect(stepFunctions.list()).toEqual([]);
  });
});

describe('a GitHub that answers within the budget', () => {
  it('gets today\'s answers: 422 for a repository without a pipeline file, and nothing started', async () => {
    github.delayMs = 0;
    github.files.clear();
    const answer = await deliver(webhook(5_000));
    expect(answer).toMatchObject({ status: 422, json: { error: 'PipelineNotFound' } });
    expect(stepFunctions.list()).toEqual([]);
  });

  it('starts the build with the pipeline in its input, nothing left to the build', async () => {
    github.delayMs = 0;
    const answer = await deliver(webhook(5_000));
    expect(answer.status).toBe(202);
    expect(answer.json.deferred).toBeUndefined();
    const input = JSON.parse(stepFunctions.list()[0]!.input) as PendingBuildInput;
    expect(input.pipeline).toEqual({ file: '.step-runner.yml', text: PIPELINE });
    expect(input.lookup).toBeUndefined();
  });
});

describe('a schedule: the input the packaged schedule starts (lib/deploy/schedules.cjs)', () => {
  const HEAD = 'c0ffee0000000000000000000000000000005ced';
  const SCHEDULED = `version: 1
checkout: false
inputs:
  - name: target
    required: true
  - name: dry-run
    default: "true"
steps:
  - name: nightly
    image: alpine:3.20
    commands: ['echo "$CI_EVENT $CI_INPUT_TARGET $CI_INPUT_DRY_RUN $CI_COMMIT_SHA"']
    when: {event: schedule}
  - name: on-push
    image: alpine:3.20
    commands: [echo push]
    when: {event: push}
`;
  const schedule = (inputs: Record<string, string>) => {
    const checked = checkSchedules({ nightly: { schedule: 'cron(0 3 * * ? *)', repository: 'acme/site', ref: 'refs/heads/main', inputs } });
    if (!checked.ok) throw new Error(checked.problems.join('; '));
    return scheduleExecutionInput(checked.value[0]!) as ExecutionInput;
  };

  beforeEach(() => {
    github.delayMs = 0;
    github.refs.clear();
    github.refs.set('acme/site@heads/main', HEAD);
    github.files.set(`acme/site@${HEAD}`, { text: SCHEDULED, form: 'raw' });
  });

  it("builds its ref's head, read from GitHub when it fires, as event schedule with its inputs; the same commit again builds again", async () => {
    // Step Functions names an execution that StartExecution gave no name (Scheduler's target) with a UUID.
    for (const name of ['5b2f8a4e-0d7c-4f0e-9a51-3c1d2e4f6a70', '9d0e7c6b-1a2b-4c3d-8e9f-0a1b2c3d4e5f']) {
      const { summary, events } = await runInput(schedule({ target: 'staging' }), name);
      expect([summary.status, summary.error]).toEqual(['SUCCEEDED', null]);
      expect(summary.steps.map(({ name: step, status, reason }) => [step, status, reason ?? null])).toEqual([
        ['nightly', 'succeeded', null],
        ['on-push', 'skipped', 'event schedule is not push'],
      ]);
      const [result] = events.filter((e) => e.type === 'TaskSucceeded' && e.state?.name === 'FinishStep').map((e) => e.state?.output as StepResult);
      expect(result!.logTail).toContain(`schedule staging true ${HEAD}`);
      // Its build id derives from the execution's name, as the ended-execution cleanup derives it.
      const prepared = events.find((e) => e.type === 'StateExited' && e.state?.name === 'PrepareBuild')?.state?.output as { build: { id: string } };
      expect(prepared.build.id).toBe(buildIdFor(name));
    }
    expect(github.requests.filter((r) => r.path === '/repos/acme/site/commits/heads%2Fmain')).toHaveLength(2);
  });

  it('fails as InvalidPipeline, naming the input, when the pipeline at the head no longer takes its inputs', async () => {
    const { summary, events } = await runInput(schedule({ target: 'staging', colour: 'red' }), '0f1e2d3c-4b5a-4697-8877-665544332211');
    expect(summary).toMatchObject({ status: 'FAILED', error: 'InvalidPipeline' });
    expect(summary.cause).toContain('input "colour": the pipeline declares no such input; its inputs are target, dry-run');
    expect(entered(events, 'LaunchStep')).toBe(false);
  });
});
