/**
 * What happens twice must happen once: a LaunchStep retried after a timeout (the Lambda handler
 * invoked again with the same input) adopts its pod; a webhook delivered twice, or N times at
 * once, starts one execution, on Step Functions and in the local registry alike.
 */
import { jest } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { sign } from '@octokit/webhooks-methods';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { Annotations, Labels, stepPodManifest, stepPodName } from '../lib/kube/index.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { localLambdaFunctions } from '../lib/emulators/lambda/lambda-functions.js';
import { printedStatusReporter } from '../lib/emulators/lambda/printed-status.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { LocalExecutions } from '../lib/local/server/executions.js';
import { startLocalExecution, type ExecutionSummary, type LocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { stepFunctionsStarter, type ExecutionStarter } from '../lib/forge/execution-starter.js';
import { createWebhookHandler, staticSecrets } from '../lib/forge/webhook-handler.js';
import { fixedPipelineSource } from '../lib/local/source/pipeline-file.js';
import { logger } from '../lib/workflow/lambda-task.js';
import type { PollState, StepInput } from '../lib/workflow/state-data.js';
import type { Step } from '../lib/pipeline/types.js';
import { FakeStepFunctions } from './fixtures/step-functions.js';
import { parseImageReference } from '../lib/pipeline/index.js';

const NAMESPACE = 'default';
const SECRET = 'idempotency-webhook-secret';
const PIPELINE = 'version: 1\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: [echo hi]\n';
const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:build';

let cluster: EmbeddedCluster;
let api: CoreV1Api;
let scratch: string;
let lambdaFunctions: ReturnType<typeof localLambdaFunctions>;

beforeAll(async () => {
  // The handlers' JSON log lines are not what this file is about.
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  scratch = await mkdtemp(path.join(tmpdir(), 'reliability-idem-'));
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS });
  const kubeconfig = path.join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
  lambdaFunctions = localLambdaFunctions(
    localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir: path.join(scratch, 'logs') }),
    printedStatusReporter(() => {}),
  );
});

afterAll(async () => {
  jest.restoreAllMocks();
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
});

const step: Step = { name: 'test', image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'), commands: ['sleep 5'], env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [] };

function stepInput(buildId: string): StepInput {
  return {
    build: { id: buildId, trigger: 'test' },
    namespace: NAMESPACE,
    settings: { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120 },
    step,
    index: 0,
  };
}

/** The deployed LaunchStep handler, invoked as Lambda would invoke it. */
const launch = (input: StepInput) =>
  lambdaFunctions.LaunchStepLambdaFunction!.handler(input as never, localLambdaContext('launchStep')) as Promise<PollState>;

async function podsNamed(name: string) {
  const list = await api.listNamespacedPod({ namespace: NAMESPACE, fieldSelector: `metadata.name=${name}` });
  return list.items;
}

describe('LaunchStep invoked twice with the same input', () => {
  it('creates one pod, and the second invocation adopts it', async () => {
    const input = stepInput('idem-launch-1');
    const first = await launch(input);
    const second = await launch(structuredClone(input));

    expect(first.podName).toBe(stepPodName('idem-launch-1', 'test'));
    expect(second.podName).toBe(first.podName);
    expect([first.reason, second.reason]).toEqual(['PodCreated', 'PodAdopted']);
    // The step's clock does not restart: deadlines and grace periods count from the first launch.
    expect(second.launchedAt).toBe(first.launchedAt);
    const pods = await podsNamed(first.podName);
    expect(pods).toHaveLength(1);
  });

  it('fails with PodConfigError, and touches nothing, when the name is taken by another build', async () => {
    const input = stepInput('idem-launch-2');
    const squatter = stepPodManifest({ buildId: 'idem-launch-2', step, namespace: NAMESPACE });
    squatter.metadata!.labels![Labels.build] = 'someone-else';
    squatter.metadata!.annotations![Annotations.build] = 'someone-else';
    const existing = await api.createNamespacedPod({ namespace: NAMESPACE, body: squatter });

    const error = await launch(input).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    // The name is what Step Functions shows as the Error.
    expect((error as Error).name).toBe('PodConfigError');
    expect((error as Error).message).toContain('build "someone-else"');
    const pods = await podsNamed(squatter.metadata!.name!);
    expect(pods.map((p) => p.metadata?.uid)).toEqual([existing.metadata?.uid]);
  });
});

function webhookEvent(body: string, signature: string, deliveryId: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/webhook/generic',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', 'x-signature-256': signature, 'x-delivery-id': deliveryId },
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: 'POST', path: '/webhook/generic', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'req',
      routeKey: '$default',
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
    body,
    isBase64Encoded: false,
  };
}

/** N copies of one signed delivery, sent at once through the same handler. */
async function deliverConcurrently(starter: ExecutionStarter, copies: number) {
  const handler = createWebhookHandler({
    logger,
    secrets: staticSecrets({ genericWebhookSecret: SECRET }),
    deps: { starter, pipelines: () => fixedPipelineSource({ file: 'unused', text: '' }), log: logger },
  });
  const body = JSON.stringify({ repository: 'team/app', commit: 'abc1234', ref: 'refs/heads/main', pipeline: PIPELINE, cloneUrl: 'https://git.example.com/team/app.git' });
  const signature = await sign(SECRET, body);
  const answers = await Promise.all(
    Array.from({ length: copies }, () => handler(webhookEvent(body, signature, 'delivery-77'), localLambdaContext('webhook')) as Promise<APIGatewayProxyStructuredResultV2>),
  );
  return answers.map((a) => ({ status: a.statusCode, json: JSON.parse(a.body ?? '{}') as Record<string, unknown> }));
}

function expectOneStarted(answers: { status?: number; json: Record<string, unknown> }[]) {
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 202));
  expect(answers.filter((a) => a.json.alreadyStarted !== true)).toHaveLength(1);
  expect(new Set(answers.map((a) => a.json.executionArn)).size).toBe(1);
}

describe('invocations that Lambda could not complete (timeout, out of memory)', () => {
  it('are retried on every task, and the build succeeds with one pod per step', async () => {
    // The first invocation of each task state ends as Lambda reports a timeout or running out of
    // memory, after its handler did its work: created the claim or the pod, read it, stored the log.
    const failedOnce = new Set<string>();
    const names = ['Lambda.Unknown', 'Lambda.ClientExecutionTimeoutException'];
    const created: string[] = [];
    const execution = startLocalExecution(
      {
        build: { id: 'lambda-unknown', trigger: 'test' },
        pipeline: { file: 'p.yml', text: 'version: 1\ncheckout: false\nsteps:\n  - name: one\n    image: alpine:3.20\n    commands: [echo one]\n  - name: two\n    image: alpine:3.20\n    commands: [echo two]\n' },
      },
      {
        runtime: localTaskRuntime({ kubeconfig: path.join(scratch, 'kubeconfig'), namespace: NAMESPACE, logsDir: path.join(scratch, 'logs') }),
        statuses: printedStatusReporter(() => {}),
        overrides: {
          waitMs: 20,
          retryMs: 5,
          invocationFailure: (state) => {
            if (failedOnce.has(state)) return undefined;
            failedOnce.add(state);
            return names[failedOnce.size % 2];
          },
        },
        onEvent: (event) => {
          if (event.type === 'StateExited' && event.state?.name === 'LaunchStep') created.push((event.state.output as { poll: PollState }).poll.reason);
        },
      },
    );
    const summary = await execution.result;

    expect({ status: summary.status, error: summary.error }).toEqual({ status: 'SUCCEEDED', error: null });
    expect(summary.steps.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    expect([...failedOnce].sort()).toEqual(
      expect.arrayContaining(['PrepareBuild', 'ReportStarted', 'LaunchStep', 'PollStep', 'FinishStep', 'CleanupSucceededBuild', 'ReportSucceeded']),
    );
    // The retried LaunchStep found the pod its lost invocation had made.
    expect(created).toEqual(['PodAdopted', 'PodCreated']);
    const left = await api.listNamespacedPod({ namespace: NAMESPACE, labelSelector: 'step-runner.dev/build=lambda-unknown' });
    expect(left.items.filter((p) => !p.metadata?.deletionTimestamp)).toEqual([]);
  });
});

describe('one webhook delivered many times', () => {
  const sfn = mockClient(SFNClient);
  afterAll(() => sfn.restore());

  it('starts one Step Functions execution when 8 copies arrive at once, and none when 2 more arrive after it ended', async () => {
    // Step Functions as it behaves (test/fixtures/step-functions.ts): while the execution runs, the
    // same name and input are answered 200 with that execution; once it has closed, with
    // ExecutionAlreadyExists.
    const stepFunctions = new FakeStepFunctions([STATE_MACHINE_ARN]).answerFor(sfn);
    const starter = stepFunctionsStarter(new SFNClient({ region: 'eu-west-1' }), STATE_MACHINE_ARN);
    const answers = await deliverConcurrently(starter, 8);

    // Every copy asked for the same name with the same input, which is what lets Step Functions keep it to one.
    const requests = sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input);
    expect(requests).toHaveLength(8);
    expect(new Set(requests.map((r) => `${r.name} ${r.input}`)).size).toBe(1);
    const [execution, ...others] = stepFunctions.list();
    expect(others).toEqual([]);
    expect(execution!.status).toBe('RUNNING');
    // All 8 were answered 200 with that one execution: its ARN and its startDate.
    expect(stepFunctions.outcomes.map((o) => o.error?.name)).toEqual(Array(8).fill(undefined));
    expect(stepFunctions.outcomes.map((o) => o.output)).toEqual(Array(8).fill({ executionArn: execution!.executionArn, startDate: execution!.startDate }));
    expect(answers.map((a) => [a.status, a.json.executionArn])).toEqual(Array(8).fill([202, execution!.executionArn]));

    // The build ends; a late redelivery is refused by Step Functions and answered as already started.
    stepFunctions.close(execution!.name, 'SUCCEEDED');
    const late = await deliverConcurrently(starter, 2);
    expect(stepFunctions.outcomes.slice(8).map((o) => o.error?.name)).toEqual(['ExecutionAlreadyExists', 'ExecutionAlreadyExists']);
    expect(late).toEqual(Array(2).fill({ status: 202, json: expect.objectContaining({ executionArn: execution!.executionArn, alreadyStarted: true }) }));
    expect(stepFunctions.list()).toHaveLength(1);
  });

  it('starts one local execution when 8 copies arrive at once', async () => {
    const runs: string[] = [];
    const registry = new LocalExecutions({
      consoleUrl: (name) => `http://localhost/executions/${name}`,
      run: (name): LocalExecution => {
        runs.push(name);
        const summary: ExecutionSummary = { status: 'SUCCEEDED', error: null, cause: null, steps: [], events: [] };
        return { result: new Promise((resolve) => setTimeout(() => resolve(summary), 20)), abort: () => {}, refused: [] };
      },
    });
    const answers = await deliverConcurrently(registry, 8);
    expectOneStarted(answers);
    expect(runs).toHaveLength(1);
    expect(registry.list()).toHaveLength(1);

    // And once more after it ended: still the same execution, nothing new.
    await registry.stopAll();
    const again = await deliverConcurrently(registry, 2);
    expect(again.every((a) => a.json.alreadyStarted === true)).toBe(true);
    expect(runs).toHaveLength(1);
  });
});
