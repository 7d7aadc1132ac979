/**
 * functions/webhook end to end, as API Gateway invokes it: GitHub's own example payloads signed
 * here, secrets read from Secrets Manager and StartExecution sent to Step Functions through the
 * real AWS SDK request path (aws-sdk-client-mock answers at the client, from a registry of
 * executions that keeps names, inputs and statuses as the service does: test/fixtures/step-functions.ts),
 * and the GitHub contents API served over loopback HTTP.
 */
import './fixtures/handler-logs-shown.js';
import { jest } from '@jest/globals';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { clearCache } from '@middy/util';
import { sign } from '@octokit/webhooks-methods';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createLambdaWebhookHandler } from '../lib/lambda/webhook.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { logger } from '../lib/workflow/lambda-task.js';
import type { BuildInput } from '../lib/contract/index.js';
import { branchDeletion, branchPush, ping, pullRequest, tagPush } from './fixtures/webhooks/examples.js';
import { startFakeGitHub, type FakeGitHub } from './fixtures/webhooks/github-server.js';
import { FakeStepFunctions } from './fixtures/step-functions.js';

const GITHUB_SECRET = 'gh-webhook-secret-3f9a7c1e';
const GENERIC_SECRET = 'generic-webhook-secret-b81d44';
const GITHUB_TOKEN = 'ghp_tokenValueThatMustNeverLeak0001';
const SECRETS = [GITHUB_SECRET, GENERIC_SECRET, GITHUB_TOKEN];

/** Far past any loopback answer; the deployed budget is WEBHOOK_LOOKUP_BUDGET_MS. */
const PROMPT_GITHUB_BUDGET_MS = 60_000;
const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:serverless-step-runner-dev-build';
const PUSH_SHA = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
const PR_SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

const GOOD_PIPELINE = `version: 1
steps:
  - name: test
    image: node:22-alpine
    commands: [npm ci, npm test]
`;
const BAD_PIPELINE = `version: 1
steps:
  - name: build
    image: alpine:3.20
    commands: [echo hi]
    timeout: 10 minutes
`;

const sfn = mockClient(SFNClient);
const secretsManager = mockClient(SecretsManagerClient);
/** The executions Step Functions holds; fresh per test. */
let stepFunctions: FakeStepFunctions;
let github: FakeGitHub;
let handler: ReturnType<typeof createLambdaWebhookHandler>;

/** Everything the handler wrote to stdout/stderr (Powertools writes its JSON lines there). */
let logged = '';
/** Every body the handler answered with. */
const answered: string[] = [];

beforeAll(async () => {
  github = await startFakeGitHub();
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    logged += chunk.toString();
    return true;
  });
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    logged += chunk.toString();
    return true;
  });
  logger.setLogLevel('DEBUG');
});

afterAll(async () => {
  jest.restoreAllMocks();
  clearCache();
  await github.close();
});

beforeEach(() => {
  sfn.reset();
  secretsManager.reset();
  github.requests.length = 0;
  github.failWith = undefined;
  github.files.clear();
  github.files.set(`Codertocat/Hello-World@${PUSH_SHA}`, { text: GOOD_PIPELINE, form: 'raw' });
  github.files.set(`Codertocat/Hello-World@${PR_SHA}`, { text: GOOD_PIPELINE, form: 'json' });
  const values: Record<string, string> = { 'ci/github-webhook': GITHUB_SECRET, 'ci/generic-webhook': GENERIC_SECRET, 'ci/github-token': GITHUB_TOKEN };
  secretsManager.on(GetSecretValueCommand).callsFake(async (input: { SecretId: string }) => ({ SecretString: values[input.SecretId], Name: input.SecretId }));
  // A clock that moves a second per reading, so two starts can never share a startDate by chance.
  let now = Date.parse('2026-03-01T10:00:00Z');
  stepFunctions = new FakeStepFunctions([STATE_MACHINE_ARN], () => new Date((now += 1000))).answerFor(sfn);
  // A fresh handler (and secrets cache) per test, as a cold start has.
  clearCache();
  handler = createLambdaWebhookHandler(
    {
      STATE_MACHINE_ARN,
      GITHUB_WEBHOOK_SECRET_ID: 'ci/github-webhook',
      GENERIC_WEBHOOK_SECRET_ID: 'ci/generic-webhook',
      GITHUB_TOKEN_SECRET_ID: 'ci/github-token',
      GITHUB_API_URL: github.url,
    },
    new SFNClient({ region: 'eu-west-1' }),
    {},
    // These tests read the answers GitHub's prompt replies give: a loaded test machine must not
    // turn them into lookups left to the build (test/webhook-deferred.integration.test.ts).
    PROMPT_GITHUB_BUDGET_MS,
  );
});

afterEach(() => {
  // Whatever happened in the test: no secret in an answer or a log line.
  for (const secret of SECRETS) {
    expect(logged).not.toContain(secret);
    for (const body of answered) expect(body).not.toContain(secret);
  }
});

interface Delivery {
  path?: string;
  body: string;
  headers?: Record<string, string>;
  base64?: boolean;
}

async function post({ path = '/webhook', body, headers = {}, base64 = false }: Delivery) {
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/abc', ...headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method: 'POST', path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'GitHub-Hookshot/abc' },
      requestId: 'req-1',
      routeKey: '$default',
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
    body: base64 ? Buffer.from(body).toString('base64') : body,
    isBase64Encoded: base64,
  };
  const result = (await handler(event, localLambdaContext('webhook'))) as APIGatewayProxyStructuredResultV2;
  answered.push(result.body ?? '');
  return { status: result.statusCode, json: JSON.parse(result.body ?? 'null') as Record<string, unknown>, headers: result.headers };
}

/** A GitHub delivery of `payload`, signed with the webhook's secret unless told otherwise. */
async function deliver(event: string, payload: unknown, options: { delivery?: string; secret?: string | null; base64?: boolean; body?: string; contentType?: string } = {}) {
  const body = options.body ?? JSON.stringify(payload);
  const headers: Record<string, string> = {
    'x-github-event': event,
    'x-github-delivery': options.delivery ?? '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  };
  if (options.secret !== null) headers['x-hub-signature-256'] = await sign(options.secret ?? GITHUB_SECRET, body);
  if (options.contentType) headers['content-type'] = options.contentType;
  return post({ body, headers, base64: options.base64 ?? false });
}

function startedInputs(): { name: string; input: BuildInput; stateMachineArn: string }[] {
  return sfn.commandCalls(StartExecutionCommand).map((call) => {
    const { name, input, stateMachineArn } = call.args[0].input;
    return { name: name!, input: JSON.parse(input!) as BuildInput, stateMachineArn: stateMachineArn! };
  });
}

describe('GitHub deliveries', () => {
  it('answers a ping with its zen and starts nothing', async () => {
    const answer = await deliver('ping', ping());
    expect(answer).toMatchObject({ status: 200, json: { ok: true, zen: 'Anything added dilutes everything else.' } });
    expect(startedInputs()).toHaveLength(0);
  });

  it('starts one build of the pushed commit with the repository pipeline, and links it in the console', async () => {
    const answer = await deliver('push', branchPush());
    expect(answer.status).toBe(202);
    const [started, ...more] = startedInputs();
    expect(more).toHaveLength(0);
    expect(started!.stateMachineArn).toBe(STATE_MACHINE_ARN);
    expect(started!.name).toMatch(/^gh-Hello-World-6113728-72d3162e-cc78-11e3-81ab-4c9367dc0958-[0-9a-f]{10}$/);
    const arn = `arn:aws:states:eu-west-1:123456789012:execution:serverless-step-runner-dev-build:${started!.name}`;
    expect(answer.json).toEqual({
      executionArn: arn,
      executionName: started!.name,
      consoleUrl: `https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/${arn}`,
    });
    expect(started!.input).toEqual({
      build: {
        id: expect.stringMatching(/^gh-hello-world-6113728-[a-z0-9-]+$/),
        trigger: 'github push',
        repository: 'Codertocat/Hello-World',
        commit: PUSH_SHA,
        ref: 'refs/heads/master',
        event: 'push',
        // GitHub's example came through an App: its installation travels with the build.
        installationId: 1,
        // Whose cache entries the build falls back on.
        defaultBranch: 'master',
        // When GitHub took the push (repository.pushed_at): which build of a concurrency group is the newer.
        pushedAt: '2019-05-15T15:20:57.000Z',
        // Who pushed (sender.login): an approval with self-approval: false refuses them.
        pushedBy: 'Codertocat',
      },
      pipeline: { file: '.step-runner.yml', text: GOOD_PIPELINE },
      // The clone step fetches the pushed commit from the repository GitHub named.
      // with GitHub credentials, so a private repository checks out too.
      source: { url: 'https://github.com/Codertocat/Hello-World.git', commit: PUSH_SHA, ref: 'refs/heads/master', credentials: 'github' },
      // GitHub's example push creates the branch, so which files it changes is not known.
      changes: { known: false, why: 'the push created the branch: there is no earlier commit of it to compare with' },
    });
    expect(started!.input.build.id.length).toBeLessThanOrEqual(63);

    // The pipeline was read at the pushed commit, with the token from Secrets Manager (this
    // deployment has no GitHub App, so the installation is of no use to it).
    const [read] = github.requests;
    expect(read).toMatchObject({ method: 'GET', path: '/repos/Codertocat/Hello-World/contents/.step-runner.yml' });
    expect(read!.query.get('ref')).toBe(PUSH_SHA);
    expect(read!.headers.authorization).toBe(`Bearer ${GITHUB_TOKEN}`);
  });

  it('verifies the exact bytes of a base64-encoded body', async () => {
    // Non-ASCII text: the signature is over its UTF-8 bytes, which base64 carries unchanged.
    const payload = { ...branchPush(), head_commit: { ...(branchPush().head_commit as object), message: 'Grüße, 世界 ✓' } };
    expect((await deliver('push', payload, { base64: true })).status).toBe(202);
    expect(startedInputs()).toHaveLength(1);
  });

  it.each(['opened', 'synchronize', 'reopened'])('builds the head commit of a pull request %s', async (action) => {
    const payload = pullRequest(action);
    const answer = await deliver('pull_request', payload);
    expect(answer.status).toBe(202);
    expect(startedInputs()[0]!.input.build).toMatchObject({
      trigger: 'github pull_request',
      repository: 'Codertocat/Hello-World',
      commit: PR_SHA,
      ref: `refs/pull/${payload.number}/head`,
      // The branch a step's `when.branch` sees: the base branch, as GitHub Actions' `branches`.
      baseRef: 'refs/heads/master',
    });
  });

  it.each([
    ['a tag push', 'push', tagPush, 'tag pushes (refs/tags/simple-tag) do not start builds'],
    ['a branch deletion', 'push', branchDeletion, 'refs/heads/feature-x was deleted; there is nothing to build'],
    ['a closed pull request', 'pull_request', () => pullRequest('closed'), 'pull_request "closed" does not start a build'],
  ])('ignores %s with a 202 that says why, and starts nothing', async (_what, event, payload, reason) => {
    const answer = await deliver(event, payload());
    expect(answer).toMatchObject({ status: 202, json: { ignored: reason } });
    expect(startedInputs()).toHaveLength(0);
    expect(github.requests).toHaveLength(0);
  });

  it('gives a different delivery of the same commit its own build', async () => {
    await deliver('push', branchPush(), { delivery: 'aaaaaaaa-0000-0000-0000-000000000001' });
    await deliver('push', branchPush(), { delivery: 'aaaaaaaa-0000-0000-0000-000000000002' });
    const [a, b] = startedInputs();
    expect(a!.name).not.toBe(b!.name);
    expect(a!.input.build.id).not.toBe(b!.input.build.id);
    expect(stepFunctions.list().map((e) => [e.name, e.status])).toEqual([[a!.name, 'RUNNING'], [b!.name, 'RUNNING']]);
  });
});

describe('a redelivery, answered as Step Functions answers it', () => {
  const arnOf = (name: string) => `arn:aws:states:eu-west-1:123456789012:execution:serverless-step-runner-dev-build:${name}`;

  it('while the build runs: the same name and input get the running execution back (same ARN, same startDate), and nothing new starts', async () => {
    const first = await deliver('push', branchPush());
    const second = await deliver('push', branchPush());

    const [a, b] = startedInputs();
    expect(b!.name).toBe(a!.name);
    expect(b!.input).toEqual(a!.input);
    // Step Functions treated the second start as idempotent: 200, the first execution's ARN and startDate.
    const [started, repeated] = stepFunctions.outcomes;
    expect(started!.error).toBeUndefined();
    expect(repeated!.error).toBeUndefined();
    expect(repeated!.output).toEqual({ executionArn: arnOf(a!.name), startDate: new Date('2026-03-01T10:00:01Z') });
    expect(repeated!.output).toEqual(started!.output);
    expect(stepFunctions.list()).toEqual([expect.objectContaining({ name: a!.name, status: 'RUNNING' })]);

    // That answer is all the webhook has, so it answers both deliveries alike: 202, that execution.
    expect(first).toMatchObject({ status: 202, json: { executionArn: arnOf(a!.name), executionName: a!.name } });
    expect(second.status).toBe(202);
    expect(second.json).toEqual(first.json);
  });

  it.each(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const)(
    'after the build ended %s: Step Functions refuses the name with ExecutionAlreadyExists, and the sender is told it was already started',
    async (status) => {
      const first = await deliver('push', branchPush());
      const name = startedInputs()[0]!.name;
      stepFunctions.close(name, status);
      const second = await deliver('push', branchPush());

      expect(stepFunctions.outcomes.map((o) => o.error?.name)).toEqual([undefined, 'ExecutionAlreadyExists']);
      expect(second).toMatchObject({
        status: 202,
        json: { executionArn: arnOf(name), executionName: name, consoleUrl: first.json.consoleUrl, alreadyStarted: true },
      });
      // Nothing was started again: one execution, still as it ended.
      expect(stepFunctions.list()).toEqual([expect.objectContaining({ name, status })]);
    },
  );

  it('with the same delivery id but another input: refused with ExecutionAlreadyExists, answered as already started, the first build left as it is', async () => {
    const sign256 = async (text: string) => ({ 'x-signature-256': await sign(GENERIC_SECRET, text), 'x-delivery-id': 'reused-id-1' });
    const body = (pipeline: string) =>
      JSON.stringify({ repository: 'team/app', commit: 'a1b2c3d4e5f6', ref: 'refs/heads/main', pipeline, cloneUrl: 'https://git.example.com/team/app.git' });
    const other = GOOD_PIPELINE.replace('npm test', 'npm run lint');
    const first = await post({ path: '/webhook/generic', body: body(GOOD_PIPELINE), headers: await sign256(body(GOOD_PIPELINE)) });
    const second = await post({ path: '/webhook/generic', body: body(other), headers: await sign256(body(other)) });

    const [a, b] = startedInputs();
    expect(b!.name).toBe(a!.name);
    expect(b!.input.pipeline.text).toBe(other);
    expect(stepFunctions.outcomes.map((o) => o.error?.name)).toEqual([undefined, 'ExecutionAlreadyExists']);
    expect(first.status).toBe(202);
    expect(second).toMatchObject({ status: 202, json: { executionArn: arnOf(a!.name), executionName: a!.name, alreadyStarted: true } });
    const [execution, ...more] = stepFunctions.list();
    expect(more).toEqual([]);
    expect(execution).toMatchObject({ name: a!.name, status: 'RUNNING' });
    expect((JSON.parse(execution!.input) as BuildInput).pipeline.text).toBe(GOOD_PIPELINE);
  });
});

describe('refusals start nothing', () => {
  afterEach(() => {
    expect(startedInputs()).toHaveLength(0);
  });

  it('401 without a signature', async () => {
    const answer = await deliver('push', branchPush(), { secret: null });
    expect(answer).toMatchObject({ status: 401, json: { error: 'MissingSignature' } });
    expect(answer.json.message).toMatch(/X-Hub-Signature-256 header is missing/i);
    expect(github.requests).toHaveLength(0);
  });

  it('401 for a signature made with another secret, logged without stack or secret', async () => {
    logged = '';
    const answer = await deliver('push', branchPush(), { secret: 'not-the-secret' });
    expect(answer).toMatchObject({ status: 401, json: { error: 'InvalidSignature' } });
    expect(github.requests).toHaveLength(0);
    const line = logged.split('\n').find((l) => l.includes('Webhook refused'));
    expect(JSON.parse(line!)).toMatchObject({ level: 'WARN', status: 401, error: 'InvalidSignature', raisedBy: 'serverless-step-runner/forge/signature' });
    expect(logged).not.toMatch(/\n\s+at /);
  });

  it('401 for a body changed after signing', async () => {
    const body = JSON.stringify(branchPush());
    const signature = await sign(GITHUB_SECRET, body);
    const answer = await post({
      body: body.replace('master', 'main'),
      headers: { 'x-github-event': 'push', 'x-github-delivery': 'd-1', 'x-hub-signature-256': signature },
    });
    expect(answer.status).toBe(401);
  });

  it('400 for a signed body that is not JSON, without echoing it', async () => {
    const answer = await deliver('push', undefined, { body: '{"ref": "refs/heads/main", oops' });
    expect(answer).toMatchObject({ status: 400, json: { error: 'MalformedBody' } });
    expect(answer.json.message).toMatch(/not valid JSON/);
    expect(answer.json.message).not.toContain('oops');
  });

  it('400 for an invalid pipeline, naming its file, line, step and field', async () => {
    github.files.set(`Codertocat/Hello-World@${PUSH_SHA}`, { text: BAD_PIPELINE, form: 'raw' });
    const answer = await deliver('push', branchPush());
    expect(answer).toMatchObject({ status: 400, json: { error: 'PipelineRejected', pipelineError: 'InvalidPipeline' } });
    expect(answer.json.message).toBe('.step-runner.yml line 6: step "build": timeout: "10 minutes" is not a duration; write it like 90s, 10m, 1h30m or 2h');
  });

  it('422 when the repository has no pipeline file at the commit', async () => {
    github.files.clear();
    const answer = await deliver('push', branchPush());
    expect(answer).toMatchObject({ status: 422, json: { error: 'PipelineNotFound' } });
    expect(answer.json.message).toContain(`Codertocat/Hello-World has no .step-runner.yml at ${PUSH_SHA}`);
  });

  it('502 when GitHub fails, with GitHub\'s words and not the token', async () => {
    github.failWith = 401;
    const answer = await deliver('push', branchPush());
    expect(answer).toMatchObject({ status: 502, json: { error: 'ForgeUnavailable' } });
    expect(answer.json.message).toContain('answered 401 (Bad credentials)');
  });

  it('413 past 1 MiB', async () => {
    const payload = { ...branchPush(), padding: 'x'.repeat(1024 * 1024) };
    const answer = await deliver('push', payload);
    expect(answer).toMatchObject({ status: 413, json: { error: 'PayloadTooLarge' } });
  });

  it('415 for a form-encoded delivery, saying which setting to change', async () => {
    const body = `payload=${encodeURIComponent(JSON.stringify(branchPush()))}`;
    const answer = await deliver('push', undefined, { body, contentType: 'application/x-www-form-urlencoded' });
    expect(answer).toMatchObject({ status: 415, json: { error: 'UnsupportedMediaType' } });
    expect(answer.json.message).toMatch(/Content type.*application\/json/);
  });

  it('415 for any other content type', async () => {
    const answer = await deliver('push', branchPush(), { contentType: 'text/plain' });
    expect(answer).toMatchObject({ status: 415, json: { message: 'Content-Type "text/plain" is not accepted: send application/json.' } });
  });
});

describe('generic deliveries', () => {
  const payload = {
    repository: 'team/app',
    commit: 'a1b2c3d4e5f6',
    ref: 'refs/heads/main',
    pipeline: GOOD_PIPELINE,
    cloneUrl: 'https://git.example.com/team/app.git',
  };

  async function deliverGeneric(body: unknown, options: { secret?: string; deliveryId?: string } = {}) {
    const text = JSON.stringify(body);
    const headers: Record<string, string> = { 'x-signature-256': await sign(options.secret ?? GENERIC_SECRET, text) };
    if (options.deliveryId) headers['x-delivery-id'] = options.deliveryId;
    return post({ path: '/webhook/generic', body: text, headers });
  }

  it('starts a build of the inline pipeline', async () => {
    const answer = await deliverGeneric(payload, { deliveryId: 'build-42' });
    expect(answer.status).toBe(202);
    const [started] = startedInputs();
    expect(started!.name).toMatch(/^generic-app-a1b2c3d-build-42-[0-9a-f]{10}$/);
    expect(started!.input).toMatchObject({
      build: { trigger: 'generic', event: 'generic', repository: 'team/app', commit: 'a1b2c3d4e5f6', ref: 'refs/heads/main' },
      pipeline: { file: 'inline pipeline', text: GOOD_PIPELINE },
      source: { url: 'https://git.example.com/team/app.git', commit: 'a1b2c3d4e5f6', ref: 'refs/heads/main' },
    });
    expect(github.requests).toHaveLength(0);
  });

  it('400 lists every problem of the pipeline, each with its line, step and field; the message stays the first', async () => {
    const pipeline = 'version: 1\nsteps:\n  - name: Test\n    image: Node:22\n    commands: [npm test]\n    timeout: later\n    enviroment: {}\n';
    const answer = await deliverGeneric({ ...payload, pipeline });
    expect(answer).toMatchObject({ status: 400, json: { error: 'PipelineRejected', pipelineError: 'InvalidPipeline' } });
    const problems = answer.json.problems as { file: string; line: number; step: string; field: string; message: string }[];
    expect(problems.map(({ file, line, step, field }) => ({ file, line, step, field }))).toEqual([
      { file: 'inline pipeline', line: 3, step: 'Test', field: 'name' },
      { file: 'inline pipeline', line: 4, step: 'Test', field: 'image' },
      { file: 'inline pipeline', line: 6, step: 'Test', field: 'timeout' },
      { file: 'inline pipeline', line: 7, step: 'Test', field: 'enviroment' },
    ]);
    expect(answer.json.message).toBe(`${problems[0]!.message} (and 3 more problems)`);
    expect(problems[3]!.message).toContain('unknown field "enviroment"');
    expect(startedInputs()).toHaveLength(0);
  });

  it('refuses, before anything starts, a pipeline that checks out when the delivery names no repository', async () => {
    const { cloneUrl: _, ...withoutClone } = payload;
    const answer = await deliverGeneric(withoutClone);
    expect(answer).toMatchObject({ status: 400, json: { error: 'PipelineRejected', pipelineError: 'InvalidPipeline' } });
    expect(answer.json.message).toBe(
      'inline pipeline: the pipeline checks out its source, but this delivery names no repository to clone: send "cloneUrl", or set "checkout: false" in the pipeline.',
    );
    expect(startedInputs()).toHaveLength(0);
    // The same pipeline without a checkout needs no repository.
    expect((await deliverGeneric({ ...withoutClone, pipeline: `checkout: false\n${GOOD_PIPELINE}` })).status).toBe(202);
    expect(startedInputs()[0]!.input).not.toHaveProperty('source');
  });

  it.each([
    ['a URL with a password in it', 'https://ci:hunter2@git.example.com/team/app.git', 'must not carry a user or password'],
    ['a local path', '/srv/git/app.git', 'must be an https://, http:// or git:// URL'],
  ])('refuses %s as cloneUrl, without echoing it', async (_what, cloneUrl, message) => {
    const answer = await deliverGeneric({ ...payload, cloneUrl });
    expect(answer).toMatchObject({ status: 400, json: { error: 'InvalidPayload' } });
    expect(answer.json.message).toContain(message);
    expect(JSON.stringify(answer.json)).not.toContain('hunter2');
    expect(startedInputs()).toHaveLength(0);
  });

  it('names a delivery without X-Delivery-Id by its body, so a resend is the same execution', async () => {
    const first = await deliverGeneric(payload);
    const again = await deliverGeneric(payload);
    const [a, b] = startedInputs();
    expect(a!.name).toBe(b!.name);
    expect(again.json.executionArn).toBe(first.json.executionArn);
    expect(stepFunctions.list().map((e) => e.name)).toEqual([a!.name]);
  });

  it('refuses a wrong signature with 401', async () => {
    expect((await deliverGeneric(payload, { secret: GITHUB_SECRET })).status).toBe(401);
    expect(startedInputs()).toHaveLength(0);
  });

  it('refuses an invalid inline pipeline with 400 naming line, step and field', async () => {
    const answer = await deliverGeneric({ ...payload, pipeline: BAD_PIPELINE });
    expect(answer.status).toBe(400);
    expect(answer.json.message).toBe('inline pipeline line 6: step "build": timeout: "10 minutes" is not a duration; write it like 90s, 10m, 1h30m or 2h');
    expect(startedInputs()).toHaveLength(0);
  });

  it("reads a payload without a pipeline as a manual run of the repository's own file: 422 when GitHub has none at the commit", async () => {
    const answer = await deliverGeneric({ ...payload, pipeline: undefined, cloneUrl: undefined });
    expect(answer).toMatchObject({ status: 422, json: { error: 'PipelineNotFound' } });
    expect(startedInputs()).toHaveLength(0);
  });
});

describe('manual runs (step-runner trigger): the repository\'s own pipeline at the head of its ref', () => {
  const HEAD = 'b7e1c0ffee0000000000000000000000000000aa';
  const WITH_INPUTS = `version: 1
inputs:
  - name: target
    required: true
    choices: [staging, production]
  - name: dry-run
    default: "true"
${GOOD_PIPELINE.replace('version: 1\n', '')}`;

  beforeEach(() => {
    github.refs.clear();
    github.refs.set('Codertocat/Hello-World@heads/main', HEAD);
    github.files.set(`Codertocat/Hello-World@${HEAD}`, { text: WITH_INPUTS, form: 'raw' });
  });

  async function trigger(body: unknown, deliveryId = 'trigger-1') {
    const text = JSON.stringify(body);
    return post({ path: '/webhook/generic', body: text, headers: { 'x-signature-256': await sign(GENERIC_SECRET, text), 'x-delivery-id': deliveryId } });
  }

  it("starts a build of the ref's head commit, event manual, with the inputs given", async () => {
    const answer = await trigger({ repository: 'Codertocat/Hello-World', ref: 'refs/heads/main', event: 'manual', inputs: { target: 'production' } });
    expect(answer.status).toBe(202);
    const [started] = startedInputs();
    expect(started!.input).toMatchObject({
      build: { trigger: 'github manual', event: 'manual', repository: 'Codertocat/Hello-World', commit: HEAD, ref: 'refs/heads/main', inputs: { target: 'production' } },
      pipeline: { file: '.step-runner.yml', text: WITH_INPUTS },
      source: { url: 'https://github.com/Codertocat/Hello-World.git', commit: HEAD, ref: 'refs/heads/main', credentials: 'github' },
    });
    // The head was asked for by its ref, with the sha-only media type, then the file at it.
    const [head, file] = github.requests;
    expect(head).toMatchObject({ method: 'GET', path: '/repos/Codertocat/Hello-World/commits/heads%2Fmain' });
    expect(head!.headers.accept).toBe('application/vnd.github.sha');
    expect(file).toMatchObject({ path: '/repos/Codertocat/Hello-World/contents/.step-runner.yml' });
    expect(file!.query.get('ref')).toBe(HEAD);
  });

  it.each([
    ['a required input missing', {}, 'target', 'input "target" is required, and no value was given'],
    ['a value outside its choices', { target: 'prod' }, 'target', 'input "target": "prod" is not one of its choices ("staging", "production")'],
    ['an input the pipeline does not declare', { target: 'staging', colour: 'red' }, 'colour', 'input "colour": the pipeline declares no such input; its inputs are target, dry-run'],
  ])('422 for %s, naming the input; nothing starts', async (_what, inputs, input, message) => {
    const answer = await trigger({ repository: 'Codertocat/Hello-World', ref: 'refs/heads/main', inputs });
    expect(answer).toMatchObject({ status: 422, json: { error: 'InputsRejected', problems: [{ input, message }] } });
    expect(answer.json.message).toContain(message);
    expect(startedInputs()).toHaveLength(0);
  });

  it('422 for a ref with no commit; nothing starts', async () => {
    const answer = await trigger({ repository: 'Codertocat/Hello-World', ref: 'refs/heads/gone', inputs: { target: 'staging' } });
    expect(answer).toMatchObject({ status: 422, json: { error: 'RefNotFound', message: 'Codertocat/Hello-World has no commit at refs/heads/gone (a private repository also needs a token that can read it).' } });
    expect(startedInputs()).toHaveLength(0);
  });

  it('refuses inputs an inline pipeline does not declare, too', async () => {
    const text = JSON.stringify({ repository: 'team/app', commit: 'a1b2c3d4e5f6', ref: 'refs/heads/main', pipeline: `checkout: false\n${GOOD_PIPELINE}`, event: 'manual', inputs: { target: 'x' } });
    const answer = await post({ path: '/webhook/generic', body: text, headers: { 'x-signature-256': await sign(GENERIC_SECRET, text) } });
    expect(answer).toMatchObject({ status: 422, json: { error: 'InputsRejected' } });
    expect(startedInputs()).toHaveLength(0);
  });
});

describe('configuration', () => {
  it('reads each secret from Secrets Manager once and reuses it while warm', async () => {
    await deliver('push', branchPush(), { delivery: 'd-1' });
    await deliver('push', branchPush(), { delivery: 'd-2' });
    const ids = secretsManager.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input.SecretId);
    expect(ids.sort()).toEqual(['ci/generic-webhook', 'ci/github-token', 'ci/github-webhook']);
  });

  it('accepts a secret stored as JSON key/value pairs', async () => {
    secretsManager.on(GetSecretValueCommand, { SecretId: 'ci/github-webhook' }).resolves({ SecretString: JSON.stringify({ secret: GITHUB_SECRET }) });
    clearCache();
    handler = createLambdaWebhookHandler({ STATE_MACHINE_ARN, GITHUB_WEBHOOK_SECRET_ID: 'ci/github-webhook' }, new SFNClient({ region: 'eu-west-1' }));
    expect((await deliver('ping', ping())).status).toBe(200);
  });

  it('answers 404 for a kind of webhook that has no secret configured', async () => {
    clearCache();
    handler = createLambdaWebhookHandler({ STATE_MACHINE_ARN, GITHUB_WEBHOOK_SECRET_ID: 'ci/github-webhook' }, new SFNClient({ region: 'eu-west-1' }));
    const body = JSON.stringify({ repository: 'a/b', commit: 'c', ref: 'r', pipeline: GOOD_PIPELINE });
    const answer = await post({ path: '/webhook/generic', body, headers: { 'x-signature-256': await sign('anything', body) } });
    expect(answer).toMatchObject({ status: 404, json: { error: 'WebhookNotConfigured' } });
  });

  it('answers 500 without details when the execution cannot be started', async () => {
    sfn.on(StartExecutionCommand).rejects(new Error('User is not authorized to perform: states:StartExecution'));
    const answer = await deliver('push', branchPush());
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ error: 'InternalError', message: expect.stringMatching(/^The webhook could not be handled; redeliver it later\. Request id: /) });
  });
});
