/**
 * "Re-run" and "Re-run all checks" on GitHub, through functions/webhook as lib/lambda builds it for
 * a deployment with a GitHub App: GitHub's own check_run and check_suite "rerequested" examples
 * (@octokit/webhooks-examples) signed here, the pipeline read from the GitHub stand-in over
 * loopback HTTP with an installation token, and StartExecution answered as Step Functions answers
 * it (test/fixtures/step-functions.ts). A re-run starts a new build of the same commit, named as a
 * re-run of the earlier one; its redelivery starts nothing; another App's check run starts nothing.
 */
import { signedGitHubDelivery } from './fixtures/webhooks/signed-delivery.js';
import { jest } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import { clearCache } from '@middy/util';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { BuildInput } from '../lib/contract/index.js';
import { createLambdaWebhookHandler } from '../lib/lambda/webhook.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { branchPush, checkRun, checkSuite, pullRequest } from './fixtures/webhooks/examples.js';
import { startFakeGitHub, type FakeGitHub } from './fixtures/webhooks/github-server.js';
import { FakeStepFunctions } from './fixtures/step-functions.js';

const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:serverless-step-runner-dev-build';
const WEBHOOK_SECRET = 'gh-webhook-secret-rerun-77c2';
const PRIVATE_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const PIPELINE = 'version: 1\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: [ls]\n';
// GitHub's examples: the check run (App 2) is of github/hello-world's master, the check suite
// (App 29310) of Codertocat/Hello-World's pull request #2.
const RUN_APP = '2';
const SUITE_APP = '29310';
const RUN_SHA = 'd6fde92930d4715a2b49857d24b940956b26d2d3';
const PR_SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

const secretsManager = mockClient(SecretsManagerClient);
const sfn = mockClient(SFNClient);
let github: FakeGitHub;
let stepFunctions: FakeStepFunctions;

beforeAll(async () => {
  github = await startFakeGitHub();
  for (const stream of [process.stdout, process.stderr]) jest.spyOn(stream, 'write').mockImplementation(() => true);
});

afterAll(async () => {
  jest.restoreAllMocks();
  clearCache();
  await github.close();
});

beforeEach(() => {
  clearCache();
  github.requests.length = 0;
  github.installations.clear();
  for (const id of [1, 957387]) github.installations.set(id, { token: `ghs_installationToken${id}NeverLogged00` });
  github.files.clear();
  github.files.set(`github/hello-world@${RUN_SHA}`, { text: PIPELINE, form: 'raw' });
  github.files.set(`Codertocat/Hello-World@${PR_SHA}`, { text: PIPELINE, form: 'raw' });
  secretsManager.reset();
  const values: Record<string, string> = { 'ci/github-app-key': PRIVATE_KEY, 'ci/github-webhook': WEBHOOK_SECRET };
  secretsManager.on(GetSecretValueCommand).callsFake(async (input: { SecretId: string }) => ({ SecretString: values[input.SecretId], Name: input.SecretId }));
  sfn.reset();
  let now = Date.parse('2026-03-01T10:00:00Z');
  stepFunctions = new FakeStepFunctions([STATE_MACHINE_ARN], () => new Date((now += 1000))).answerFor(sfn);
});

/** One delivery to a deployment whose GitHub App is `appId`. */
async function deliver(appId: string, event: string, payload: unknown, delivery: string) {
  const handler = createLambdaWebhookHandler(
    {
      STATE_MACHINE_ARN,
      GITHUB_WEBHOOK_SECRET_ID: 'ci/github-webhook',
      GITHUB_API_URL: github.url,
      GITHUB_APP_ID: appId,
      GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'ci/github-app-key',
    },
    new SFNClient({ region: 'eu-west-1' }),
    {},
    // Far past any loopback answer: these tests read what GitHub's prompt answers give.
    60_000,
  );
  const request = await signedGitHubDelivery({ payload, secret: WEBHOOK_SECRET, event, delivery });
  const answer = (await handler(request, localLambdaContext('webhook'))) as APIGatewayProxyStructuredResultV2;
  return { status: answer.statusCode, json: JSON.parse(answer.body ?? 'null') as Record<string, unknown> };
}

const inputOf = (name: string) => JSON.parse(stepFunctions.named(name)!.input) as BuildInput;

/** A push of the check run's commit to its branch: GitHub's push example, moved to that repository. */
function pushOfTheCheckRunsCommit() {
  const run = checkRun('rerequested');
  return { ...branchPush(), repository: run.repository, installation: run.installation, after: RUN_SHA, ref: 'refs/heads/master' };
}

describe('Re-run from GitHub', () => {
  it("re-runs a check run as a new build of its commit, named after the earlier execution, and its redelivery starts nothing", async () => {
    const first = await deliver(RUN_APP, 'push', pushOfTheCheckRunsCommit(), 'a1f0c6e0-0001-11f0-8000-000000000001');
    expect(first.status).toBe(202);
    const earlier = String(first.json.executionName);

    // What GitHub sends when someone clicks "Re-run" on the check run that build created.
    const rerun = checkRun('rerequested') as { check_run: { external_id: string } };
    rerun.check_run.external_id = String(first.json.executionArn);
    const answer = await deliver(RUN_APP, 'check_run', rerun, 'b2e1d7f0-0002-11f0-8000-000000000002');
    expect(answer.status).toBe(202);
    expect(answer.json.alreadyStarted).toBeUndefined();
    const name = String(answer.json.executionName);
    expect(name).toMatch(new RegExp(`^${earlier.replace(/-[0-9a-f]{10}$/, '')}-rerun-[0-9a-f]{10}$`));
    expect(stepFunctions.list().map((e) => e.name)).toEqual([earlier, name]);
    expect(inputOf(name).build).toMatchObject({ trigger: 'github push', event: 'push', repository: 'github/hello-world', commit: RUN_SHA, ref: 'refs/heads/master', installationId: 1 });
    expect(inputOf(name).build.commit).toBe(inputOf(earlier).build.commit);
    expect(inputOf(name).source).toMatchObject({ commit: RUN_SHA, ref: 'refs/heads/master' });

    // GitHub's "Redeliver", while the re-run runs and after it has ended: the same name, nothing new.
    const again = await deliver(RUN_APP, 'check_run', rerun, 'b2e1d7f0-0002-11f0-8000-000000000002');
    expect(again).toMatchObject({ status: 202, json: { executionName: name } });
    stepFunctions.close(name, 'FAILED');
    const later = await deliver(RUN_APP, 'check_run', rerun, 'b2e1d7f0-0002-11f0-8000-000000000002');
    expect(later).toMatchObject({ status: 202, json: { executionName: name, alreadyStarted: true } });
    expect(stepFunctions.list()).toHaveLength(2);

    // Another click is another delivery: another re-run, named after the same earlier execution.
    const second = await deliver(RUN_APP, 'check_run', rerun, 'c3f2e8a0-0003-11f0-8000-000000000003');
    expect(String(second.json.executionName)).not.toBe(name);
    expect(String(second.json.executionName)).toMatch(new RegExp(`^${earlier.replace(/-[0-9a-f]{10}$/, '')}-rerun-`));
    expect(stepFunctions.list()).toHaveLength(3);
  });

  it('re-runs all checks of a pull request\'s head as a new build of that pull request', async () => {
    const first = await deliver(SUITE_APP, 'pull_request', { ...pullRequest('synchronize'), installation: { id: 957387 } }, 'd4a3f9b0-0004-11f0-8000-000000000004');
    expect(first.status).toBe(202);
    const answer = await deliver(SUITE_APP, 'check_suite', checkSuite('rerequested'), 'e5b4a0c0-0005-11f0-8000-000000000005');
    expect(answer.status).toBe(202);
    const name = String(answer.json.executionName);
    // A suite names no execution: the delivery's own name, saying rerun.
    expect(name).toMatch(/^gh-rerun-Hello-World-ec26c3e-e5b4a0c0-0005-11f0-8000-000000000005-[0-9a-f]{10}$/);
    expect(inputOf(name).build).toMatchObject({
      trigger: 'github pull_request',
      event: 'pull_request',
      commit: PR_SHA,
      ref: 'refs/pull/2/head',
      pullRequest: { number: 2, fork: false },
      installationId: 957387,
    });
    expect(inputOf(name).build.commit).toBe(inputOf(String(first.json.executionName)).build.commit);
    stepFunctions.close(name);
    expect(await deliver(SUITE_APP, 'check_suite', checkSuite('rerequested'), 'e5b4a0c0-0005-11f0-8000-000000000005')).toMatchObject({ json: { executionName: name, alreadyStarted: true } });
    expect(stepFunctions.list()).toHaveLength(2);
  });

  it("answers another App's check run and check suite 202 ignored, and starts nothing", async () => {
    const run = await deliver(SUITE_APP, 'check_run', checkRun('rerequested'), 'f6c5b1d0-0006-11f0-8000-000000000006');
    expect(run).toEqual({ status: 202, json: { ignored: expect.stringMatching(/belongs to GitHub App 2, not to this deployment's App 29310/) } });
    const suite = await deliver(RUN_APP, 'check_suite', checkSuite('rerequested'), 'a7d6c2e0-0007-11f0-8000-000000000007');
    expect(suite).toEqual({ status: 202, json: { ignored: expect.stringMatching(/belongs to GitHub App 29310/) } });
    const created = await deliver(RUN_APP, 'check_run', checkRun('created'), 'b8e7d3f0-0008-11f0-8000-000000000008');
    expect(created).toEqual({ status: 202, json: { ignored: expect.stringMatching(/check_run "created" does not start a build/) } });
    expect(stepFunctions.list()).toHaveLength(0);
    // Nothing was read from GitHub for them either.
    expect(github.requests).toHaveLength(0);
  });
});
