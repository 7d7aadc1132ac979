/**
 * The callback pattern (`.waitForTaskToken`) as the local executor runs it (callback-tasks.ts,
 * task-tokens.ts over aws-local-stepfunctions, which has none), held to moto's Step Functions
 * interpreter (LocalStack's, which implements SendTaskSuccess and SendTaskFailure): the definition's
 * own AwaitApproval, ApprovalTimedOut and StepFailed states, as a machine of their own, answered
 * with SendTaskSuccess, with SendTaskFailure, and not at all until its TimeoutSeconds pass. Both
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
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { StateMachine } from 'aws-local-stepfunctions';
import '../lib/emulators/stepfunctions/polyfills.js';
import { callbackTaskCall, withLocalCallbacks } from '../lib/emulators/stepfunctions/callback-tasks.js';
import { TaskTokens } from '../lib/emulators/stepfunctions/task-tokens.js';
import { loadDefinition, type AslDefinition } from '../lib/workflow/definition.js';
import { describeRequiring } from './fixtures/requirements.js';
import { motoLambdaArn, motoStepFunctionsInstalled } from './fixtures/moto-sfn.js';

const DRIVER = fileURLToPath(new URL('./fixtures/moto-sfn/run_callback.py', import.meta.url));
const STATES = ['AwaitApproval', 'ApprovalTimedOut', 'StepFailed'];

/** The definition's approval states as a machine of their own, its function in moto's account. */
function approvalMachine(): AslDefinition {
  const iteration = loadDefinition().States.RunSteps!.ItemProcessor!;
  const machine: AslDefinition = { StartAt: 'AwaitApproval', States: Object.fromEntries(STATES.map((name) => [name, structuredClone(iteration.States[name]!)])) };
  (machine.States.AwaitApproval!.Parameters as { FunctionName: unknown }).FunctionName = motoLambdaArn('AwaitApprovalLambdaFunction');
  return machine;
}

const input = (timeoutSeconds: number) => ({ build: { id: 'gh-acme-web-42' }, namespace: 'step-runner', index: 1, step: { name: 'production', approval: { selfApproval: true, timeoutSeconds } } });
const APPROVED = { step: 'production', status: 'succeeded', approval: { decision: 'approved', by: 'octocat', at: '2026-12-06T06:00:00.000Z', comment: 'ship it' } };
const REJECTED = { error: 'ApprovalRejected', cause: 'Step "production" was rejected by octocat: not on a Friday' };

type Answer = { success: string } | { failure: { error: string; cause: string } } | null;
interface Scenario {
  name: string;
  input: ReturnType<typeof input>;
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
];

async function runInMoto(definition: AslDefinition, scenarios: readonly Scenario[]): Promise<Run[]> {
  const child = spawn('python3', [DRIVER], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8000)));
  const closed = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  child.stdin.end(JSON.stringify({ definition, scenarios }));
  const code = await closed;
  if (code !== 0) throw new Error(`${DRIVER} exited with ${code}: ${stderr}`);
  return (JSON.parse(stdout) as { runs: Run[] }).runs;
}

/** The same scenario in aws-local-stepfunctions with the executor's callback pattern; the function answers as it is invoked. */
async function runLocally(definition: AslDefinition, scenario: Scenario): Promise<Run> {
  const tokens = new TaskTokens();
  const executionArn = `arn:aws:states:us-east-1:123456789012:execution:callback:${scenario.name}`;
  const payloads: Record<string, unknown>[] = [];
  let token = '';
  const invoke = async (payload: unknown) => {
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
    overrides: { taskResourceLocalHandlers: { AwaitApproval: async (parameters: unknown) => callbackTaskCall(parameters).run(invoke, tokens, executionArn) } as never },
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
    payloads: payloads.map((payload) => ({ ...payload, taskToken: '<token>' })),
    tokenGiven: token !== '',
    afterEnd,
  };
}

describeRequiring('the callback pattern in moto and in the local executor', motoStepFunctionsInstalled, () => {
  const definition = approvalMachine();
  let moto: Run[];
  let local: Run[];

  beforeAll(async () => {
    [moto, local] = await Promise.all([runInMoto(definition, SCENARIOS), Promise.all(SCENARIOS.map((scenario) => runLocally(definition, scenario)))]);
  }, 120_000);

  /** What both say alike; what moto departs from the documents in is left to `asDocuments`. */
  const compared = (run: Run) => ({ status: run.status, output: run.output, error: run.error, states: run.states, payloads: run.payloads, tokenGiven: run.tokenGiven });

  test.each(SCENARIOS.map((scenario, index) => [scenario.name, index] as const))('%s: the same outcome, states and Payload', (_, index) => {
    expect(compared(local[index]!)).toEqual(compared(moto[index]!));
  });

  test('approved: the SendTaskSuccess output is the result, the Payload has the token and the step', () => {
    expect(local[0]).toMatchObject({ status: 'SUCCEEDED', output: APPROVED, states: ['AwaitApproval'] });
    expect(local[0]!.payloads).toEqual([{ build: { id: 'gh-acme-web-42' }, namespace: 'step-runner', index: 1, step: input(30).step, executionArn: expect.stringContaining('callback:approved') as string, taskToken: '<token>' }]);
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
    expect(local.map((run) => run.afterEnd)).toEqual(['TaskTimedOut', 'TaskTimedOut', 'TaskTimedOut']);
    expect(moto.map((run) => run.afterEnd)).toEqual(['InvalidToken', 'InvalidToken', 'InvalidToken']);
  });
});
