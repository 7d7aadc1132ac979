/**
 * What orchestrating one step costs, from the real definition in simulated time: state
 * transitions (every StateEntered, as Step Functions bills them), Lambda invocations and GB-seconds.
 *
 * The definition runs in aws-local-stepfunctions with WaitForStep overridden to 0 ms. Each Task is
 * bound to the real task code (lib/workflow/tasks) whose `now()` is a simulated clock, and whose
 * cluster is simulated-cluster.ts. The clock moves by exactly what the Wait state was told to
 * wait ($.poll.nextPollSeconds, read where the next PollStep receives it) plus an assumed Lambda
 * duration per invocation. So the real poll schedule and the real classifier decide every wait.
 */
import '../lib/local/polyfills.js';
import { StateMachine } from 'aws-local-stepfunctions';
import { localLambdaArn as localArn } from '../lib/local/executor.js';
import { loadDefinition, resolveResources, taskStates } from '../lib/workflow/definition.js';
import { workflowSettings } from '../lib/workflow/settings.js';
import type { BuildInput } from '../lib/contract/index.js';
import type { PollState, StepInput } from '../lib/workflow/state-data.js';
import type { TaskDeps, TaskLog } from '../lib/workflow/task-deps.js';
import { cleanupBuild } from '../lib/workflow/tasks/cleanup-build.js';
import { finishStep } from '../lib/workflow/tasks/finish-step.js';
import { launchStep } from '../lib/workflow/tasks/launch-step.js';
import { pollStep } from '../lib/workflow/tasks/poll-step.js';
import { prepareBuild } from '../lib/workflow/tasks/prepare-build.js';
import type { StatusRequest } from '../lib/contract/index.js';
import { reportStatus } from '../lib/workflow/tasks/report-status.js';
import { simulatedCluster, type StepTimeline } from './simulated-cluster.js';
import { SimulatedClock } from './simulated-clock.js';

/** AWS list prices (us-east-1): Standard workflows and Lambda on arm64. */
export const PRICES = {
  perTransition: 0.025 / 1000,
  perInvocation: 0.2 / 1_000_000,
  perGbSecondArm: 0.0000133334,
};

export interface CostAssumptions {
  memoryMb: number;
  /** Billed duration of one task invocation (warm: a couple of Kubernetes API calls). */
  invocationSeconds: number;
  /** Created -> running. */
  pendingSeconds: number;
}

export const DEFAULT_ASSUMPTIONS: CostAssumptions = { memoryMb: 256, invocationSeconds: 0.2, pendingSeconds: 5 };

export interface OrchestrationCost {
  stepMinutes: number;
  schedule: 'adaptive' | 'fixed5s';
  transitions: number;
  invocations: number;
  polls: number;
  gbSeconds: number;
  dollars: number;
  status: string;
}

const silent: TaskLog = { info: () => undefined, warn: () => undefined } as unknown as TaskLog;

// As deployed: PollStep watches a pending pod (in simulated time, see simulated-cluster.ts).
const CONFIG = workflowSettings({ namespace: 'default', imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120 });

/** One build with one step that runs `stepMinutes`, polled by the real schedule or every 5 s. */
export async function orchestrationCost(
  stepMinutes: number,
  schedule: 'adaptive' | 'fixed5s',
  assumptions: CostAssumptions = DEFAULT_ASSUMPTIONS,
): Promise<OrchestrationCost> {
  const clock = new SimulatedClock();
  const timeline: StepTimeline = { pendingSeconds: assumptions.pendingSeconds, runningSeconds: stepMinutes * 60 };
  const cluster = simulatedCluster(clock, timeline);
  const deps: TaskDeps = {
    kube: async () => cluster.api,
    // The fixed 5-second baseline is plain polling, as a runner without a watch would do.
    ...(schedule === 'adaptive' ? { watchPod: cluster.watchPod } : {}),
    // No live log is followed in simulated time (no followLog): FinishStep stores each log whole.
    logs: {
      put: async (build, step) => `sim://${build}/${step}.log`,
      putPart: async (build, step) => `sim://${build}/${step}.log.parts/`,
      liveLocation: (build, step) => `sim://${build}/${step}.log.parts/`,
      complete: async (build, step) => ({ location: `sim://${build}/${step}.log`, tail: '' }),
      partEveryMs: 10_000,
    },
    now: () => clock.now(),
    log: silent,
  };
  // The fixed schedule changes nothing but the wait the poll asks for.
  const fixed = (poll: PollState): PollState =>
    schedule === 'fixed5s' && (poll.phase === 'pending' || poll.phase === 'running') ? { ...poll, nextPollSeconds: 5 } : poll;

  let invocations = 0;
  let polls = 0;
  const byFunction: Record<string, (input: never) => Promise<unknown>> = {
    PrepareBuildLambdaFunction: async (input: BuildInput) => prepareBuild(input, CONFIG, deps),
    LaunchStepLambdaFunction: async (input: StepInput) => fixed(await launchStep(input, deps)),
    PollStepLambdaFunction: async (input: StepInput) => {
      // WaitForStep waited exactly what the previous poll (or the launch) asked for.
      clock.advance(input.poll!.nextPollSeconds);
      polls++;
      return fixed(await pollStep(input, deps));
    },
    FinishStepLambdaFunction: async (input: StepInput) => finishStep(input, deps),
    CleanupBuildLambdaFunction: async (input: { build: { id: string }; namespace?: string }) => cleanupBuild(input, CONFIG.namespace, deps),
    ReportStatusLambdaFunction: async (input: StatusRequest) =>
      reportStatus(input, { reporter: { report: async () => ({ posted: false, reason: 'benchmark' }) }, log: silent }),
  };

  const definition = loadDefinition();
  const handlers: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const { state, functionId } of taskStates(definition)) {
    const task = byFunction[functionId];
    if (!task) throw new Error(`the benchmark has no binding for ${functionId} (Task state ${state})`);
    handlers[state] = async (input) => {
      invocations++;
      const output = await task(input as never);
      clock.advance(assumptions.invocationSeconds);
      return output;
    };
  }

  const machine = new StateMachine(resolveResources(definition, localArn) as never, {
    validationOptions: { checkPaths: true, checkArn: true },
  });
  const name = `bench-${stepMinutes}m-${schedule}`.toLowerCase();
  const input: BuildInput = {
    build: { id: name, trigger: 'benchmark' },
    withoutSource: 'the benchmark measures its steps',
      pipeline: {
        file: 'bench.yml',
      text: `version: 1\nsteps:\n  - name: work\n    image: alpine:3.20\n    timeout: 2h\n    commands: [make]\n`,
    },
  };
  const execution = machine.run(input as never, {
    overrides: { taskResourceLocalHandlers: handlers as never, waitTimeOverrides: { WaitForStep: 0 } },
    // aws-local-stepfunctions fills $$.Execution only with what it is given.
    context: { Execution: { Id: `arn:aws:states:us-east-1:000000000000:execution:build:${name}`, Name: name, Input: input as never, StartTime: clock.now().toISOString() } },
    noThrowOnAbort: true,
  });
  let transitions = 0;
  let status = 'RUNNING';
  let failure: unknown;
  for await (const event of execution.eventLogs as AsyncGenerator<{ type: string; Error?: string; Cause?: unknown }>) {
    if (event.type === 'StateEntered') transitions++;
    if (event.type === 'ExecutionSucceeded') status = 'SUCCEEDED';
    if (event.type === 'ExecutionFailed') failure = `${event.Error}: ${String(event.Cause)}`;
  }
  await execution.result.catch(() => undefined);
  // A build that did not succeed measured something else than the polling of a step.
  if (status !== 'SUCCEEDED') throw new Error(`the simulated build did not succeed: ${String(failure)}`);

  // Watch time is billed Lambda time too.
  const gbSeconds = (invocations * assumptions.invocationSeconds + cluster.watchedSeconds()) * (assumptions.memoryMb / 1024);
  const dollars = transitions * PRICES.perTransition + invocations * PRICES.perInvocation + gbSeconds * PRICES.perGbSecondArm;
  return { stepMinutes, schedule, transitions, invocations, polls, gbSeconds, dollars, status };
}
