/**
 * GitHub's deliveries through the webhook handler, each subject below with a loopback GitHub
 * stand-in of its own and its own mocks (started and reset in its hooks, as before): they used to
 * be a file each, which loaded the same modules again.
 */
import './fixtures/handler-logs-shown.js';
import { signedGitHubDelivery } from './fixtures/webhooks/signed-delivery.js';
import { generateKeyPairSync } from 'node:crypto';
import { jest } from '@jest/globals';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { BuildInput } from '../lib/contract/index.js';
import { gitHubChangeSource, type ChangeSourceOptions } from '../lib/forge/change-source.js';
import type { ExecutionStarter } from '../lib/forge/execution-starter.js';
import { gitHubApp, type GitHubCredentials } from '../lib/forge/github-app.js';
import { gitHubPipelineSource } from '../lib/forge/pipeline-source.js';
import { createWebhookHandler, staticSecrets } from '../lib/forge/webhook-handler.js';
import type { WebhookDeps } from '../lib/forge/webhook.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { logger } from '../lib/workflow/lambda-task.js';
import { branchPush, branchUpdate, pullRequest, checkRun, checkSuite } from './fixtures/webhooks/examples.js';
import { startFakeGitHub, type FakeFile, type FakeGitHub } from './fixtures/webhooks/github-server.js';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import { clearCache } from '@middy/util';
import { mockClient } from 'aws-sdk-client-mock';
import { createLambdaWebhookHandler } from '../lib/lambda/webhook.js';
import { FakeStepFunctions } from './fixtures/step-functions.js';

/**
 * [skip ci] and BuildInput.changes through the real middy webhook handler, on GitHub's recorded
 * deliveries (@octokit/webhooks-examples), with the GitHub API served by a loopback stand-in:
 * what is skipped starts nothing, the changed files come from the payload or from the compare and
 * pull request files APIs, and a failing or silent API leaves them unknown while the build starts.
 */
describe('skip ci and changes', () => {
  const SECRET = 'changes-webhook-secret';
  const TOKEN = 'ghp_changesTokenThatMustNeverLeak01';
  const REPO = 'Codertocat/Hello-World';
  const PUSH_SHA = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
  const BEFORE_SHA = 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e';
  const PR_SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
  const PIPELINE = 'version: 1\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: [echo hi]\n';

  let github: FakeGitHub;
  let logged = '';
  const started: { name: string; input: BuildInput }[] = [];
  const starter: ExecutionStarter = {
    start: async (name, input) => {
      started.push({ name, input: input as BuildInput });
      return { executionArn: `arn:local:${name}`, executionName: name, consoleUrl: 'http://localhost', alreadyStarted: false };
    },
  };

  beforeAll(async () => {
    github = await startFakeGitHub();
    for (const stream of [process.stdout, process.stderr]) {
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        logged += chunk.toString();
        return true;
      });
    }
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await github.close();
  });
  beforeEach(() => {
    started.length = 0;
    logged = '';
    github.requests.length = 0;
    github.failPaths = [];
    github.hangPaths = [];
    for (const map of [github.files, github.commits, github.comparisons, github.pullRequestFiles, github.installations]) map.clear();
    github.files.set(`${REPO}@${PUSH_SHA}`, { text: PIPELINE, form: 'raw' });
    github.files.set(`${REPO}@${PR_SHA}`, { text: PIPELINE, form: 'raw' });
    github.commits.set(`${REPO}@${PR_SHA}`, 'Update the README');
  });
  afterEach(() => {
    expect(logged).not.toContain(TOKEN);
  });

  /** The webhook as Lambda composes it, with the deployment's token, or another way of asking GitHub. */
  function handlerWith(options: { changes?: boolean; credentials?: GitHubCredentials; source?: ChangeSourceOptions } = {}) {
    const credentials = options.credentials ?? { token: TOKEN };
    const deps: WebhookDeps = {
      starter,
      pipelines: () => gitHubPipelineSource(credentials, { baseUrl: github.url }),
      log: logger,
      ...(options.changes === false ? {} : { changes: () => gitHubChangeSource(credentials, { baseUrl: github.url, ...options.source }) }),
    };
    return createWebhookHandler({ logger, secrets: staticSecrets({ githubWebhookSecret: SECRET }), deps });
  }

  async function deliver(handler: ReturnType<typeof handlerWith>, event: string, payload: unknown) {
    const request = await signedGitHubDelivery({ payload, secret: SECRET, event });
    const answer = (await handler(request, localLambdaContext('webhook'))) as APIGatewayProxyStructuredResultV2;
    return { status: answer.statusCode, json: JSON.parse(answer.body ?? 'null') as Record<string, unknown> };
  }

  const apiCalls = () => github.requests.map((r) => `${r.method} ${r.path}${r.query.size ? `?${r.query.toString()}` : ''}`);
  const pipelineRead = (sha: string) => `GET /repos/${REPO}/contents/.step-runner.yml?ref=${sha}`;
  const files = (names: string[]): FakeFile[] => names.map((filename) => ({ filename }));

  describe('[skip ci]', () => {
    it('starts nothing for a push whose head commit says [skip ci], and reads nothing from GitHub', async () => {
      const push = branchUpdate();
      push.head_commit = { ...push.head_commit, message: 'Fix a typo in the docs [skip ci]' };
      const answer = await deliver(handlerWith(), 'push', push);
      expect(answer).toEqual({ status: 202, json: { skipped: 'the head commit 6113728 asks for no build ("[skip ci]" in its message)' } });
      expect(started).toEqual([]);
      expect(github.requests).toEqual([]);
      expect(logged).toContain('GitHub delivery skipped');
    });

    it("starts nothing for a pull request whose head commit, read through the API, says [no ci]", async () => {
      github.commits.set(`${REPO}@${PR_SHA}`, 'Tidy the changelog\n\n[no ci]');
      const answer = await deliver(handlerWith(), 'pull_request', pullRequest('synchronize'));
      expect(answer).toEqual({ status: 202, json: { skipped: 'the head commit ec26c3e asks for no build ("[no ci]" in its message)' } });
      expect(started).toEqual([]);
      // The message was read with the deployment's token, and nothing else was asked.
      expect(apiCalls()).toEqual([`GET /repos/${REPO}/git/commits/${PR_SHA}`]);
      expect(github.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    });

    it('skips on a skip-checks trailer too', async () => {
      github.commits.set(`${REPO}@${PR_SHA}`, 'Tidy the changelog\n\nSigned-off-by: Codertocat <c@example.com>\nskip-checks: true');
      expect((await deliver(handlerWith(), 'pull_request', pullRequest('opened'))).json).toEqual({ skipped: expect.stringContaining('"skip-checks: true"') });
      expect(started).toEqual([]);
    });

    it('builds a pull request whose head commit message cannot be read, and says so in the log', async () => {
      github.failPaths = [{ path: /\/git\/commits\//, status: 500 }];
      github.pullRequestFiles.set(`${REPO}#2`, files(['README.md']));
      expect((await deliver(handlerWith(), 'pull_request', pullRequest('synchronize'))).status).toBe(202);
      expect(started).toHaveLength(1);
      expect(logged).toMatch(/The head commit message could not be read.*GitHub API answered 500/);
    });

    it('does not look at the head commit of a pull request without a GitHub API client', async () => {
      github.commits.set(`${REPO}@${PR_SHA}`, '[skip ci]');
      await deliver(handlerWith({ changes: false }), 'pull_request', pullRequest('synchronize'));
      expect(started).toHaveLength(1);
      expect(apiCalls()).toEqual([pipelineRead(PR_SHA)]);
    });
  });

  describe('BuildInput.changes', () => {
    it("holds a push's commits' added, modified and removed files, without asking GitHub", async () => {
      expect((await deliver(handlerWith(), 'push', branchUpdate())).status).toBe(202);
      expect(started[0]!.input.changes).toEqual({ known: true, files: ['README.md', 'docs/guide.md', 'src/app.ts', 'src/old.ts'] });
      expect(apiCalls()).toEqual([pipelineRead(PUSH_SHA)]);
    });

    it('is unknown for a new branch (GitHub\'s recorded push creates one)', async () => {
      await deliver(handlerWith(), 'push', branchPush());
      expect(started[0]!.input.changes).toEqual({ known: false, why: 'the push created the branch: there is no earlier commit of it to compare with' });
      expect(apiCalls()).toEqual([pipelineRead(PUSH_SHA)]);
    });

    it('asks the compare API when the payload lists no commits, renames counting both names', async () => {
      github.comparisons.set(`${REPO} ${BEFORE_SHA}...${PUSH_SHA}`, [{ filename: 'src/new.ts', previous_filename: 'src/old.ts', status: 'renamed' }, { filename: 'package.json' }]);
      await deliver(handlerWith(), 'push', { ...branchUpdate(), commits: [] });
      expect(started[0]!.input.changes).toEqual({ known: true, files: ['package.json', 'src/new.ts', 'src/old.ts'] });
      expect(apiCalls()).toContain(`GET /repos/${REPO}/compare/${BEFORE_SHA}...${PUSH_SHA}?per_page=1`);
    });

    it('is unknown when the comparison lists 300 files, the most the API lists', async () => {
      github.comparisons.set(`${REPO} ${BEFORE_SHA}...${PUSH_SHA}`, files(Array.from({ length: 450 }, (_, i) => `f${i}`)));
      await deliver(handlerWith(), 'push', { ...branchUpdate(), commits: [] });
      expect(started[0]!.input.changes).toEqual({ known: false, why: expect.stringMatching(/compare API lists at most 300 files/) });
    });

    it('is unknown, and the build still starts, when the compare API fails', async () => {
      github.failPaths = [{ path: /\/compare\//, status: 502 }];
      const answer = await deliver(handlerWith(), 'push', { ...branchUpdate(), commits: [] });
      expect(answer.status).toBe(202);
      expect(answer.json).toHaveProperty('executionName');
      expect(started[0]!.input.changes).toEqual({
        known: false,
        why: expect.stringMatching(/^the push payload lists no commits \(the compare API would list the files\), and GitHub did not say: GET compare f95f852\.\.\.6113728 of Codertocat\/Hello-World: GitHub API answered 502/),
      });
    });

    it('is unknown, and the build still starts, when the compare API does not answer within the budget', async () => {
      github.hangPaths = [/\/compare\//];
      await deliver(handlerWith({ source: { budgetMs: 300 } }), 'push', { ...branchUpdate(), commits: [] });
      expect(started).toHaveLength(1);
      expect(started[0]!.input.changes).toEqual({ known: false, why: expect.stringMatching(/GitHub did not say: .*no answer within \d+ ms/) });
    });

    it('is unknown when the payload cannot say and there is no GitHub API client to ask', async () => {
      await deliver(handlerWith({ changes: false }), 'push', { ...branchUpdate(), commits: [] });
      expect(started[0]!.input.changes).toEqual({ known: false, why: 'the push payload lists no commits (the compare API would list the files), and no GitHub API client is configured to ask' });
    });

    it("holds a synchronized pull request's files, every page of them, renames counting both names", async () => {
      const listed = [...files(Array.from({ length: 249 }, (_, i) => `src/f${String(i).padStart(3, '0')}.ts`)), { filename: 'lib/b.ts', previous_filename: 'lib/a.ts', status: 'renamed' as const }];
      github.pullRequestFiles.set(`${REPO}#2`, listed);
      const payload = pullRequest('synchronize') as { pull_request: { changed_files: number } };
      payload.pull_request.changed_files = listed.length;
      await deliver(handlerWith(), 'pull_request', payload);
      const changes = started[0]!.input.changes;
      if (!changes?.known) throw new Error(`the files were not known: ${JSON.stringify(changes)}`);
      expect(changes.files).toHaveLength(251);
      expect(changes.files.slice(0, 2)).toEqual(['lib/a.ts', 'lib/b.ts']);
      expect(apiCalls().filter((c) => c.includes('/files'))).toEqual([1, 2, 3].map((page) => `GET /repos/${REPO}/pulls/2/files?per_page=100&page=${page}`));
    });

    it('is unknown for a pull request that touches more files than an input holds, without listing them', async () => {
      const payload = pullRequest('synchronize') as { pull_request: { changed_files: number } };
      payload.pull_request.changed_files = 1500;
      await deliver(handlerWith(), 'pull_request', payload);
      expect(started[0]!.input.changes).toEqual({ known: false, why: "the pull request touches 1500 files, more than the 1000 a build's input holds" });
      expect(apiCalls().filter((c) => c.includes('/files'))).toEqual([]);
    });

    it('is unknown when the pull request files API fails, and the build still starts', async () => {
      github.failPaths = [{ path: /\/pulls\/2\/files$/, status: 403 }];
      expect((await deliver(handlerWith(), 'pull_request', pullRequest('opened'))).status).toBe(202);
      expect(started[0]!.input.changes).toEqual({ known: false, why: expect.stringMatching(/^pull request #2's files are listed by GitHub's API only, and GitHub did not say: .*answered 403/) });
    });

    it('is unknown for a pull request without a GitHub API client', async () => {
      await deliver(handlerWith({ changes: false }), 'pull_request', pullRequest('reopened'));
      expect(started[0]!.input.changes).toEqual({ known: false, why: "pull request #2's files are listed by GitHub's API only, and no GitHub API client is configured to ask" });
    });

    it("asks with an installation token of the App the delivery came through: contents for the commit, pull requests for the files", async () => {
      const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
      github.installations.set(1, { token: 'ghs_installationTokenForChanges01' });
      github.pullRequestFiles.set(`${REPO}#2`, files(['README.md']));
      const app = gitHubApp({ appId: '123456', privateKey: async () => key, baseUrl: github.url, reuseSeconds: 300 });
      await deliver(handlerWith({ credentials: { app } }), 'pull_request', pullRequest('synchronize'));
      expect(started[0]!.input.changes).toEqual({ known: true, files: ['README.md'] });
      const asked = github.requests.filter((r) => r.path.endsWith('/access_tokens')).map((r) => (JSON.parse(r.body) as { permissions: unknown }).permissions);
      expect(asked).toEqual([{ contents: 'read' }, { pull_requests: 'read' }]);
      const files_ = github.requests.find((r) => r.path.endsWith('/files'));
      expect(files_!.headers.authorization).toBe('Bearer ghs_installationTokenForChanges01');
    });
  });
});

/**
 * "Re-run" and "Re-run all checks" on GitHub, through functions/webhook as lib/lambda builds it for
 * a deployment with a GitHub App: GitHub's own check_run and check_suite "rerequested" examples
 * (@octokit/webhooks-examples) signed here, the pipeline read from the GitHub stand-in over
 * loopback HTTP with an installation token, and StartExecution answered as Step Functions answers
 * it (test/fixtures/step-functions.ts). A re-run starts a new build of the same commit, named as a
 * re-run of the earlier one; its redelivery starts nothing; another App's check run starts nothing.
 */
describe('re-runs', () => {
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
});
