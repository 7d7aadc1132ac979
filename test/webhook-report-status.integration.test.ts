/**
 * The ReportStatus function (lib/lambda/report-status.ts) as the ReportStarted / ReportSucceeded / ReportFailed states invoke it:
 * the token from Secrets Manager (aws-sdk-client-mock), the statuses API over loopback HTTP; with
 * OTLP_ENDPOINT, the build's trace to an OTLP/HTTP receiver (test/fixtures/otlp-receiver.ts), its
 * headers from Secrets Manager too, and the ended-execution cleanup's trace of a stopped build.
 */
import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetExecutionHistoryCommand, SFNClient } from '@aws-sdk/client-sfn';
import { clearCache } from '@middy/util';
import { mockClient } from 'aws-sdk-client-mock';
import { createReportStatusHandler } from '../lib/lambda/report-status.js';
import { createCleanupEndedExecutionHandler } from '../lib/lambda/cleanup-ended-execution.js';
import { fakeStepCluster } from '../lib/kube/fake-cluster.js';
import type { StepLogStore, StepRecord } from '../lib/workflow/step-log-store.js';
import type { TaskRuntime } from '../lib/workflow/task-deps.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { printedStatusReporter } from '../lib/emulators/lambda/printed-status.js';
import { reportStatusHandler } from '../lib/workflow/handlers.js';
import { logger } from '../lib/workflow/lambda-task.js';
import type { StatusRequest } from '../lib/contract/index.js';
import { startFakeGitHub, type FakeGitHub } from './fixtures/webhooks/github-server.js';
import { startOtlpReceiver, type OtlpReceiver } from './fixtures/otlp-receiver.js';
import { otlpBuildTraces } from '../lib/workflow/trace-export.js';
import type { EndedBuild } from '../lib/workflow/build-trace.js';
import type { TaskLog } from '../lib/workflow/task-log.js';
import type { MetricRecord } from '../lib/workflow/metric-records.js';
import { Annotations, Labels } from '../lib/kube/index.js';
import { running, stepPod } from './fixtures/kube/builders.js';

const TOKEN = 'ghp_statusTokenNeverShown0002';
const SHA = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
const EXECUTION_ARN = 'arn:aws:states:eu-west-1:123456789012:execution:serverless-step-runner-dev-build:gh-Hello-World-6113728-d1-0123456789';
const build = { id: 'gh-hello-world-6113728-d1', trigger: 'github push', repository: 'Codertocat/Hello-World', commit: SHA, ref: 'refs/heads/master' };

const secretsManager = mockClient(SecretsManagerClient);
let github: FakeGitHub;
let receiver: OtlpReceiver;

beforeAll(async () => {
  github = await startFakeGitHub();
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  clearCache();
  await github.close();
  await receiver.close();
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

  describe('with an OTLP endpoint', () => {
    const HEADERS = '{"x-api-key": "otlp-key-never-logged-7f3a"}';
    const traced = () =>
      createReportStatusHandler({ GITHUB_TOKEN_SECRET_ID: 'ci/github-token', GITHUB_API_URL: github.url, OTLP_ENDPOINT: receiver.endpoint, OTLP_HEADERS_SECRET_ID: 'ci/otlp-headers' });
    const ended = { build, outcome: 'succeeded', executionArn: EXECUTION_ARN, startedAt: '2026-03-14T10:00:00.000Z' } as StatusRequest;

    beforeEach(() => {
      receiver.exports.length = 0;
      secretsManager.on(GetSecretValueCommand, { SecretId: 'ci/otlp-headers' }).resolves({ SecretString: HEADERS });
    });

    it('sends the build that ended as a trace, with the headers of its secret, and posts the status as ever', async () => {
      const result = await invoke(traced(), ended);
      expect(result).toMatchObject({ posted: true, state: 'success' });
      expect(receiver.exports).toHaveLength(1);
      expect(receiver.exports[0]!.headers['x-api-key']).toBe('otlp-key-never-logged-7f3a');
      const [root] = receiver.exports[0]!.spans;
      expect(root).toMatchObject({ name: 'RUN Codertocat/Hello-World', parentSpanId: '', startTimeUnixNano: String(BigInt(Date.parse('2026-03-14T10:00:00Z')) * 1_000_000n) });
      expect(root!.attributes).toMatchObject({
        'cicd.pipeline.run.id': build.id,
        'cicd.pipeline.result': 'success',
        'vcs.ref.head.name': 'master',
        // The execution's page in the Step Functions console, as the commit status links it.
        'cicd.pipeline.run.url.full': `https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/${EXECUTION_ARN}`,
      });
    });

    it('sends nothing when the build starts', async () => {
      await invoke(traced(), { build, outcome: 'started', executionArn: EXECUTION_ARN });
      expect(receiver.exports).toHaveLength(0);
    });

    it('sends the trace without headers while their secret does not exist (a collector that wants none)', async () => {
      secretsManager
        .on(GetSecretValueCommand, { SecretId: 'ci/otlp-headers' })
        .rejects(new ResourceNotFoundException({ message: "Secrets Manager can't find the specified secret.", $metadata: {} }));
      const result = await invoke(traced(), ended);
      expect(result).toMatchObject({ posted: true, state: 'success' });
      expect(receiver.exports).toHaveLength(1);
      expect(receiver.exports[0]!.headers['x-api-key']).toBeUndefined();
    });

    it("sends a stopped build's trace from the ended-execution cleanup, the run and each step linked to the execution's Step Functions console page", async () => {
      const records: StepRecord[] = [{ step: 'clone', status: 'succeeded', exitCode: 0, error: null, startedAt: '2026-03-14T10:00:02.000Z', endedAt: '2026-03-14T10:00:08.000Z' }];
      const logs = { results: async () => records } as unknown as StepLogStore;
      const runtime = { settings: { namespace: 'ci' }, deps: { cluster: fakeStepCluster(), logs, now: () => new Date(), log: logger } } as unknown as TaskRuntime;
      const handler = createCleanupEndedExecutionHandler({ GITHUB_TOKEN_SECRET_ID: 'ci/github-token', GITHUB_API_URL: github.url, OTLP_ENDPOINT: receiver.endpoint, OTLP_HEADERS_SECRET_ID: 'ci/otlp-headers' }, runtime);
      const event = {
        'detail-type': 'Step Functions Execution Status Change',
        detail: { executionArn: EXECUTION_ARN, name: 'gh-Hello-World-6113728-d1-0123456789', status: 'ABORTED', input: JSON.stringify({ build }), startDate: Date.parse('2026-03-14T10:00:00Z'), stopDate: Date.parse('2026-03-14T10:00:30Z') },
      };

      await handler(event, localLambdaContext('cleanupEndedExecution'));

      expect(receiver.exports).toHaveLength(1);
      expect(receiver.exports[0]!.headers['x-api-key']).toBe('otlp-key-never-logged-7f3a');
      const page = `https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/${EXECUTION_ARN}`;
      const [root, ...steps] = receiver.exports[0]!.spans.filter((span) => span.parentSpanId === '' || span.name === 'clone').sort((a, b) => a.parentSpanId.length - b.parentSpanId.length);
      expect(root).toMatchObject({ name: 'RUN Codertocat/Hello-World', status: { code: 'STATUS_CODE_ERROR', message: 'ExecutionAborted' }, endTimeUnixNano: String(BigInt(Date.parse('2026-03-14T10:00:30Z')) * 1_000_000n) });
      expect(root!.attributes).toMatchObject({ 'cicd.pipeline.result': 'cancellation', 'error.type': 'ExecutionAborted', 'cicd.pipeline.run.url.full': page });
      expect(steps.map((step) => [step.name, step.attributes['cicd.pipeline.task.run.url.full']])).toEqual([['clone', page]]);
    });

    it("prices a timed-out build in the ended-execution cleanup, as ReportStatus prices the others: its history, and the step still running until the stop", async () => {
      const sfn = mockClient(SFNClient);
      // Two states entered before the execution's limit.
      sfn.on(GetExecutionHistoryCommand, { executionArn: EXECUTION_ARN }).resolves({
        events: [
          { id: 1, type: 'ExecutionStarted', timestamp: new Date('2026-03-14T10:00:00Z') },
          { id: 2, previousEventId: 1, type: 'TaskStateEntered', timestamp: new Date('2026-03-14T10:00:00Z') },
          { id: 3, previousEventId: 2, type: 'MapStateEntered', timestamp: new Date('2026-03-14T10:00:01Z') },
        ],
      });
      const cluster = fakeStepCluster();
      const pod = stepPod({ step: 'test', state: running(5) });
      cluster.put('pod', {
        ...pod,
        metadata: { ...pod.metadata, name: `${build.id}-test`, labels: { ...pod.metadata!.labels, [Labels.build]: build.id }, annotations: { [Annotations.build]: build.id, [Annotations.step]: 'test' } },
        // On a node with no instance type label: the deployment's flat rate.
        spec: { ...pod.spec!, nodeName: 'unlabelled', containers: pod.spec!.containers.map((container) => ({ ...container, resources: { requests: { cpu: '2', memory: '4Gi' } } })) },
        status: { ...pod.status, phase: 'Running', startTime: new Date('2026-03-14T10:00:00Z') },
      });
      const written: MetricRecord[] = [];
      const runtime = { settings: { namespace: 'ci' }, deps: { cluster, logs: { results: async () => [] }, metrics: { write: (record: MetricRecord) => void written.push(record) }, now: () => new Date(), log: logger } } as unknown as TaskRuntime;
      const env = { GITHUB_TOKEN_SECRET_ID: 'ci/github-token', GITHUB_API_URL: github.url, COST_FUNCTIONS: JSON.stringify({ architecture: 'arm64', memoryMb: {} }), COST_PRICES: '{"flat": {"perVcpuHour": 0.04, "perGibHour": 0.005}}' };
      const event = {
        'detail-type': 'Step Functions Execution Status Change',
        detail: { executionArn: EXECUTION_ARN, name: 'gh-Hello-World-6113728-d1-0123456789', status: 'TIMED_OUT', input: JSON.stringify({ build }), startDate: Date.parse('2026-03-14T10:00:00Z'), stopDate: Date.parse('2026-03-14T10:30:00Z') },
      };

      const result = await createCleanupEndedExecutionHandler(env, runtime)(event, localLambdaContext('cleanupEndedExecution'));

      // The pod's half hour at (2 vCPU x $0.04 + 4 GiB x $0.005) an hour, two transitions at $0.025 a thousand, and the
      // listing of the build's records (none), priced as a GET.
      const dollars = 0.5 * (2 * 0.04 + 4 * 0.005) + 2 * 0.000025 + 1 * 0.0000004;
      expect(written.flatMap((record) => record.metrics).find((metric) => metric.name === 'BuildCost')?.value).toBeCloseTo(dollars, 10);
      expect(result).toMatchObject({ build: build.id, deletedPods: 1, unfinished: [{ step: 'test', cpu: 2, memoryBytes: 4 * 2 ** 30, seconds: 1800, instanceType: null }] });
      expect(sfn.commandCalls(GetExecutionHistoryCommand)).toHaveLength(1);
      sfn.restore();
    });

    it('posts the status when the headers cannot be read, and sends no trace', async () => {
      secretsManager.on(GetSecretValueCommand, { SecretId: 'ci/otlp-headers' }).rejects(new Error('AccessDeniedException: not allowed'));
      const result = await invoke(traced(), ended);
      expect(result).toMatchObject({ posted: true, state: 'success' });
      expect(receiver.exports).toHaveLength(0);
    });
  });
});

const T0 = Date.parse('2026-03-14T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const nanos = (seconds: number) => String(BigInt(T0 + seconds * 1000) * 1_000_000n);

const imagePullFailed: EndedBuild = {
  build: { id: 'b-42', repository: 'octo/app', ref: 'refs/heads/main', commit: 'c0ffee' },
  outcome: 'failed',
  failure: { Error: 'ImagePullFailed', Cause: 'no such image' },
  startedAt: at(0),
  endedAt: at(20),
  steps: [{ step: 'test', status: 'failed', exitCode: null, error: 'ImagePullFailed', startedAt: at(2), endedAt: at(19), timings: { scheduled: at(2), pulling: at(3) } }],
};

function recordingLog(): TaskLog & { lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string, extra?: Record<string, unknown>) => lines.push(`${message} ${JSON.stringify(extra ?? {})}`);
  return { lines, info: keep, warn: keep, error: keep, debug: keep } as unknown as TaskLog & { lines: string[] };
}

/** The export itself (lib/workflow/trace-export.ts), as a collector decodes it. */
describe('otlpBuildTraces', () => {
  beforeEach(() => {
    receiver.exports.length = 0;
  });

  it('sends the build as one trace of nested spans, with the headers, in one OTLP/HTTP protobuf request a collector decodes', async () => {
    const exported = await otlpBuildTraces(async () => ({ endpoint: receiver.endpoint, headers: { 'x-api-key': 'k-123' } }), recordingLog())(imagePullFailed);
    expect(exported).toBe(true);
    expect(receiver.exports).toHaveLength(1);
    const [request] = receiver.exports;
    expect(request!.path).toBe('/v1/traces');
    expect(request!.headers['x-api-key']).toBe('k-123');
    expect(request!.headers['content-type']).toBe('application/x-protobuf');
    const spans = request!.spans;
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const byName = new Map(spans.map((span) => [span.name, span]));
    const root = byName.get('RUN octo/app')!;
    expect(root).toMatchObject({ parentSpanId: '', kind: 'SPAN_KIND_SERVER', startTimeUnixNano: nanos(0), endTimeUnixNano: nanos(20), status: { code: 'STATUS_CODE_ERROR', message: 'ImagePullFailed' } });
    expect(root.attributes).toMatchObject({ 'cicd.pipeline.name': 'octo/app', 'cicd.pipeline.run.id': 'b-42', 'cicd.pipeline.result': 'error', 'error.type': 'ImagePullFailed', 'vcs.ref.head.revision': 'c0ffee' });
    expect(root.resource['service.name']).toBe('serverless-step-runner');
    const step = byName.get('test')!;
    expect(step).toMatchObject({ parentSpanId: root.spanId, kind: 'SPAN_KIND_INTERNAL', startTimeUnixNano: nanos(2), endTimeUnixNano: nanos(19) });
    expect(step.attributes).toMatchObject({ 'cicd.pipeline.task.name': 'test', 'cicd.pipeline.task.run.id': 'b-42/test', 'cicd.pipeline.task.run.result': 'error' });
    expect(spans.filter((span) => span.parentSpanId === step.spanId).map((span) => [span.name, span.status.code])).toEqual([
      ['pending', 'STATUS_CODE_UNSET'],
      ['pulling', 'STATUS_CODE_ERROR'],
    ]);
  });

  it('logs an export the endpoint refuses, without its headers, and never throws', async () => {
    // 401: a key the collector refuses (a 503 would be retried first, as the exporter retries what may pass).
    receiver.answer(401);
    const log = recordingLog();
    try {
      const exported = await otlpBuildTraces(async () => ({ endpoint: `${receiver.endpoint}/otlp?token=s3cret`, headers: { authorization: 'Bearer s3cret' } }), log)(imagePullFailed);
      expect(exported).toBe(false);
    } finally {
      receiver.answer(200);
    }
    expect(log.lines).toEqual([expect.stringContaining(`Build trace not exported to ${receiver.endpoint}`)]);
    expect(log.lines.join('\n')).not.toContain('s3cret');
  });

  it('logs a destination that cannot be had (its secret unreadable)', async () => {
    const log = recordingLog();
    const exported = await otlpBuildTraces(async () => Promise.reject(new Error('AccessDeniedException: not allowed')), log)(imagePullFailed);
    expect(exported).toBe(false);
    expect(log.lines).toEqual([expect.stringMatching(/^Build trace not exported to the OTLP endpoint; .*AccessDeniedException/)]);
  });
});
