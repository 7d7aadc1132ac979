/**
 * The ReportStatus function (lib/lambda/report-status.ts) as the ReportStarted / ReportSucceeded / ReportFailed states invoke it:
 * the token from Secrets Manager (aws-sdk-client-mock), the statuses API over loopback HTTP.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { clearCache } from '@middy/util';
import { mockClient } from 'aws-sdk-client-mock';
import { createReportStatusHandler } from '../lib/lambda/report-status.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { printedStatusReporter } from '../lib/emulators/lambda/printed-status.js';
import { reportStatusHandler } from '../lib/workflow/handlers.js';
import { logger } from '../lib/workflow/lambda-task.js';
import type { StatusRequest } from '../lib/contract/index.js';
import { startFakeGitHub, type FakeGitHub } from './fixtures/webhooks/github-server.js';

const TOKEN = 'ghp_statusTokenNeverShown0002';
const SHA = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
const EXECUTION_ARN = 'arn:aws:states:eu-west-1:123456789012:execution:serverless-step-runner-dev-build:gh-Hello-World-6113728-d1-0123456789';
const build = { id: 'gh-hello-world-6113728-d1', trigger: 'github push', repository: 'Codertocat/Hello-World', commit: SHA, ref: 'refs/heads/master' };

const secretsManager = mockClient(SecretsManagerClient);
let github: FakeGitHub;

beforeAll(async () => {
  github = await startFakeGitHub();
  logger.setLogLevel('SILENT');
});
afterAll(async () => {
  clearCache();
  await github.close();
});
beforeEach(() => {
  clearCache();
  github.requests.length = 0;
  github.failWith = undefined;
  secretsManager.reset();
  secretsManager.on(GetSecretValueCommand, { SecretId: 'ci/github-token' }).resolves({ SecretString: TOKEN });
});

const onAws = () => createReportStatusHandler({ GITHUB_TOKEN_SECRET_ID: 'ci/github-token', GITHUB_API_URL: github.url });
const invoke = (handler: ReturnType<typeof createReportStatusHandler>, input: StatusRequest) =>
  handler(input, localLambdaContext('reportStatus'));

describe('ReportStatus', () => {
  it('posts pending when the build starts, linking the execution in the console', async () => {
    const result = await invoke(onAws(), { build, outcome: 'started', executionArn: EXECUTION_ARN });
    expect(result).toEqual({ posted: true, state: 'pending', description: 'Build running' });
    const [request] = github.requests;
    expect(request).toMatchObject({ method: 'POST', path: `/repos/Codertocat/Hello-World/statuses/${SHA}` });
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(request!.body)).toEqual({
      state: 'pending',
      description: 'Build running',
      context: 'step-runner',
      target_url: `https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/${EXECUTION_ARN}`,
    });
  });

  it("posts failure with the Error and the Lambda error's message, cut to 140 characters", async () => {
    const cause = JSON.stringify({
      errorType: 'InvalidPipeline',
      errorMessage: `.step-runner.yml line 6: step "build": timeout: "10 minutes" is not a duration; ${'and more words '.repeat(10)}`,
      trace: ['at parsePipeline (/var/task/index.mjs:1:1)'],
    });
    await invoke(onAws(), { build, outcome: 'failed', executionArn: EXECUTION_ARN, failure: { Error: 'InvalidPipeline', Cause: cause } });
    const posted = JSON.parse(github.requests[0]!.body) as { state: string; description: string };
    expect(posted.state).toBe('failure');
    expect(posted.description.startsWith('InvalidPipeline: .step-runner.yml line 6: step "build": timeout')).toBe(true);
    expect(Array.from(posted.description).length).toBeLessThanOrEqual(140);
    expect(posted.description.endsWith('…')).toBe(true);
  });

  it('does not fail the build when GitHub refuses: it says why instead', async () => {
    github.failWith = 500;
    const result = await invoke(onAws(), { build, outcome: 'succeeded', executionArn: EXECUTION_ARN });
    expect(result).toEqual({ posted: false, reason: expect.stringContaining('answered 500') });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('does not fail the build when the token cannot be read', async () => {
    secretsManager.on(GetSecretValueCommand).rejects(new Error('AccessDeniedException: not allowed'));
    const result = await invoke(onAws(), { build, outcome: 'succeeded', executionArn: EXECUTION_ARN });
    expect(result).toMatchObject({ posted: false });
    expect(github.requests).toHaveLength(0);
  });

  it('skips builds that did not come from GitHub', async () => {
    for (const trigger of ['generic', 'local run']) {
      const result = await invoke(onAws(), { build: { ...build, trigger }, outcome: 'started', executionArn: EXECUTION_ARN });
      expect(result).toMatchObject({ posted: false, reason: expect.stringContaining('not a GitHub build') });
    }
    expect(github.requests).toHaveLength(0);
  });

  it('refuses to start on AWS without the token secret, naming the setting', () => {
    expect(() => createReportStatusHandler({ GITHUB_API_URL: github.url })).toThrow(
      expect.objectContaining({ name: 'DeploymentSettingsError', message: expect.stringContaining('GITHUB_TOKEN_SECRET_ID is not set') }),
    );
  });

  it('locally prints the status and says it was not posted', async () => {
    const lines: string[] = [];
    const local = reportStatusHandler(() => printedStatusReporter((line) => lines.push(line)));
    const result = await local(
      { build, outcome: 'failed', failure: { Error: 'StepFailed', Cause: 'Step "test" exited with code 1' } },
      localLambdaContext('reportStatus'),
    );
    expect(result).toEqual({
      posted: false,
      reason: expect.stringContaining('printed locally'),
      state: 'failure',
      description: 'StepFailed: Step "test" exited with code 1',
    });
    expect(lines).toEqual(['commit status Codertocat/Hello-World@6113728 step-runner: failure "StepFailed: Step "test" exited with code 1"']);
    expect(github.requests).toHaveLength(0);
  });
});
