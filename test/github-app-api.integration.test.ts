/**
 * The runner's GitHub REST calls over real HTTP, each subject below against a loopback GitHub
 * stand-in of its own (test/fixtures/webhooks/github-server.ts, started in its beforeAll as
 * before): they used to be a file each, which loaded the same modules again.
 */
import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { startFakeGitHub, type FakeGitHub } from './fixtures/webhooks/github-server.js';
import { appJwt, CLONE_PERMISSIONS, CredentialsUnavailable, gitHubApp, gitHubTokenFor, STATUS_PERMISSIONS, type GitHubAppOptions, type GitHubApp } from '../lib/forge/github-app.js';
import { gitHubRepositoryFiles } from '../lib/forge/pipeline-source.js';
import type { StatusRequest } from '../lib/contract/index.js';
import { checkRunReporter, gitHubReporter, writeCheckRun } from '../lib/forge/check-run-reporter.js';
import { gitHubApi, GitHubApiError } from '../lib/forge/github-api.js';
import { reportStatus } from '../lib/workflow/tasks/report-status.js';

/**
 * GitHub App authentication over real HTTP (a loopback GitHub): the JWT checked against the public
 * half of a key pair made here, the installation token request as GitHub documents it, and every
 * failure named, with GitHub's words and never the key, the JWT or a token.
 */
describe('GitHub App authentication', () => {
  const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z
  const INSTALLATION = 678;
  const TOKEN = 'ghs_installationTokenNeverShown0001';

  // GitHub hands out PKCS#1 ("BEGIN RSA PRIVATE KEY"); some tools convert to PKCS#8.
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const PKCS1 = pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const PKCS8 = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  let github: FakeGitHub;
  beforeAll(async () => {
    github = await startFakeGitHub();
  });
  afterAll(() => github.close());
  beforeEach(() => {
    github.requests.length = 0;
    github.failWith = undefined;
    github.installations.clear();
    github.installations.set(INSTALLATION, { token: TOKEN });
  });

  function app(options: Partial<GitHubAppOptions> = {}) {
    return gitHubApp({
      appId: '123456',
      privateKey: async () => PKCS1,
      keySource: 'Secrets Manager secret ci/github-app-key',
      baseUrl: github.url,
      now: () => NOW,
      sleep: async () => undefined,
      ...options,
    });
  }

  /** The JWT's parts, once its RS256 signature has been checked with `publicKey`. */
  function verifiedJwt(jwt: string, publicKey: KeyObject = pair.publicKey) {
    const [header, payload, signature] = jwt.split('.');
    expect(verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);
    const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
    return { header: decode(header!), payload: decode(payload!) };
  }

  function caught(promise: Promise<unknown>): Promise<CredentialsUnavailable> {
    return promise.then(
      () => {
        throw new Error('expected a failure');
      },
      (error: unknown) => {
        expect(error).toBeInstanceOf(CredentialsUnavailable);
        return error as CredentialsUnavailable;
      },
    );
  }

  function expectNoSecretIn(text: string, ...secrets: string[]) {
    for (const secret of [TOKEN, ...secrets]) expect(text).not.toContain(secret);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/); // a JWT
  }

  describe('the App JWT', () => {
    it('is RS256, signed with the App key, issued a minute back and expiring within 10 minutes', async () => {
      const { header, payload } = verifiedJwt(await appJwt('123456', PKCS1, NOW));
      expect(header).toEqual({ alg: 'RS256', typ: 'JWT' });
      expect(payload).toEqual({ iss: 123456, iat: NOW - 60, exp: NOW + 540 });
      expect((payload.exp as number) - NOW).toBeLessThanOrEqual(600);
    });

    it('takes a PKCS#8 key too, and a client id as the issuer', async () => {
      const { payload } = verifiedJwt(await appJwt('Iv23liAbCdEf', PKCS8, NOW));
      expect(payload.iss).toBe('Iv23liAbCdEf');
    });

    it('is not signed by any other key', async () => {
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
      const [header, payload, signature] = (await appJwt('1', PKCS1, NOW)).split('.');
      expect(verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), other, Buffer.from(signature!, 'base64url'))).toBe(false);
    });
  });

  describe('an installation token', () => {
    it('is asked of GitHub for one repository and the permissions given, with the App JWT', async () => {
      const token = await app().installationToken(INSTALLATION, 'acme/private-app', CLONE_PERMISSIONS);
      expect(token).toEqual({ token: TOKEN, expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
      expect(github.requests).toHaveLength(1);
      const [request] = github.requests;
      expect(request).toMatchObject({ method: 'POST', path: `/app/installations/${INSTALLATION}/access_tokens` });
      expect(JSON.parse(request!.body)).toEqual({ repositories: ['private-app'], permissions: { contents: 'read' } });
      expect(request!.headers).toMatchObject({ accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
      const jwt = /^Bearer (.+)$/.exec(request!.headers.authorization ?? '')?.[1];
      expect(verifiedJwt(jwt!, createPublicKey(PKCS1)).payload).toEqual({ iss: 123456, iat: NOW - 60, exp: NOW + 540 });
    });

    it('takes a key whose line breaks were escaped on the way into the secret', async () => {
      await expect(app({ privateKey: async () => PKCS1.replace(/\n/g, '\\n') }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS)).resolves.toMatchObject({ token: TOKEN });
    });

    it('is asked anew each time, unless the App reuses tokens with time left', async () => {
      await app().installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS);
      await app().installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS);
      expect(github.requests).toHaveLength(2);

      github.requests.length = 0;
      // The fake's tokens expire an hour after the real clock's now.
      let now = Math.floor(Date.now() / 1000);
      const reusing = app({ reuseSeconds: 300, now: () => now });
      await reusing.installationToken(INSTALLATION, 'acme/app', STATUS_PERMISSIONS);
      await reusing.installationToken(INSTALLATION, 'acme/app', STATUS_PERMISSIONS);
      expect(github.requests).toHaveLength(1);
      // Another repository or other permissions are another token.
      await reusing.installationToken(INSTALLATION, 'acme/other', STATUS_PERMISSIONS);
      await reusing.installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS);
      expect(github.requests).toHaveLength(3);
      // 56 minutes on, less than 5 are left.
      now += 56 * 60;
      await reusing.installationToken(INSTALLATION, 'acme/app', STATUS_PERMISSIONS);
      expect(github.requests).toHaveLength(4);
    });
  });

  describe('a token GitHub will not give', () => {
    it('names the App, the installation, the repository and GitHub\'s words when the installation is gone', async () => {
      github.installations.delete(INSTALLATION);
      const error = await caught(app().installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
      expect(error.name).toBe('CredentialsUnavailable');
      expect(error.message).toBe(
        'GitHub App 123456 could not get a token of installation 678 for acme/app (contents: read): GitHub API answered 404 (Not Found). ' +
          'The App is no longer installed there (or GITHUB_API_URL points at another GitHub).',
      );
      expect(github.requests).toHaveLength(1);
    });

    it.each([
      [401, 'A JSON web token could not be decoded', /answered 401 \(A JSON web token could not be decoded\)\. GitHub did not accept the App's JWT: the App id \(GITHUB_APP_ID\)/],
      [403, 'This installation has been suspended', /answered 403 \(This installation has been suspended\)\. The installation may be suspended/],
      [422, 'The permissions requested are not granted to this installation.', /answered 422 \(The permissions requested are not granted to this installation\.\)\. The installation may not reach acme\/app, or the App lacks contents: read/],
    ])('says what a %i means, never retrying it', async (status, message, expected) => {
      github.installations.set(INSTALLATION, { status, message });
      const error = await caught(app().installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
      expect(error.message).toMatch(expected);
      expectNoSecretIn(error.message);
      expect(github.requests).toHaveLength(1);
    });

    it('retries what a retry may cure, then names the attempts', async () => {
      const waits: number[] = [];
      github.installations.set(INSTALLATION, { status: 502, message: 'Server Error' });
      const error = await caught(app({ sleep: async (ms) => void waits.push(ms) }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
      expect(error.message).toMatch(/answered 502 \(Server Error\) after 3 attempts\. GitHub kept failing/);
      expect(waits).toEqual([500, 1000]);
      expect(github.requests).toHaveLength(3);

      // GitHub recovers while the task waits: the build gets its token.
      github.requests.length = 0;
      const recovering = app({ sleep: async () => void github.installations.set(INSTALLATION, { token: TOKEN }) });
      github.installations.set(INSTALLATION, { status: 503, message: 'Service Unavailable' });
      await expect(recovering.installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS)).resolves.toMatchObject({ token: TOKEN });
      expect(github.requests).toHaveLength(2);
    });

    it('says GitHub was unreachable when nothing answers', async () => {
      const gone = await startFakeGitHub();
      await gone.close();
      const error = await caught(app({ baseUrl: gone.url, attempts: 2 }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
      expect(error.message).toMatch(/^GitHub App 123456 could not get a token of installation 678 for acme\/app \(contents: read\): GitHub API unreachable \(.+\) after 2 attempts\./);
    });
  });

  describe('a private key that cannot sign', () => {
    it('says the secret holds no PEM key, without quoting it or asking GitHub', async () => {
      const notAKey = 'ghp_someonePastedATokenHere0000000000000';
      const error = await caught(app({ privateKey: async () => notAKey }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
      expect(error.message).toBe(
        'GitHub App 123456: its private key (Secrets Manager secret ci/github-app-key) is not a private key in PEM form: ' +
          'store the whole .pem file GitHub gave, its BEGIN and END lines included.',
      );
      expect(error.message).not.toContain(notAKey);
      expect(github.requests).toHaveLength(0);
    });

    it('refuses a key that is not RSA', async () => {
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const error = await caught(app({ privateKey: async () => ec }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
      expect(error.message).toMatch(/its private key \(Secrets Manager secret ci\/github-app-key\) is an EC key: a GitHub App signs with the RSA key/);
      expectNoSecretIn(error.message);
    });

    it('names the failure to read the key, with the store\'s words', async () => {
      const denied = Object.assign(new Error('User is not authorized to perform: secretsmanager:GetSecretValue'), { name: 'AccessDeniedException' });
      const error = await caught(app({ privateKey: () => Promise.reject(denied) }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
      expect(error.message).toBe(
        'GitHub App 123456: its private key (Secrets Manager secret ci/github-app-key) could not be read: AccessDeniedException: User is not authorized to perform: secretsmanager:GetSecretValue',
      );
    });
  });

  describe('which token a call gets', () => {
    const target = { repository: 'acme/app', installationId: INSTALLATION };

    it("is the App's installation token when the build came through the App", async () => {
      const chosen = await gitHubTokenFor({ app: app(), token: 'ghp_deploymentToken' }, target, CLONE_PERMISSIONS);
      // With GitHub's expiry, so a build that clones later can renew it.
      expect(chosen).toEqual({
        token: TOKEN,
        description: 'an installation token of GitHub App 123456 (installation 678; contents: read on acme/app only)',
        expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      });
    });

    it("is the deployment's token for a build without an installation, or a deployment without an App", async () => {
      expect(await gitHubTokenFor({ app: app(), token: 'ghp_deploymentToken' }, { repository: 'acme/app' }, CLONE_PERMISSIONS)).toEqual({
        token: 'ghp_deploymentToken',
        description: "the deployment's GitHub token",
      });
      expect(await gitHubTokenFor({ token: 'ghp_deploymentToken' }, target, CLONE_PERMISSIONS)).toMatchObject({ token: 'ghp_deploymentToken' });
      expect(github.requests).toHaveLength(0);
    });

    it('is none without either', async () => {
      expect(await gitHubTokenFor({}, target, CLONE_PERMISSIONS)).toBeUndefined();
      expect(await gitHubTokenFor({ app: app() }, { repository: 'acme/app' }, CLONE_PERMISSIONS)).toBeUndefined();
    });

    it("never falls back to the deployment's token when the App fails: that would hide a broken App", async () => {
      github.installations.delete(INSTALLATION);
      await caught(gitHubTokenFor({ app: app(), token: 'ghp_deploymentToken' }, target, CLONE_PERMISSIONS));
    });
  });
});

/**
 * A build step's Dockerfile read from the pushed commit through GitHub's contents API (the
 * loopback stand-in), as PrepareBuild does on AWS: the file, a file the commit lacks, and GitHub
 * failing, each an answer and never a thrown error.
 */
describe("a commit's files", () => {
  let github: FakeGitHub;
  beforeAll(async () => {
    github = await startFakeGitHub();
  });
  afterAll(() => github.close());

  const request = { repository: 'org/app', commit: 'a'.repeat(40) };
  const files = () => gitHubRepositoryFiles({ token: 'ghp_deployment' }, request, { baseUrl: github.url, timeoutMs: 5_000 });

  it.each(['raw', 'json'] as const)('reads a file of the commit (%s form) with the token, at the commit', async (form) => {
    github.files.set(`org/app@${request.commit}:app/Dockerfile`, { text: 'FROM alpine:3.20\n', form });
    expect(await files().read('app/Dockerfile')).toEqual({ found: true, text: 'FROM alpine:3.20\n' });
    const asked = github.requests.at(-1)!;
    expect([asked.path, asked.query.get('ref'), asked.headers.authorization]).toEqual(['/repos/org/app/contents/app/Dockerfile', request.commit, 'Bearer ghp_deployment']);
  });

  it('says a file the commit lacks is not found', async () => {
    expect(await files().read('Containerfile')).toEqual({ found: false, reason: 'not found' });
  });

  it("finds a folder's tree id at the commit, through the commit's tree and each folder's entry", async () => {
    const [root, services, api] = ['1', '2', '3'].map((digit) => digit.repeat(40));
    github.trees.set(`org/app@${request.commit}:`, [{ path: '.', type: 'tree', sha: root! }]);
    github.trees.set(`org/app@${root}`, [{ path: 'services', type: 'tree', sha: services! }, { path: 'Dockerfile', type: 'blob', sha: '9'.repeat(40) }]);
    github.trees.set(`org/app@${services}`, [{ path: 'api', type: 'tree', sha: api! }]);
    expect(await files().treeId('.')).toBe(root);
    github.requests.length = 0;
    expect(await files().treeId('services/api')).toBe(api);
    expect(github.requests.map((asked) => asked.path)).toEqual([`/repos/org/app/git/commits/${request.commit}`, `/repos/org/app/git/trees/${root}`, `/repos/org/app/git/trees/${services}`]);
    // A file, or nothing, is no context: no key is made, the step builds.
    expect(await files().treeId('Dockerfile')).toBeUndefined();
    expect(await files().treeId('web')).toBeUndefined();
  });

  it("says GitHub's failure as a file not read", async () => {
    github.failWith = 500;
    try {
      const read = await files().read('app/Dockerfile');
      expect(read.found).toBe(false);
      expect(!read.found && read.reason).toMatch(/500/);
      expect(await files().treeId('.')).toBeUndefined();
    } finally {
      github.failWith = undefined;
    }
  });
});

/**
 * Check runs over real HTTP, against the loopback GitHub stand-in that refuses (422) any body not
 * of the shape GitHub's OpenAPI description documents for checks/create and checks/update. The
 * App's token is a real one of the stand-in (JWT signed with a key made here).
 */
describe('check runs', () => {
  const SHA = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
  const REPOSITORY = 'Codertocat/Hello-World';
  const INSTALLATION = 678;
  const TOKEN = 'ghs_installationTokenNeverShown0001';
  const ARN = 'arn:aws:states:eu-west-1:123456789012:execution:step-runner:gh-hello-world-6113728-d1';
  const AT = '2026-03-01T10:00:00Z';
  const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

  const build = { id: 'gh-hello-world-6113728-d1', trigger: 'github pull_request', repository: REPOSITORY, commit: SHA, ref: 'refs/pull/2/head', installationId: INSTALLATION };
  const STEP_FAILED = { Error: 'StepFailed', Cause: `Step "test" exited with code 1\nLast lines of the log:\nFAIL src/sum.test.ts\nusing token ${TOKEN}` };

  let github: FakeGitHub;
  let app: GitHubApp;
  beforeAll(async () => {
    github = await startFakeGitHub();
    app = gitHubApp({ appId: '123456', privateKey: async () => PEM, baseUrl: github.url, sleep: async () => undefined });
  });
  afterAll(() => github.close());
  beforeEach(() => {
    github.requests.length = 0;
    github.checkRuns.clear();
    github.refusedBodies.length = 0;
    github.failPaths = [];
    github.failWith = undefined;
    github.installations.set(INSTALLATION, { token: TOKEN });
  });
  afterEach(() => {
    // Every body that reached the stand-in is of the documented shape.
    expect(github.refusedBodies).toEqual([]);
  });

  const options = { sleep: async () => undefined, now: () => AT };
  const reporter = () => checkRunReporter({ app }, { baseUrl: github.url }, options);
  const report = (request: Omit<StatusRequest, 'build'>, extra = {}) => reporter().report({ build, executionArn: ARN, ...request }, extra);

  describe('a build reported as a check run', () => {
    it('is created in progress when the execution starts, with the installation token that may write checks only', async () => {
      const result = await report({ outcome: 'started' });
      expect(result).toMatchObject({ posted: true, state: 'in_progress' });
      const [run] = github.checkRuns.values();
      expect(run).toMatchObject({
        name: 'step-runner',
        head_sha: SHA,
        status: 'in_progress',
        started_at: AT,
        external_id: ARN,
        details_url: expect.stringMatching(/^https:\/\/eu-west-1\.console\.aws\.amazon\.com\/states\/.*gh-hello-world-6113728-d1/),
      });
      const token = github.requests.find((r) => r.path === `/app/installations/${INSTALLATION}/access_tokens`);
      expect(JSON.parse(token!.body)).toEqual({ repositories: ['Hello-World'], permissions: { checks: 'write' } });
      const create = github.requests.find((r) => r.method === 'POST' && r.path.endsWith('/check-runs'));
      expect(create!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    });

    it('is completed, found again by its execution, with the conclusion, the failure and the annotation of the failing step', async () => {
      await report({ outcome: 'started' });
      await report(
        { outcome: 'failed', failure: STEP_FAILED },
        { steps: [{ name: 'build', status: 'succeeded', durationSeconds: 3 }, { name: 'test', status: 'failed', error: 'StepFailed', line: 6 }], pipelineFile: '.step-runner.yml' },
      );
      expect(github.checkRuns.size).toBe(1);
      const [run] = github.checkRuns.values();
      expect(run).toMatchObject({ status: 'completed', conclusion: 'failure', completed_at: AT, output: { title: 'StepFailed in step "test"' } });
      expect(run!.output.summary).toContain('| `test` | ❌ failed |  | StepFailed |');
      expect(run!.output.text).toContain('FAIL src/sum.test.ts');
      expect(run!.annotations).toEqual([expect.objectContaining({ path: '.step-runner.yml', start_line: 6, end_line: 6, annotation_level: 'failure' })]);
      // The token the report holds never reaches the output, even when a step printed it.
      expect(JSON.stringify(run)).not.toContain(TOKEN);
    });

    it.each([
      ['succeeded', {}, 'success'],
      ['succeeded', { skipped: 'no changed file matches src/**' }, 'skipped'],
      ['stopped', { failure: { Error: 'ExecutionAborted', Cause: 'The execution was stopped' } }, 'cancelled'],
      ['stopped', { failure: { Error: 'ExecutionTimedOut', Cause: 'The execution ran past its time limit' } }, 'timed_out'],
      ['stopped', { failure: { Error: 'Superseded', Cause: 'Superseded by 1a2b3c4' } }, 'neutral'],
    ] as const)('ends %s %j as %s', async (outcome, rest, conclusion) => {
      await report({ outcome: 'started' });
      await report({ outcome, ...rest });
      expect([...github.checkRuns.values()].map((run) => run.conclusion)).toEqual([conclusion]);
    });

    it('is created once when Step Functions retries the start report', async () => {
      await report({ outcome: 'started' });
      await report({ outcome: 'started' });
      expect(github.checkRuns.size).toBe(1);
    });

    it('is created completed at the end when the start report never reached GitHub', async () => {
      await report({ outcome: 'succeeded' });
      expect([...github.checkRuns.values()]).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'success', external_id: ARN })]);
    });

    it("keeps another execution's run of the same commit (a re-run) apart", async () => {
      await reporter().report({ build, executionArn: `${ARN}-rerun-1`, outcome: 'started' });
      await report({ outcome: 'started' });
      await report({ outcome: 'failed', failure: STEP_FAILED });
      expect([...github.checkRuns.values()].map((run) => [run.external_id, run.status])).toEqual([
        [`${ARN}-rerun-1`, 'in_progress'],
        [ARN, 'completed'],
      ]);
    });

    it('sends more than 50 annotations in several updates, all of them kept', async () => {
      const annotations = Array.from({ length: 120 }, (_, i) => ({ path: '.step-runner.yml', start_line: i + 1, end_line: i + 1, annotation_level: 'failure' as const, message: `problem ${i}` }));
      const output = { title: 'InvalidPipeline', summary: '120 problems' };
      const api = gitHubApi({ baseUrl: github.url, token: TOKEN });
      await writeCheckRun(api, REPOSITORY, { name: 'step-runner', head_sha: SHA, external_id: ARN, status: 'in_progress', started_at: AT }, [
        { conclusion: 'failure', completed_at: AT, output: { ...output, annotations: annotations.slice(0, 50) } },
        { output: { ...output, annotations: annotations.slice(50, 100) } },
        { output: { ...output, annotations: annotations.slice(100) } },
      ]);
      const [run] = github.checkRuns.values();
      expect(run!.annotations).toHaveLength(120);
      expect(run!.bodies.map((body) => (body.output as { annotations: unknown[] }).annotations.length)).toEqual([50, 50, 20]);
    });
  });

  describe('a GitHub that fails', () => {
    it('is tried again when a retry may cure it, without a second run', async () => {
      let failures = 2;
      const api = gitHubApi({ baseUrl: github.url, token: TOKEN });
      const flaky = {
        ...api,
        createCheckRun: async (...args: Parameters<typeof api.createCheckRun>) => {
          const created = await api.createCheckRun(...args);
          // Made, but the answer was lost: the retry must find it rather than make another.
          if (failures-- > 0) throw new GitHubApiError('POST check run: GitHub API answered 502', 'POST check run', 502);
          return created;
        },
      };
      await writeCheckRun(flaky, REPOSITORY, { name: 'step-runner', head_sha: SHA, external_id: ARN, status: 'in_progress', started_at: AT }, [], { sleep: async () => undefined });
      expect(github.checkRuns.size).toBe(1);
    });

    it('never fails the report: ReportStatus logs it and the build goes on', async () => {
      github.failPaths = [{ path: /check-runs/, status: 500 }];
      const warnings: unknown[][] = [];
      const log = { info: () => undefined, warn: (...args: unknown[]) => warnings.push(args) };
      const result = await reportStatus({ build, executionArn: ARN, outcome: 'failed', failure: STEP_FAILED }, { reporter: reporter(), log });
      expect(result).toEqual({ posted: false, reason: expect.stringMatching(/GitHub API answered 500/) });
      expect(warnings).toHaveLength(1);
      // Three attempts, as the App's token requests get.
      expect(github.requests.filter((r) => r.path.includes('check-runs'))).toHaveLength(3);
    });

    it('never fails the report when the App lacks the checks permission', async () => {
      github.installations.set(INSTALLATION, { status: 422, message: 'The permissions requested are not granted to this installation.' });
      const warnings: unknown[][] = [];
      const result = await reportStatus({ build, executionArn: ARN, outcome: 'started' }, { reporter: reporter(), log: { info: () => undefined, warn: (...args: unknown[]) => warnings.push(args) } });
      expect(result).toMatchObject({ posted: false, reason: expect.stringContaining('checks: write') });
      expect(warnings).toHaveLength(1);
    });
  });

  describe('the stand-in', () => {
    it("refuses, as GitHub does, a body its OpenAPI description does not allow", async () => {
      const api = gitHubApi({ baseUrl: github.url, token: TOKEN });
      const tooLong = { name: 'step-runner', head_sha: SHA, output: { title: 't', summary: 'x'.repeat(65_536) } };
      await expect(api.createCheckRun(REPOSITORY, tooLong)).rejects.toMatchObject({ status: 422 });
      await expect(api.createCheckRun(REPOSITORY, { name: 'step-runner', head_sha: SHA, status: 'completed' })).rejects.toMatchObject({ status: 422 });
      // 40,000 characters, within the documented 65,535, but 80,000 bytes: GitHub counts bytes.
      await expect(api.createCheckRun(REPOSITORY, { ...tooLong, output: { title: 't', summary: 'é'.repeat(40_000) } })).rejects.toMatchObject({ status: 422 });
      expect(github.refusedBodies.map((refused) => refused.problems)).toEqual([
        // GitHub's words for a summary past 65,535 bytes (github/docs#35252); the stand-in counts bytes.
        ['/output/summary summary exceeds a maximum bytesize of 65535'],
        ['/conclusion is required with completed_at or status completed'],
        ['/output/summary summary exceeds a maximum bytesize of 65535'],
      ]);
      github.refusedBodies.length = 0;
    });
  });

  describe('ReportStatus, as the definition calls it', () => {
    // The state as the Report states hand it over ($), and how FinishStep said each step ended.
    const prepared = {
      build,
      steps: [
        { name: 'clone', image: 'alpine/git:v2.54.0', commands: [], env: {}, secrets: [], pull: 'if-not-present', timeoutSeconds: 600 },
        { name: 'lint', image: 'node:22', commands: ['npm run lint'], env: {}, secrets: [], pull: 'if-not-present', timeoutSeconds: 600, line: 4 },
        { name: 'test', image: 'node:22', commands: ['npm test'], env: {}, secrets: [], pull: 'if-not-present', timeoutSeconds: 600, line: 9 },
      ],
      settings: { checkoutStep: 'clone' },
      skipped: [{ name: 'deploy', index: 2, reason: 'branch pull/2 is not main' }],
      pipelineFile: '.step-runner.yml',
    } as never;
    const records = [
      { step: 'clone', status: 'succeeded' as const, exitCode: 0, error: null, startedAt: '2026-03-01T10:00:00Z', endedAt: '2026-03-01T10:00:04Z' },
      { step: 'lint', status: 'failed' as const, exitCode: 1, error: 'StepFailed', startedAt: '2026-03-01T10:00:04Z', endedAt: '2026-03-01T10:01:09Z' },
    ];
    const log = { info: () => undefined, warn: () => undefined };

    it('lists every step queued at the start, then how each ended, and annotates the failing step\'s line; at the end, what the build cost', async () => {
      // On AWS the execution's history and the steps' records (lib/lambda/execution-cost-reader.ts); asked at the build's end only.
      const asked: [string, number][] = [];
      const cost = async (executionArn: string, given: readonly unknown[]) => {
        asked.push([executionArn, given.length]);
        return { usd: 0.0123, parts: { stepFunctions: 0.001, lambda: 0.0003, s3: 0, pods: 0.011 }, prices: { region: 'us-east-1', asOf: '2026-12-06' }, complete: true };
      };
      await reportStatus({ build, executionArn: ARN, outcome: 'started', prepared }, { reporter: gitHubReporter({ app }, { baseUrl: github.url }, options), log, results: async () => [], cost });
      expect(asked).toEqual([]);
      const [started] = github.checkRuns.values();
      expect(started!.output.summary).toContain('| `lint` | 🕒 queued |  |  |');
      expect(started!.output.title).toBe('Build running: 1 of 4 steps done');

      const failure = { Error: 'StepFailed', Cause: 'Step "lint" (image "node:22") failed with exit code 1 (Error).\nLast lines of the log:\n+ npm run lint\nsrc/a.ts: 1 problem' };
      await reportStatus({ build, executionArn: ARN, outcome: 'failed', failure, prepared }, { reporter: gitHubReporter({ app }, { baseUrl: github.url }, options), log, results: async () => records, cost });
      expect(asked).toEqual([[ARN, records.length]]);
      const [run] = github.checkRuns.values();
      expect(run!.output.summary).toContain('**Cost: $0.0123** (Step Functions $0.0010, Lambda $0.0003, S3 $0.0000, step pods $0.0110), at list prices for us-east-1 as of 2026-12-06');
      expect(github.checkRuns.size).toBe(1);
      expect(run).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'StepFailed in step "lint"' } });
      expect(run!.output.summary).toContain('| `clone` | ✅ succeeded | 4s |  |');
      expect(github.requests.filter((r) => r.method === 'PATCH').map((r) => (JSON.parse(r.body) as { actions?: unknown }).actions)).toEqual([[]]);
      expect(run!.output.summary).toContain('| `lint` | ❌ failed | 1m 05s | StepFailed |');
      expect(run!.output.summary).toContain('| `deploy` | ⏭️ skipped: branch pull/2 is not main |  |  |');
      expect(run!.output.summary).toContain('| `test` | ➖ not run |  |  |');
      expect(run!.output.text).toContain('src/a.ts: 1 problem');
      expect(run!.annotations).toEqual([expect.objectContaining({ path: '.step-runner.yml', start_line: 4, end_line: 4, annotation_level: 'failure' })]);
    });

    it('keeps the summary current as steps end, and a commit status unchanged until the build ends', async () => {
      await reportStatus({ build, executionArn: ARN, outcome: 'started', prepared }, { reporter: gitHubReporter({ app }, { baseUrl: github.url }, options), log, results: async () => [] });
      // A build without approval steps (settings with no `approvals`): no buttons, said outright.
      const progress = await reportStatus({ build, executionArn: ARN, outcome: 'progress', settings: {} }, { reporter: gitHubReporter({ app }, { baseUrl: github.url }, options), log, results: async () => records.slice(0, 1) });
      expect(progress).toMatchObject({ posted: true, state: 'in_progress', description: 'Build running: 1 step done' });
      const [run] = github.checkRuns.values();
      expect(github.checkRuns.size).toBe(1);
      expect(run).toMatchObject({ status: 'in_progress', conclusion: null });
      expect(run!.output.summary).toContain('| `clone` | ✅ succeeded | 4s |  |');

      const { installationId: _installation, ...plain } = build;
      void _installation;
      const status = await reportStatus({ build: plain, executionArn: ARN, outcome: 'progress' }, { reporter: gitHubReporter({ app, token: 'ghp_deploymentToken' }, { baseUrl: github.url }, options), log, results: async () => records });
      expect(status).toMatchObject({ posted: false });
      expect(github.requests.some((r) => r.path.includes('/statuses/'))).toBe(false);
    });

    it('reports without the table when how the steps ended cannot be read', async () => {
      const result = await reportStatus(
        { build, executionArn: ARN, outcome: 'succeeded', prepared },
        { reporter: gitHubReporter({ app }, { baseUrl: github.url }, options), log, results: async () => Promise.reject(new Error('AccessDenied')) },
      );
      expect(result).toMatchObject({ posted: true, state: 'success' });
    });
  });

  describe('without an App', () => {
    it('posts commit statuses as before, even for a delivery that names an installation', async () => {
      const result = await gitHubReporter({ token: 'ghp_deploymentToken' }, { baseUrl: github.url }, options).report({ build, executionArn: ARN, outcome: 'started' });
      expect(result).toMatchObject({ posted: true, state: 'pending' });
      expect(github.checkRuns.size).toBe(0);
      expect(github.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /repos/${REPOSITORY}/statuses/${SHA}`]);
    });

    it("posts commit statuses for a build that did not come through the deployment's App", async () => {
      const { installationId: _installation, ...plain } = build;
      void _installation;
      const result = await gitHubReporter({ app, token: 'ghp_deploymentToken' }, { baseUrl: github.url }, options).report({ build: plain, executionArn: ARN, outcome: 'started' });
      expect(result).toMatchObject({ posted: true, state: 'pending' });
      expect(github.checkRuns.size).toBe(0);
      expect(github.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /repos/${REPOSITORY}/statuses/${SHA}`]);
    });

    it('reports a check run, and no status, for a build that came through the App', async () => {
      await gitHubReporter({ app, token: 'ghp_deploymentToken' }, { baseUrl: github.url }, options).report({ build, executionArn: ARN, outcome: 'started' });
      expect(github.checkRuns.size).toBe(1);
      expect(github.requests.some((r) => r.path.includes('/statuses/'))).toBe(false);
    });
  });
});
