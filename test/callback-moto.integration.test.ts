/**
 * The callback pattern (`.waitForTaskToken`) as the local executor runs it (callback-tasks.ts,
 * task-tokens.ts over aws-local-stepfunctions, which has none), held to moto's Step Functions
 * interpreter (LocalStack's, which implements SendTaskSuccess and SendTaskFailure): the definition's
 * own AwaitApproval, ReportDecision (an approval's check run, once approved), ApprovalTimedOut and
 * StepFailed states (and, an approval that steps need, FinishApproval), as a machine of their own, answered with SendTaskSuccess, with SendTaskFailure,
 * and not at all until its TimeoutSeconds pass; and a step that needs an approval waiting in
 * AwaitApprovedNeeds until FinishApproval answers it, then on to WaitForNeeds (a Succeed state
 * stands in for it). Both
 * must invoke the function once with the same Payload and a token in it, and end alike: status,
 * output, Error, the states entered, and Cause where moto keeps one.
 *
 * Where moto departs from Step Functions, the AWS documents decide, and the local side is held to
 * them alone (asDocuments):
 * - SendTaskFailure's cause: moto's TaskFailed and ExecutionFailed carry the error only; Step
 *   Functions fails the task with "the error code" and "a more detailed explanation of the cause"
 *   given (SendTaskFailure in the API Reference).
 * - A token whose task has ended: moto looks only among running executions and answers
 *   InvalidToken; Step Functions answers TaskTimedOut, "the task associated with the token has
 *   already been closed" (https://docs.aws.amazon.com/botocore/latest/reference/services/stepfunctions/client/exceptions/TaskTimedOut.html).
 *
 * And the deployed webhook (lib/lambda/webhook.ts, a GitHub App) against moto's server over the
 * AWS SDK: a check run's requested_action (GitHub's own example, signed) finds the approval waiting
 * in the execution's history, asks the GitHub stand-in who clicked, refuses someone not among the
 * approvers (the execution keeps waiting) and answers with SendTaskSuccess or SendTaskFailure for
 * one who is. Approved, the webhook leaves the check run to the build's ReportDecision (which the
 * local server's approval builds show); rejected, it says so itself until the build's end report.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { jest } from '@jest/globals';
import { CreateRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import { CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateStateMachineCommand, DescribeExecutionCommand, GetExecutionHistoryCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { clearCache } from '@middy/util';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createLambdaWebhookHandler } from '../lib/lambda/webhook.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { checkRun } from './fixtures/webhooks/examples.js';
import { startFakeGitHub, type FakeGitHub } from './fixtures/webhooks/github-server.js';
import { signedGitHubDelivery } from './fixtures/webhooks/signed-delivery.js';
import { MOTO_CREDENTIALS, MOTO_REGION, motoServerInstalled, startMotoServer, type MotoServer } from './fixtures/moto-server.js';
import { fileURLToPath } from 'node:url';
import { StateMachine } from 'aws-local-stepfunctions';
import '../lib/emulators/stepfunctions/polyfills.js';
import { callbackTaskCall, withLocalCallbacks } from '../lib/emulators/stepfunctions/callback-tasks.js';
import { TaskTokens } from '../lib/emulators/stepfunctions/task-tokens.js';
import { loadDefinition, type AslDefinition } from '../lib/workflow/definition.js';
import { describeRequiring } from './fixtures/requirements.js';
import { motoLambdaArn, motoStepFunctionsInstalled } from './fixtures/moto-sfn.js';

const DRIVER = fileURLToPath(new URL('./fixtures/moto-sfn/run_callback.py', import.meta.url));
const STATES = ['AwaitApproval', 'ApprovalTimedOut', 'StepFailed', 'ReportDecision', 'ApprovalNeeded', 'FinishApproval', 'StepEnded'];
/** A step waiting for the approvals it needs, then for its other needs: WaitForNeeds stands in as a Succeed state. */
const AWAITS_STATES = ['AwaitApprovedNeeds'];

/** The definition's approval states as a machine of their own, its functions in moto's account. */
function approvalMachine(): AslDefinition {
  const iteration = loadDefinition().States.RunSteps!.ItemProcessor!;
  const machine: AslDefinition = { StartAt: 'AwaitApproval', States: Object.fromEntries(STATES.map((name) => [name, structuredClone(iteration.States[name]!)])) };
  (machine.States.AwaitApproval!.Parameters as { FunctionName: unknown }).FunctionName = motoLambdaArn('AwaitApprovalLambdaFunction');
  machine.States.FinishApproval!.Resource = motoLambdaArn('ApprovalWaitsLambdaFunction');
  machine.States.ReportDecision!.Resource = motoLambdaArn('ReportStatusLambdaFunction');
  return machine;
}

function awaitsMachine(): AslDefinition {
  const iteration = loadDefinition().States.RunSteps!.ItemProcessor!;
  const machine: AslDefinition = { StartAt: 'AwaitApprovedNeeds', States: Object.fromEntries(AWAITS_STATES.map((name) => [name, structuredClone(iteration.States[name]!)])) };
  (machine.States.AwaitApprovedNeeds!.Parameters as { FunctionName: unknown }).FunctionName = motoLambdaArn('ApprovalWaitsLambdaFunction');
  Object.assign(machine.States, { WaitForNeeds: { Type: 'Succeed' } });
  return machine;
}

const input = (timeoutSeconds: number, extra: Record<string, unknown> = {}) => ({
  build: { id: 'gh-acme-web-42' },
  namespace: 'step-runner',
  settings: { workspace: { claimName: 'gh-acme-web-42-workspace' } },
  index: 1,
  step: { name: 'production', approval: { selfApproval: true, timeoutSeconds }, ...extra },
});
/** A step that needs the approval step "approve". */
const awaiting = () => {
  const { step, ...rest } = input(30);
  const { approval: _own, ...plain } = step;
  return { ...rest, step: { ...plain, needs: ['approve'], awaits: ['approve'] } };
};
const APPROVED = { step: 'production', status: 'succeeded', approval: { decision: 'approved', by: 'octocat', at: '2026-12-06T06:00:00.000Z', comment: 'ship it' } };
const REJECTED = { error: 'ApprovalRejected', cause: 'Step "production" was rejected by octocat: not on a Friday' };

type Answer = { success: string } | { failure: { error: string; cause: string } } | null;
interface Scenario {
  name: string;
  input: Record<string, unknown>;
  tokenKey: 'taskToken';
  answer: Answer;
}
interface Run {
  name: string;
  status: string;
  output: unknown;
  error: string | null;
  cause: string | null;
  states: string[];
  payloads: Record<string, unknown>[];
  tokenGiven: boolean;
  afterEnd: string | null;
}

const SCENARIOS: Scenario[] = [
  { name: 'approved', input: input(30), tokenKey: 'taskToken', answer: { success: JSON.stringify(APPROVED) } },
  { name: 'rejected', input: input(30), tokenKey: 'taskToken', answer: { failure: REJECTED } },
  // One second: the shortest TimeoutSeconds there is; both sides wait it out.
  { name: 'timed-out', input: input(1), tokenKey: 'taskToken', answer: null },
  // Steps need it: FinishApproval marks it given and answers them (tasks/approval-waits.ts).
  { name: 'approved, and needed', input: input(30, { needed: true }), tokenKey: 'taskToken', answer: { success: JSON.stringify(APPROVED) } },
];
const GIVEN = JSON.stringify({ approved: true });
const AWAITS_SCENARIOS: Scenario[] = [
  { name: 'awaited-given', input: awaiting(), tokenKey: 'taskToken', answer: { success: GIVEN } },
];

interface MotoMachine {
  definition: AslDefinition;
  scenarios: readonly Scenario[];
}

/** Each machine's scenarios in moto, the machines one after another in one driver process; their runs, by machine. */
async function runInMoto<const M extends readonly MotoMachine[]>(machines: M): Promise<{ -readonly [K in keyof M]: Run[] }> {
  const child = spawn('python3', [DRIVER], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8000)));
  const closed = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  child.stdin.end(JSON.stringify({ machines }));
  const code = await closed;
  if (code !== 0) throw new Error(`${DRIVER} exited with ${code}: ${stderr}`);
  return (JSON.parse(stdout) as { machines: { runs: Run[] }[] }).machines.map((machine) => machine.runs) as { -readonly [K in keyof M]: Run[] };
}

/** The same scenario in aws-local-stepfunctions with the executor's callback pattern; the function answers as it is invoked. */
async function runLocally(definition: AslDefinition, scenario: Scenario): Promise<Run> {
  const tokens = new TaskTokens();
  const executionArn = `arn:aws:states:us-east-1:123456789012:execution:callback:${scenario.name}`;
  const payloads: Record<string, unknown>[] = [];
  let token = '';
  const invoke = async (payload: unknown) => {
    if ((payload as { task?: string }).task === 'finish-approval' || (payload as { outcome?: string }).outcome !== undefined) {
      payloads.push(payload as Record<string, unknown>);
      return {};
    }
    payloads.push(payload as Record<string, unknown>);
    token = (payload as { taskToken: string }).taskToken;
    // Answered once the function has returned, as the runner answers a person's decision later.
    setImmediate(() => {
      const answer = scenario.answer;
      if (answer && 'success' in answer) tokens.sendTaskSuccess(token, answer.success);
      else if (answer) tokens.sendTaskFailure(token, answer.failure.error, answer.failure.cause);
    });
    return {};
  };
  const machine = new StateMachine(withLocalCallbacks(definition) as never, { validationOptions: { checkPaths: true, checkArn: true } });
  const execution = machine.run(scenario.input as never, {
    context: { Execution: { Id: executionArn, Name: scenario.name } } as never,
    overrides: {
      taskResourceLocalHandlers: {
        AwaitApproval: async (parameters: unknown) => callbackTaskCall(parameters).run(invoke, tokens, executionArn),
        AwaitApprovedNeeds: async (parameters: unknown) => callbackTaskCall(parameters).run(invoke, tokens, executionArn),
        FinishApproval: invoke,
        ReportDecision: invoke,
      } as never,
    },
  });
  const states: string[] = [];
  let error: string | null = null;
  let cause: string | null = null;
  const pump = (async () => {
    for await (const event of execution.eventLogs as AsyncGenerator<{ type: string; state?: { name: string }; Error?: string; Cause?: string }>) {
      if (event.type === 'StateEntered' && event.state) states.push(event.state.name);
      if (event.type === 'ExecutionFailed') [error, cause] = [event.Error ?? null, event.Cause ?? null];
    }
  })();
  let status = 'SUCCEEDED';
  let output: unknown = null;
  try {
    output = await execution.result;
  } catch {
    status = 'FAILED';
  }
  await pump;
  let afterEnd: string | null = null;
  try {
    tokens.sendTaskSuccess(token, '{}');
  } catch (thrown) {
    afterEnd = (thrown as Error).name;
  }
  return {
    name: scenario.name,
    status,
    output,
    error,
    cause,
    states,
    payloads: payloads.map((payload) => ('taskToken' in payload ? { ...payload, taskToken: '<token>' } : payload)),
    tokenGiven: token !== '',
    afterEnd,
  };
}

describeRequiring('the callback pattern in moto and in the local executor', motoStepFunctionsInstalled, () => {
  const definition = approvalMachine();
  const awaits = awaitsMachine();
  let moto: Run[];
  let local: Run[];
  let motoAwaits: Run[];
  let localAwaits: Run[];

  beforeAll(async () => {
    [[moto, motoAwaits], local, localAwaits] = await Promise.all([
      runInMoto([
        { definition, scenarios: SCENARIOS },
        { definition: awaits, scenarios: AWAITS_SCENARIOS },
      ]),
      Promise.all(SCENARIOS.map((scenario) => runLocally(definition, scenario))),
      Promise.all(AWAITS_SCENARIOS.map((scenario) => runLocally(awaits, scenario))),
    ]);
  }, 120_000);

  /** What both say alike; what moto departs from the documents in is left to `asDocuments`. */
  const compared = (run: Run) => ({ status: run.status, output: run.output, error: run.error, states: run.states, payloads: run.payloads, tokenGiven: run.tokenGiven });

  test.each(SCENARIOS.map((scenario, index) => [scenario.name, index] as const))('%s: the same outcome, states and Payload', (_, index) => {
    expect(compared(local[index]!)).toEqual(compared(moto[index]!));
  });

  test.each(AWAITS_SCENARIOS.map((scenario, index) => [scenario.name, index] as const))('%s: the same outcome, states and Payload', (_, index) => {
    expect(compared(localAwaits[index]!)).toEqual(compared(motoAwaits[index]!));
  });

  test('approved and needed: FinishApproval is told the step and its build, and the result is the decision', () => {
    expect(local[3]).toMatchObject({ status: 'SUCCEEDED', output: APPROVED, states: ['AwaitApproval', 'ReportDecision', 'ApprovalNeeded', 'FinishApproval'] });
    expect(local[3]!.payloads[2]).toEqual({ task: 'finish-approval', build: { id: 'gh-acme-web-42' }, namespace: 'step-runner', settings: input(30).settings, step: input(30, { needed: true }).step });
  });

  test('a step waiting for approvals: answered, it goes on to wait for its other needs, its state as it was', () => {
    expect(localAwaits.map((run) => [run.status, run.states])).toEqual([['SUCCEEDED', ['AwaitApprovedNeeds', 'WaitForNeeds']]]);
    expect(localAwaits[0]!.output).toEqual(awaiting());
    expect(localAwaits[0]!.payloads).toEqual([{ task: 'await-approved-needs', build: { id: 'gh-acme-web-42' }, namespace: 'step-runner', step: awaiting().step, index: 1, taskToken: '<token>' }]);
  });

  test('approved: the SendTaskSuccess output is the result, the Payload has the token and the step; ReportDecision is handed the result as it is', () => {
    expect(local[0]).toMatchObject({ status: 'SUCCEEDED', output: APPROVED, states: ['AwaitApproval', 'ReportDecision', 'ApprovalNeeded', 'StepEnded'] });
    const executionArn = expect.stringContaining('callback:approved') as string;
    expect(local[0]!.payloads).toEqual([
      { build: { id: 'gh-acme-web-42' }, namespace: 'step-runner', index: 1, step: input(30).step, executionArn, taskToken: '<token>' },
      { build: { id: 'gh-acme-web-42' }, outcome: 'progress', executionArn, settings: input(30).settings, decided: APPROVED },
    ]);
  });

  test('rejected: the SendTaskFailure error, and its cause (as the documents say; moto drops it)', () => {
    expect(local[1]).toMatchObject({ status: 'FAILED', error: 'ApprovalRejected', cause: REJECTED.cause });
    expect(moto[1]).toMatchObject({ error: 'ApprovalRejected', cause: null });
  });

  test('timed out: States.Timeout caught, ApprovalTimedOut with the same Cause on both', () => {
    const cause = 'Nobody approved or rejected step "production" within its approval timeout (1 s).';
    expect(local[2]).toMatchObject({ status: 'FAILED', error: 'ApprovalTimedOut', cause, states: ['AwaitApproval', 'ApprovalTimedOut', 'StepFailed'] });
    expect(moto[2]!.cause).toBe(cause);
  });

  test("a token whose task has ended answers TaskTimedOut (as the documents say; moto's InvalidToken)", () => {
    expect(local.map((run) => run.afterEnd)).toEqual(['TaskTimedOut', 'TaskTimedOut', 'TaskTimedOut', 'TaskTimedOut']);
    expect(moto.map((run) => run.afterEnd)).toEqual(['InvalidToken', 'InvalidToken', 'InvalidToken', 'InvalidToken']);
  });
});

describeRequiring("the deployed webhook answers an approval waiting in moto's Step Functions", motoServerInstalled, () => {
  const APP_ID = '2';
  const INSTALLATION = 7070;
  const TOKEN = 'ghs_motoApprovalInstallationToken07';
  const WEBHOOK_SECRET = 'moto-approval-webhook-secret-11';
  const PRIVATE_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  // Pushed by octocat, who may not approve their own change.
  const approvalInput = { ...input(300), build: { id: 'gh-acme-web-42', pushedBy: 'octocat' }, step: { name: 'production', approval: { message: 'Ship?', approvers: { users: [], teams: [], permission: 'maintain' }, selfApproval: false, timeoutSeconds: 300 } } };
  const secretsManager = mockClient(SecretsManagerClient);
  let moto: MotoServer;
  let github: FakeGitHub;
  let sfn: SFNClient;
  let repository: string;
  const motoClientConfig = () => ({ endpoint: moto.endpoint, region: MOTO_REGION, credentials: MOTO_CREDENTIALS });

  beforeAll(async () => {
    for (const stream of [process.stdout, process.stderr]) jest.spyOn(stream, 'write').mockImplementation(() => true);
    const values: Record<string, string> = { 'ci/github-app-key': PRIVATE_KEY, 'ci/github-webhook': WEBHOOK_SECRET };
    secretsManager.on(GetSecretValueCommand).callsFake(async (asked: { SecretId: string }) => ({ SecretString: values[asked.SecretId], Name: asked.SecretId }));
    [moto, github] = await Promise.all([startMotoServer(), startFakeGitHub()]);
    github.installations.set(INSTALLATION, { token: TOKEN });
    sfn = new SFNClient(motoClientConfig());
    repository = String((checkRun('requested_action').repository as { full_name: string }).full_name);
  }, 60_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    secretsManager.restore();
    clearCache();
    sfn?.destroy();
    await Promise.all([moto?.stop(), github?.close()]);
  });

  /**
   * An execution of the approval states, once moto has scheduled its callback task: the only one of
   * a fresh moto (a second execution makes moto deep-copy the first's locks, as
   * moto-sfn/run_callback.py says, and its server answers 500), told to run definitions, its Lambda
   * functions answering without Docker (design.md).
   */
  async function waitingExecution(name: string): Promise<{ executionArn: string; machineArn: string }> {
    const post = (path: string, body: unknown) => fetch(`${moto.endpoint}/moto-api/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await post('reset', {});
    await post('config', { stepfunctions: { execute_state_machine: true }, lambda: { use_docker: false } });
    const role = (await new IAMClient(motoClientConfig()).send(new CreateRoleCommand({ RoleName: 'step-runner', AssumeRolePolicyDocument: '{}' }))).Role!.Arn!;
    for (const name of ['AwaitApprovalLambdaFunction', 'ReportStatusLambdaFunction']) {
      await new LambdaClient(motoClientConfig()).send(new CreateFunctionCommand({ FunctionName: name, Runtime: 'nodejs22.x', Role: role, Handler: 'index.handler', Code: { ZipFile: Buffer.from('stand-in') } }));
    }
    const machineArn = (await sfn.send(new CreateStateMachineCommand({ name: 'build', definition: JSON.stringify(approvalMachine()), roleArn: role }))).stateMachineArn!;
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: machineArn, name, input: JSON.stringify(approvalInput) }));
    for (;;) {
      const { events = [] } = await sfn.send(new GetExecutionHistoryCommand({ executionArn: executionArn! }));
      if (events.some((event) => event.type === 'TaskSubmitted')) return { executionArn: executionArn!, machineArn };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function ended(executionArn: string) {
    for (;;) {
      const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      if (described.status !== 'RUNNING') return described;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** GitHub's requested_action example, on this App's check run of the execution, clicked by `login`. */
  async function click({ executionArn, machineArn }: { executionArn: string; machineArn: string }, identifier: string, login: string, delivery: string) {
    const example = checkRun('requested_action') as Record<string, unknown> & { check_run: Record<string, unknown> & { app: Record<string, unknown> }; sender: Record<string, unknown> };
    const id = github.checkRuns.size + 1;
    github.checkRuns.set(id, { id, repository, name: 'step-runner', head_sha: String(example.check_run.head_sha), external_id: executionArn, details_url: null, status: 'in_progress', conclusion: null, started_at: null, completed_at: null, output: { title: 'Waiting', summary: 'Build running.', text: null }, annotations: [], bodies: [] });
    const payload = {
      ...example,
      check_run: { ...example.check_run, id, external_id: executionArn, app: { ...example.check_run.app, id: Number(APP_ID) } },
      requested_action: { identifier },
      sender: { ...example.sender, login },
      installation: { id: INSTALLATION },
    };
    const handler = createLambdaWebhookHandler(
      { STATE_MACHINE_ARN: machineArn, GITHUB_WEBHOOK_SECRET_ID: 'ci/github-webhook', GITHUB_API_URL: github.url, GITHUB_APP_ID: APP_ID, GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'ci/github-app-key' },
      sfn,
    );
    const answer = (await handler(await signedGitHubDelivery({ payload, secret: WEBHOOK_SECRET, event: 'check_run', delivery }), localLambdaContext('webhook'))) as APIGatewayProxyStructuredResultV2;
    return { status: answer.statusCode, json: JSON.parse(answer.body ?? 'null') as Record<string, unknown>, run: github.checkRuns.get(id)! };
  }

  test('someone below the permission is refused and the execution waits on; a maintainer approves: SendTaskSuccess with the step\'s result', async () => {
    const execution = await waitingExecution('approve-on-github');
    const { executionArn } = execution;
    github.roles.set(`${repository}:mallory`, 'write');
    const refused = await click(execution, 'approve:1', 'mallory', 'moto-click-1');
    expect([refused.status, refused.json.error]).toEqual([403, 'ApproverRefused']);
    expect(refused.run.output.text).toContain('> **Refused:** mallory is not among the approvers: anyone with maintain access.');
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
    // Another step's button names nothing that waits.
    github.roles.set(`${repository}:hubot`, 'maintain');
    expect((await click(execution, 'approve:2', 'hubot', 'moto-click-2')).status).toBe(409);

    const approved = await click(execution, 'approve:1', 'hubot', 'moto-click-3');
    expect(approved).toMatchObject({ status: 200, json: { approved: 'production', by: 'hubot' } });
    // Not written here: the build's ReportDecision says who approved, whichever way they did.
    expect(approved.run.bodies).toEqual([]);
    const done = await ended(executionArn);
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output!)).toEqual({ step: 'production', status: 'succeeded', approval: { decision: 'approved', by: 'hubot', at: expect.stringMatching(/^\d{4}-/) as string, comment: null } });
    // Decided: the button again finds nothing waiting.
    expect((await click(execution, 'approve:1', 'hubot', 'moto-click-4')).json).toMatchObject({ error: 'ApprovalNotWaiting' });
    expect(github.refusedBodies).toEqual([]);
    expect(github.actionsLeftOut).toEqual([]);
  }, 60_000);

  test('the pusher may not decide (self-approval: false); Reject by another: SendTaskFailure, and the build fails ApprovalRejected', async () => {
    const execution = await waitingExecution('reject-on-github');
    const { executionArn } = execution;
    github.roles.set(`${repository}:octocat`, 'admin');
    const own = await click(execution, 'reject:1', 'octocat', 'moto-click-6');
    expect([own.status, own.json.message]).toEqual([403, 'octocat pushed this change, and this approval asks for someone else (self-approval: false); step "production" still waits.']);
    const rejected = await click(execution, 'reject:1', 'hubot', 'moto-click-5');
    expect(rejected).toMatchObject({ status: 200, json: { rejected: 'production', by: 'hubot' }, run: { actions: [], output: { title: 'Step "production" rejected by hubot' } } });
    expect(await ended(executionArn)).toMatchObject({ status: 'FAILED', error: 'ApprovalRejected' });
  }, 60_000);
});
