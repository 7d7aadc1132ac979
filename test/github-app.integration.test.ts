/**
 * A deployment that authenticates to GitHub as a GitHub App: the PrepareBuild, ReportStatus and
 * webhook functions as lib/lambda builds them, with the App's key (and the fallback token) read
 * from Secrets Manager through the AWS SDK (aws-sdk-client-mock), GitHub over loopback HTTP, and
 * PrepareBuild's Secret created in the embedded cluster. The installation token reaches the
 * build's Secret and the GitHub calls, and nothing else: no output, no answer, no log line.
 */
import './fixtures/handler-logs-shown.js';
import { signedGitHubDelivery } from './fixtures/webhooks/signed-delivery.js';
import { jest } from '@jest/globals';
import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { clearCache } from '@middy/util';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { BuildInput, PendingBuildInput, StatusRequest } from '../lib/contract/index.js';
import { createCleanupEndedExecutionHandler } from '../lib/lambda/cleanup-ended-execution.js';
import { createLaunchStepHandler } from '../lib/lambda/launch-step.js';
import { createPrepareBuildHandler } from '../lib/lambda/prepare-build.js';
import { createReportStatusHandler } from '../lib/lambda/report-status.js';
import { createLambdaWebhookHandler, WEBHOOK_LOOKUP_BUDGET_MS } from '../lib/lambda/webhook.js';
import { stepPodManifest } from '../lib/kube/index.js';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { logger } from '../lib/workflow/lambda-task.js';
import type { PreparedBuild, StepInput } from '../lib/workflow/state-data.js';
import type { TaskRuntime } from '../lib/workflow/task-deps.js';
import { cleanupBuild } from '../lib/workflow/tasks/cleanup-build.js';
import { branchPush } from './fixtures/webhooks/examples.js';
import { startFakeGitHub, type FakeGitHub } from './fixtures/webhooks/github-server.js';
import { parseImageReference } from '../lib/pipeline/index.js';

const APP_ID = '123456';
const INSTALLATION = 678;
const INSTALLATION_TOKEN = 'ghs_installationTokenNeverLogged0001';
const DEPLOYMENT_TOKEN = 'ghp_deploymentTokenNeverLogged00001';
const RENEWED_TOKEN = 'ghs_renewedInstallationTokenNever02';
const WEBHOOK_SECRET = 'gh-webhook-secret-app-5e1f';
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_KEY = keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
/** A line of the key's body: any piece of it in a log would be a leak. */
const KEY_LINE = PRIVATE_KEY.split('\n')[5]!;

const SHA = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
const CLONE_PIPELINE = 'version: 1\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: [ls]\n';

const secretsManager = mockClient(SecretsManagerClient);
const sfn = mockClient(SFNClient);
let github: FakeGitHub;
let cluster: EmbeddedCluster;
let api: CoreV1Api;
let runtime: TaskRuntime;
let root: string;
/** Everything the functions wrote (Powertools writes its JSON lines to stdout and stderr). */
let logged = '';
/** Every output, answer and error message the functions gave. */
const given: string[] = [];

beforeAll(async () => {
  github = await startFakeGitHub();
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
  root = await mkdtemp(path.join(tmpdir(), 'github-app-'));
  const kubeconfig = path.join(root, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
  runtime = localTaskRuntime({ kubeconfig, namespace: 'default', logsDir: path.join(root, 'logs') });
  for (const stream of [process.stdout, process.stderr]) {
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged += chunk.toString();
      return true;
    });
  }
  logger.setLogLevel('DEBUG');
});

afterAll(async () => {
  jest.restoreAllMocks();
  logger.setLogLevel('SILENT');
  clearCache();
  await cluster.stop();
  await github.close();
  await rm(root, { recursive: true, force: true });
});

beforeEach(() => {
  clearCache();
  github.requests.length = 0;
  github.checkRuns.clear();
  github.installations.clear();
  github.installations.set(INSTALLATION, { token: INSTALLATION_TOKEN });
  github.files.clear();
  secretsManager.reset();
  const values: Record<string, string> = { 'ci/github-app-key': PRIVATE_KEY, 'ci/github-token': DEPLOYMENT_TOKEN, 'ci/github-webhook': WEBHOOK_SECRET };
  secretsManager.on(GetSecretValueCommand).callsFake(async (input: { SecretId: string }) => {
    if (!(input.SecretId in values)) throw new ResourceNotFoundException({ message: "Secrets Manager can't find the specified secret.", $metadata: {} });
    return { SecretString: values[input.SecretId], Name: input.SecretId };
  });
  sfn.reset();
});

afterEach(() => {
  const seen = `${logged}\n${given.join('\n')}`;
  for (const secret of [INSTALLATION_TOKEN, RENEWED_TOKEN, DEPLOYMENT_TOKEN, WEBHOOK_SECRET, KEY_LINE, 'PRIVATE KEY']) expect(seen).not.toContain(secret);
  // No JWT either: the App's, or any other.
  expect(seen).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}/);
});

const APP_ENV = {
  GITHUB_APP_ID: APP_ID,
  GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'ci/github-app-key',
  GITHUB_TOKEN_SECRET_ID: 'ci/github-token',
};

function buildInput(id: string, options: { installationId?: number; pipeline?: string } = {}): BuildInput {
  return {
    build: {
      id,
      trigger: 'github push',
      repository: 'acme/private-app',
      commit: SHA,
      ref: 'refs/heads/main',
      event: 'push',
      ...(options.installationId !== undefined ? { installationId: options.installationId } : {}),
    },
    pipeline: { file: '.step-runner.yml', text: options.pipeline ?? CLONE_PIPELINE },
    source: { url: 'https://github.com/acme/private-app.git', commit: SHA, ref: 'refs/heads/main', credentials: 'github' },
  };
}

async function prepare(env: Record<string, string>, input: BuildInput): Promise<PreparedBuild> {
  const handler = createPrepareBuildHandler({ GITHUB_API_URL: github.url, ...env }, runtime, { sleep: async () => undefined });
  try {
    const prepared = (await handler(input, localLambdaContext('prepareBuild'))) as PreparedBuild;
    given.push(JSON.stringify(prepared));
    return prepared;
  } catch (error) {
    given.push(`${(error as Error).name}: ${(error as Error).message}`);
    throw error;
  }
}

/** The token the clone container would get, read back from the build's Secret. */
async function cloneSecretToken(prepared: PreparedBuild): Promise<string | undefined> {
  const [clone] = prepared.steps;
  const ref = clone?.secrets[0];
  if (!ref) return undefined;
  const secret = await api.readNamespacedSecret({ namespace: 'default', name: ref.secret });
  return Buffer.from(secret.data![ref.key]!, 'base64').toString();
}

async function leftOf(buildId: string) {
  const selector = { namespace: 'default', labelSelector: `step-runner.dev/build=${buildId}` };
  const [secrets, claims] = await Promise.all([api.listNamespacedSecret(selector), api.listNamespacedPersistentVolumeClaim(selector)]);
  return { secrets: secrets.items.length, claims: claims.items.length };
}

function tokenRequests() {
  return github.requests.filter((r) => r.path.endsWith('/access_tokens'));
}

describe('PrepareBuild with a GitHub App', () => {
  it('puts an installation token that can only read this repository into the build\'s Secret, and nowhere else', async () => {
    const prepared = await prepare(APP_ENV, buildInput('app-clone', { installationId: INSTALLATION }));
    expect(prepared.steps.map((s) => s.name)).toEqual(['clone', 'test']);
    expect(prepared.steps[0]!.secrets).toEqual([{ env: 'GIT_TOKEN', secret: expect.stringMatching(/^app-clone-git-credentials-/), key: 'token' }]);
    expect(await cloneSecretToken(prepared)).toBe(INSTALLATION_TOKEN);
    expect(JSON.stringify(prepared)).not.toContain(INSTALLATION_TOKEN);
    // The installation stays on the build, so ReportStatus can ask for its own token.
    expect(prepared.build.installationId).toBe(INSTALLATION);

    const [request, ...more] = tokenRequests();
    expect(more).toEqual([]);
    expect(request).toMatchObject({ method: 'POST', path: `/app/installations/${INSTALLATION}/access_tokens` });
    expect(JSON.parse(request!.body)).toEqual({ repositories: ['private-app'], permissions: { contents: 'read' } });
    const [header, payload, signature] = request!.headers.authorization!.replace(/^Bearer /, '').split('.');
    expect(verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), keys.publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { iss: number; iat: number; exp: number };
    expect(claims.iss).toBe(123456);
    expect(claims.exp - claims.iat).toBe(600);
    expect(logged).toContain('The clone authenticates with an installation token of GitHub App 123456 (installation 678; contents: read on acme/private-app only)');

    await cleanupBuild({ build: prepared.build, namespace: 'default' }, 'default', runtime.deps);
    expect(await leftOf('app-clone')).toEqual({ secrets: 0, claims: 0 });
  });

  it("falls back to the deployment's token for a build that did not come through the App", async () => {
    const prepared = await prepare(APP_ENV, buildInput('app-no-installation'));
    expect(await cloneSecretToken(prepared)).toBe(DEPLOYMENT_TOKEN);
    expect(tokenRequests()).toEqual([]);
    expect(logged).toContain("The clone authenticates with the deployment's GitHub token");
    await cleanupBuild({ build: prepared.build, namespace: 'default' }, 'default', runtime.deps);
  });

  it("keeps using the deployment's token where no App is configured, as deployments before the App did", async () => {
    const prepared = await prepare({ GITHUB_TOKEN_SECRET_ID: 'ci/github-token' }, buildInput('pat-only', { installationId: INSTALLATION }));
    expect(await cloneSecretToken(prepared)).toBe(DEPLOYMENT_TOKEN);
    expect(tokenRequests()).toEqual([]);
    await cleanupBuild({ build: prepared.build, namespace: 'default' }, 'default', runtime.deps);
  });

  it("works in an App-only deployment whose token secret was never created (serverless.yml names one by default)", async () => {
    const appOnly = { ...APP_ENV, GITHUB_TOKEN_SECRET_ID: 'ci/never-created' };
    const prepared = await prepare(appOnly, buildInput('app-only', { installationId: INSTALLATION }));
    expect(await cloneSecretToken(prepared)).toBe(INSTALLATION_TOKEN);
    await cleanupBuild({ build: prepared.build, namespace: 'default' }, 'default', runtime.deps);

    // A build that did not come through the App has nothing to fall back on: no credentials, said so.
    const other = await prepare(appOnly, buildInput('app-only-no-installation'));
    expect(other.steps[0]!.secrets).toEqual([]);
    expect(logged).toContain('the clone goes without credentials');
    await cleanupBuild({ build: other.build, namespace: 'default' }, 'default', runtime.deps);
  });

  it('still fails when the only credential, the token without an App, cannot be read', async () => {
    const error = await prepare({ GITHUB_TOKEN_SECRET_ID: 'ci/never-created' }, buildInput('pat-missing')).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(await leftOf('pat-missing')).toEqual({ secrets: 0, claims: 0 });
  });

  it('clones without credentials when there is neither', async () => {
    const prepared = await prepare({}, buildInput('no-credentials', { installationId: INSTALLATION }));
    expect(prepared.steps[0]!.secrets).toEqual([]);
    expect(await leftOf('no-credentials')).toEqual({ secrets: 0, claims: 1 });
    await cleanupBuild({ build: prepared.build, namespace: 'default' }, 'default', runtime.deps);
  });

  it('asks for no token when the pipeline does not check out', async () => {
    github.installations.delete(INSTALLATION);
    const prepared = await prepare(APP_ENV, buildInput('no-checkout', { installationId: INSTALLATION, pipeline: `version: 1\ncheckout: false\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: [ls]\n` }));
    expect(prepared.steps.map((s) => s.name)).toEqual(['test']);
    expect(tokenRequests()).toEqual([]);
    await cleanupBuild({ build: prepared.build, namespace: 'default' }, 'default', runtime.deps);
  });

  it('fails the build as CredentialsUnavailable, naming the App, the installation and GitHub\'s words, before anything is created', async () => {
    github.installations.delete(INSTALLATION);
    await expect(prepare(APP_ENV, buildInput('app-uninstalled', { installationId: INSTALLATION }))).rejects.toMatchObject({
      name: 'CredentialsUnavailable',
      message:
        'GitHub App 123456 could not get a token of installation 678 for acme/private-app (contents: read): GitHub API answered 404 (Not Found). ' +
        'The App is no longer installed there (or GITHUB_API_URL points at another GitHub).',
    });
    expect(await leftOf('app-uninstalled')).toEqual({ secrets: 0, claims: 0 });
  });

  it("fails the build as CredentialsUnavailable when the App's key is unusable, never quoting it", async () => {
    const values: Record<string, string> = { 'ci/github-app-key': 'MIIEowIBAAKCAQEA-not-a-pem', 'ci/github-token': DEPLOYMENT_TOKEN };
    secretsManager.on(GetSecretValueCommand).callsFake(async (input: { SecretId: string }) => ({ SecretString: values[input.SecretId] }));
    await expect(prepare(APP_ENV, buildInput('app-bad-key', { installationId: INSTALLATION }))).rejects.toMatchObject({
      name: 'CredentialsUnavailable',
      message: expect.stringMatching(/^GitHub App 123456: its private key \(Secrets Manager secret ci\/github-app-key\) is not a private key in PEM form/),
    });
    expect(given.at(-1)).not.toContain('MIIEowIBAAKCAQEA');
    expect(tokenRequests()).toEqual([]);
  });

  it('fails the build as CredentialsUnavailable when the key cannot be read, with Secrets Manager\'s words', async () => {
    await expect(
      prepare({ ...APP_ENV, GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'ci/no-such-key' }, buildInput('app-no-key', { installationId: INSTALLATION })),
    ).rejects.toMatchObject({
      name: 'CredentialsUnavailable',
      message:
        "GitHub App 123456: its private key (Secrets Manager secret ci/no-such-key) could not be read: ResourceNotFoundException: Secrets Manager can't find the specified secret.",
    });
    expect(tokenRequests()).toEqual([]);
  });
});

describe('LaunchStep with an ephemeral workspace, where every step pod clones', () => {
  const MINUTE = 60_000;
  /** The ephemeral runtime, its clock `aheadMs` past the real one (the fake GitHub's tokens last an hour from real time). */
  const ephemeral = (aheadMs = 0): TaskRuntime => {
    const base = localTaskRuntime({ kubeconfig: path.join(root, 'kubeconfig'), namespace: 'default', logsDir: path.join(root, 'logs'), settings: { workspaceMode: 'ephemeral' } });
    return { ...base, deps: { ...base.deps, now: () => new Date(Date.now() + aheadMs) } };
  };
  const launch = async (env: Record<string, string>, prepared: PreparedBuild, aheadMs: number) => {
    const input: StepInput = { build: prepared.build, namespace: 'default', settings: prepared.settings, step: prepared.steps[0]!, index: 0 };
    const handler = createLaunchStepHandler({ GITHUB_API_URL: github.url, ...env }, ephemeral(aheadMs), { sleep: async () => undefined });
    given.push(JSON.stringify(await handler(input, localLambdaContext('launchStep'))));
  };
  const secretOf = async (prepared: PreparedBuild) => {
    const ref = prepared.settings.checkout!.secrets[0]!;
    const secret = await api.readNamespacedSecret({ namespace: 'default', name: ref.secret });
    return { token: Buffer.from(secret.data![ref.key]!, 'base64').toString(), expiresAt: secret.metadata?.annotations?.['step-runner.dev/token-expires-at'] };
  };
  const prepareEphemeral = async (env: Record<string, string>, id: string, installationId?: number) => {
    const handler = createPrepareBuildHandler({ GITHUB_API_URL: github.url, ...env }, ephemeral(), { sleep: async () => undefined });
    const prepared = (await handler(buildInput(id, installationId !== undefined ? { installationId } : {}), localLambdaContext('prepareBuild'))) as PreparedBuild;
    given.push(JSON.stringify(prepared));
    return prepared;
  };

  it("renews the App's token in the build's Secret when a step starts near the end of its hour, and only then", async () => {
    const prepared = await prepareEphemeral(APP_ENV, 'eph-renew', INSTALLATION);
    const first = await secretOf(prepared);
    expect(first.token).toBe(INSTALLATION_TOKEN);
    expect(Date.parse(first.expiresAt!)).toBeGreaterThan(Date.now() + 55 * MINUTE);

    await launch(APP_ENV, prepared, 10 * MINUTE);
    expect(await secretOf(prepared)).toEqual(first);
    expect(tokenRequests()).toHaveLength(1);

    github.installations.set(INSTALLATION, { token: RENEWED_TOKEN });
    await launch(APP_ENV, prepared, 45 * MINUTE);
    expect((await secretOf(prepared)).token).toBe(RENEWED_TOKEN);
    expect(tokenRequests().map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { repositories: ['private-app'], permissions: { contents: 'read' } },
      { repositories: ['private-app'], permissions: { contents: 'read' } },
    ]);
    expect(logged).toContain("Renewed the clone's token in secret eph-renew-git-credentials-");
    await cleanupBuild({ build: prepared.build, namespace: 'default' }, 'default', runtime.deps);
  });

  it("leaves the deployment's token, which does not expire, as it is", async () => {
    const prepared = await prepareEphemeral({ GITHUB_TOKEN_SECRET_ID: 'ci/github-token' }, 'eph-pat');
    expect(await secretOf(prepared)).toEqual({ token: DEPLOYMENT_TOKEN, expiresAt: undefined });
    await launch({ GITHUB_TOKEN_SECRET_ID: 'ci/github-token' }, prepared, 5 * 60 * MINUTE);
    expect((await secretOf(prepared)).token).toBe(DEPLOYMENT_TOKEN);
    await cleanupBuild({ build: prepared.build, namespace: 'default' }, 'default', runtime.deps);
  });
});

describe('ReportStatus with a GitHub App', () => {
  const build = { id: 'gh-app-status', trigger: 'github push', repository: 'Codertocat/Hello-World', commit: SHA, ref: 'refs/heads/master' };
  const report = async (env: Record<string, string>, requests: StatusRequest[]) => {
    const handler = createReportStatusHandler({ GITHUB_API_URL: github.url, ...env }, { sleep: async () => undefined });
    const results = [];
    for (const request of requests) results.push(await handler(request, localLambdaContext('reportStatus')));
    given.push(JSON.stringify(results));
    return results;
  };
  const statusRequests = () => github.requests.filter((r) => r.path.includes('/statuses/'));
  const checkRunRequests = () => github.requests.filter((r) => r.path.includes('/check-runs'));

  it('reports a build that came through the App as a check run, with an installation token allowed checks: write, and needs no other token', async () => {
    const { GITHUB_TOKEN_SECRET_ID: _, ...appOnly } = APP_ENV;
    const withInstallation = { ...build, installationId: INSTALLATION };
    const results = await report(appOnly, [
      { build: withInstallation, outcome: 'started' },
      { build: withInstallation, outcome: 'succeeded' },
    ]);
    expect(results).toEqual([
      { posted: true, state: 'in_progress', description: 'Build running' },
      { posted: true, state: 'success', description: 'Build succeeded' },
    ]);
    // One token serves both reports of a warm function; no commit status beside the check run.
    expect(tokenRequests().map((r) => JSON.parse(r.body) as unknown)).toEqual([{ repositories: ['Hello-World'], permissions: { checks: 'write' } }]);
    expect(new Set(checkRunRequests().map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${INSTALLATION_TOKEN}`]));
    expect(statusRequests()).toEqual([]);
    expect([...github.checkRuns.values()]).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'success', head_sha: SHA })]);
    expect(secretsManager.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input.SecretId)).toEqual(['ci/github-app-key']);
  });

  it("uses the deployment's token for a build without an installation, and says so when there is none", async () => {
    await report(APP_ENV, [{ build, outcome: 'started' }]);
    expect(statusRequests().map((r) => r.headers.authorization)).toEqual([`Bearer ${DEPLOYMENT_TOKEN}`]);

    const { GITHUB_TOKEN_SECRET_ID: _, ...appOnly } = APP_ENV;
    expect(await report(appOnly, [{ build, outcome: 'started' }])).toEqual([
      {
        posted: false,
        reason: 'no GitHub credentials for Codertocat/Hello-World: the build did not come through a GitHub App installation, and the deployment has no GitHub token',
        state: 'pending',
        description: 'Build running',
      },
    ]);
  });

  it('reports through the App in a deployment whose token secret was never created', async () => {
    const results = await report({ ...APP_ENV, GITHUB_TOKEN_SECRET_ID: 'ci/never-created' }, [{ build: { ...build, installationId: INSTALLATION }, outcome: 'started' }]);
    expect(results).toEqual([{ posted: true, state: 'in_progress', description: 'Build running' }]);
    expect(new Set(checkRunRequests().map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${INSTALLATION_TOKEN}`]));
  });

  it('does not fail the build when the App cannot get a token: the status is not posted, and the reason names the App', async () => {
    github.installations.set(INSTALLATION, { status: 403, message: 'This installation has been suspended' });
    const [result] = await report(APP_ENV, [{ build: { ...build, installationId: INSTALLATION }, outcome: 'failed', failure: { Error: 'StepFailed' } }]);
    expect(result).toEqual({
      posted: false,
      reason: expect.stringMatching(/^GitHub App 123456 could not get a token of installation 678 for Codertocat\/Hello-World \(checks: write\): GitHub API answered 403 \(This installation has been suspended\)/),
    });
    expect(statusRequests()).toEqual([]);
    expect(checkRunRequests()).toEqual([]);
  });
});

describe('the cleanup of an execution that ended outside the definition', () => {
  const build = { id: 'ended-app-build', trigger: 'github push', repository: 'Codertocat/Hello-World', commit: SHA, ref: 'refs/heads/master', installationId: INSTALLATION };
  const ended = async (status: string, extra: Record<string, string> = {}) => {
    const handler = createCleanupEndedExecutionHandler({ GITHUB_API_URL: github.url, ...APP_ENV }, runtime, { sleep: async () => undefined });
    const event = {
      'detail-type': 'Step Functions Execution Status Change',
      detail: { executionArn: 'arn:aws:states:eu-west-1:123456789012:execution:m:ended-app-build', name: 'ended-app-build', status, input: JSON.stringify({ build }), ...extra },
    };
    const result = await handler(event, localLambdaContext('cleanupEndedExecution'));
    given.push(JSON.stringify(result));
    return result as { build: string | null; deletedPods: number; status?: { posted: boolean; state?: string } };
  };
  const posted = () => github.requests.filter((r) => r.path.includes('/statuses/')).map((r) => JSON.parse(r.body) as { state: string; description: string });

  it('completes the check run of an aborted build as cancelled, through the App, and deletes its pods', async () => {
    await api.createNamespacedPod({
      namespace: 'default',
      body: stepPodManifest({ buildId: build.id, namespace: 'default', step: { name: 'test', image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'), commands: ['sleep 30'], env: {}, secrets: [], pull: 'if-not-present', timeoutSeconds: 60 } }),
    });
    const result = await ended('ABORTED');
    expect(result).toMatchObject({ build: build.id, deletedPods: 1, status: { posted: true, state: 'cancelled' } });
    expect(posted()).toEqual([]);
    expect([...github.checkRuns.values()]).toEqual([
      expect.objectContaining({ status: 'completed', conclusion: 'cancelled', output: expect.objectContaining({ text: expect.stringContaining('The execution was stopped before the build ended') }) }),
    ]);
  });

  it('reports a failure no Catch could take (States.DataLimitExceeded) with its Error and Cause', async () => {
    await ended('FAILED', { error: 'States.DataLimitExceeded', cause: 'The state/task returned a result with a size exceeding the maximum number of bytes service limit.' });
    expect([...github.checkRuns.values()]).toEqual([
      expect.objectContaining({ conclusion: 'failure', output: expect.objectContaining({ title: expect.stringContaining('States.DataLimitExceeded'), text: expect.stringContaining('The state/task returned a result') }) }),
    ]);
  });

  it('leaves alone a failure the definition reported itself', async () => {
    const result = await ended('FAILED', { error: 'StepFailed', cause: 'Step "test" failed with exit code 1' });
    expect(result).toEqual({ build: null, deletedPods: 0, deletedClaims: 0, deletedSecrets: 0 });
    expect(posted()).toEqual([]);
  });
});

describe('the webhook with a GitHub App', () => {
  const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:serverless-step-runner-dev-build';
  // Far past any loopback answer unless a test asks for the deployed budget: a loaded test
  // machine must not turn GitHub's prompt replies into lookups left to the build.
  const handler = (env: Record<string, string>, budgetMs = 60_000) =>
    createLambdaWebhookHandler(
      { STATE_MACHINE_ARN, GITHUB_WEBHOOK_SECRET_ID: 'ci/github-webhook', GITHUB_API_URL: github.url, ...APP_ENV, ...env },
      new SFNClient({ region: 'eu-west-1' }),
      {},
      budgetMs,
    );
  const deliver = async (payload: unknown, env: Record<string, string> = {}, budgetMs?: number) => {
    const event = await signedGitHubDelivery({ payload, secret: WEBHOOK_SECRET, delivery: '0b989ba4-242f-11e5-81e1-c7b6966d2516' });
    const answer = (await handler(env, budgetMs)(event, localLambdaContext('webhook'))) as APIGatewayProxyStructuredResultV2;
    given.push(answer.body ?? '');
    return { status: answer.statusCode, json: JSON.parse(answer.body ?? 'null') as Record<string, unknown> };
  };
  const push = () => ({ ...branchPush(), installation: { id: INSTALLATION } });

  beforeEach(() => {
    github.files.set(`Codertocat/Hello-World@${SHA}`, { text: CLONE_PIPELINE, form: 'raw' });
    sfn.on(StartExecutionCommand).callsFake(async (input: { stateMachineArn: string; name: string }) => ({
      executionArn: `${input.stateMachineArn.replace(':stateMachine:', ':execution:')}:${input.name}`,
      startDate: new Date('2026-03-01T10:00:00Z'),
    }));
  });

  it('reads the pipeline with an installation token that can read this repository, and starts the build with the installation', async () => {
    expect((await deliver(push())).status).toBe(202);
    expect(tokenRequests().map((r) => JSON.parse(r.body) as unknown)).toEqual([{ repositories: ['Hello-World'], permissions: { contents: 'read' } }]);
    const read = github.requests.find((r) => r.path.endsWith('/contents/.step-runner.yml'));
    expect(read!.headers.authorization).toBe(`Bearer ${INSTALLATION_TOKEN}`);
    const [start] = sfn.commandCalls(StartExecutionCommand);
    const input = JSON.parse(start!.args[0].input.input!) as BuildInput;
    expect(input.build.installationId).toBe(INSTALLATION);
    expect(input.source).toEqual({ url: 'https://github.com/Codertocat/Hello-World.git', commit: SHA, ref: 'refs/heads/master', credentials: 'github' });
    expect(start!.args[0].input.input).not.toContain(INSTALLATION_TOKEN);
  });

  it('starts builds in a deployment whose token secret was never created', async () => {
    expect((await deliver(push(), { GITHUB_TOKEN_SECRET_ID: 'ci/never-created' })).status).toBe(202);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
  });

  it('answers 202 within its budget when GitHub does not answer, leaving the pipeline file to the build', async () => {
    github.hang = true;
    try {
      const answer = await deliver(push(), {}, WEBHOOK_LOOKUP_BUDGET_MS);
      expect(answer.status).toBe(202);
      expect(answer.json.deferred).toContain(`GitHub did not answer within ${WEBHOOK_LOOKUP_BUDGET_MS} ms`);
      const [start] = sfn.commandCalls(StartExecutionCommand);
      const input = JSON.parse(start!.args[0].input.input!) as PendingBuildInput;
      expect(input.pipeline).toBeUndefined();
      expect(input.lookup).toMatchObject({ pipelineFile: '.step-runner.yml' });
      expect(input.build.installationId).toBe(INSTALLATION);
    } finally {
      github.hang = false;
    }
  });

  it('answers 502 ForgeUnavailable, naming the App, when the installation is gone, and starts nothing', async () => {
    github.installations.delete(INSTALLATION);
    const answer = await deliver(push());
    expect(answer).toEqual({
      status: 502,
      json: {
        error: 'ForgeUnavailable',
        message: expect.stringMatching(/^Could not read \.step-runner\.yml from Codertocat\/Hello-World: GitHub App 123456 could not get a token of installation 678 .*404 \(Not Found\)/),
      },
    });
    expect(sfn.commandCalls(StartExecutionCommand)).toEqual([]);
  });
});

describe('the GitHub App settings', () => {
  it('refuse a malformed App id or a missing key at start, naming the setting, never echoing what may be a key', () => {
    const start = (env: Record<string, string>) => () => createReportStatusHandler({ GITHUB_API_URL: github.url, ...env });
    expect(start({ GITHUB_APP_ID: 'my-app', GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'ci/github-app-key' })).toThrow(
      expect.objectContaining({ name: 'DeploymentSettingsError', message: expect.stringContaining('GITHUB_APP_ID must be the GitHub App\'s id (digits, e.g. 123456) or its client id (Iv...), got "my-app"') }),
    );
    expect(start({ GITHUB_APP_ID: '123456' })).toThrow(expect.objectContaining({ message: expect.stringContaining('GITHUB_APP_PRIVATE_KEY_SECRET_ID is not set') }));
    expect(start({ GITHUB_APP_ID: PRIVATE_KEY, GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'x' })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('PRIVATE KEY') }));
    expect(start({ GITHUB_APP_ID: PRIVATE_KEY, GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'x' })).toThrow(/got a value of \d+ characters/);
    // The key's secret id alone (serverless.yml always sets it) configures no App.
    expect(start({ GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'ci/github-app-key' })).toThrow(/GITHUB_TOKEN_SECRET_ID is not set, nor GITHUB_APP_ID/);
    expect(start({ GITHUB_APP_ID: 'Iv23liAbCdEf', GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'ci/github-app-key' })).not.toThrow();
  });
});
