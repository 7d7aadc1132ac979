/**
 * What orchestrating steps costs, from the real definition in simulated time: state transitions
 * (every StateEntered, as Step Functions bills them), Lambda invocations and GB-seconds; and when,
 * in simulated time, each step's end is followed by the next step's pod (completion latency).
 *
 * The definition runs in aws-local-stepfunctions with WaitForStep overridden to 0 ms. Each Task is
 * bound to the real task code (lib/workflow/tasks) whose `now()` is a simulated clock, and whose
 * cluster is simulated-cluster.ts. The clock moves by exactly what the Wait state was told to
 * wait ($.poll.nextPollSeconds, read where the next PollStep receives it) plus an assumed Lambda
 * duration per invocation. So the real poll schedule and the real classifier decide every wait.
 */
import '../lib/emulators/stepfunctions/polyfills.js';
import { StateMachine } from 'aws-local-stepfunctions';
import { localLambdaArn as localArn } from '../lib/emulators/stepfunctions/executor.js';
import { loadDefinition, resolveResources, taskStates } from '../lib/workflow/definition.js';
import { lambdaFunctionTimeouts } from '../lib/emulators/lambda/lambda-functions.js';
import { WATCH_MARGIN_MS } from '../lib/workflow/handlers.js';
import { DEFAULT_RUNNING_WATCH_SECONDS, workflowSettings } from '../lib/workflow/settings.js';
import type { BuildInput } from '../lib/contract/index.js';
import { orchestrationDollars } from '../lib/workflow/cost-model.js';
import type { PollState, StepInput } from '../lib/workflow/state-data.js';
import type { TaskDeps, TaskLog } from '../lib/workflow/task-deps.js';
import { cleanupBuild } from '../lib/workflow/tasks/cleanup-build.js';
import { finishStep } from '../lib/workflow/tasks/finish-step.js';
import { launchStep } from '../lib/workflow/tasks/launch-step.js';
import { pollStep } from '../lib/workflow/tasks/poll-step.js';
import { waitForNeeds } from '../lib/workflow/tasks/wait-for-needs.js';
import { awaitRerun, type AwaitRerunInput } from '../lib/workflow/tasks/await-rerun.js';
import { prepareBuild } from '../lib/workflow/tasks/prepare-build.js';
import { awaitApproval, type AwaitApprovalInput } from '../lib/workflow/tasks/await-approval.js';
import { approvedResult } from '../lib/workflow/approval-decision.js';
import { callbackTaskCall, withLocalCallbacks } from '../lib/emulators/stepfunctions/callback-tasks.js';
import { TaskTokens } from '../lib/emulators/stepfunctions/task-tokens.js';
import { LAMBDA_WAIT_FOR_TASK_TOKEN } from '../lib/workflow/definition.js';
import { kubeStepCluster } from '../lib/kube/index.js';
import type { StatusRequest } from '../lib/contract/index.js';
import { reportStatus } from '../lib/workflow/tasks/report-status.js';
import { PendingFates, simulatedCluster, type PendingFate, type SimulatedPod, type StepTimeline } from './simulated-cluster.js';
import { SimulatedClock } from './simulated-clock.js';


export interface CostAssumptions {
  /** Every task function's memory (serverless.yml's provider default). */
  memoryMb: number;
  /** Billed duration of one task invocation, besides any watch (warm: a couple of Kubernetes API calls). */
  invocationSeconds: number;
  /** Created -> running. */
  pendingSeconds: number;
}

export const DEFAULT_ASSUMPTIONS: CostAssumptions = { memoryMb: 256, invocationSeconds: 0.2, pendingSeconds: 5 };

/**
 * How a running step is polled. `watch`: as deployed (a bounded watch on the running pod, the next
 * poll at once, for the step's first runningWatchUntilSeconds; the schedule after); `schedule`:
 * runningWatchSeconds 0, the doubling schedule up to one poll a minute (the pending watch stays);
 * `fixed5s`: no watch at all, a poll every 5 s.
 */
export type Design = 'watch' | 'schedule' | 'fixed5s';
export const DESIGNS: readonly Design[] = ['watch', 'schedule', 'fixed5s'];

/** A design, possibly with other settings than the deployed ones (what-ifs), passed through the deployment's settings. */
export interface Variant {
  label: string;
  design: Design;
  /** `watch` only: the running watch's length (default DEFAULT_RUNNING_WATCH_SECONDS). */
  runningWatchSeconds?: number;
  /** `watch` only: no running watch once the step has run this long (default DEFAULT_RUNNING_WATCH_UNTIL_SECONDS). */
  runningWatchUntilSeconds?: number;
  /** PollStep's memory alone (default: assumptions.memoryMb, as every function). */
  pollMemoryMb?: number;
}

export const variant = (design: Design): Variant => ({ label: design, design });

export interface SimulatedBuild {
  transitions: number;
  invocations: number;
  polls: number;
  /** Seconds PollStep spent inside watches. */
  watchedSeconds: number;
  gbSeconds: number;
  dollars: number;
  status: string;
  /** The step pods in order of creation, in simulated ms. */
  pods: SimulatedPod[];
  /** Simulated seconds from the start to the end of the execution. */
  seconds: number;
  /** Simulated seconds since the start at which each PollStep ran. */
  pollTimes: number[];
  /** The Error the execution ended with (a scenario's), if it failed. */
  error?: string;
  /** With an approval: what ran between its wait's start (its task's invocation returned) and its end (the decision). */
  duringWait?: { transitions: number; invocations: number };
}

export interface OrchestrationCost extends Omit<SimulatedBuild, 'pods' | 'seconds' | 'pollTimes'> {
  stepMinutes: number;
  schedule: string;
}

const silent: TaskLog = { info: () => undefined, warn: () => undefined } as unknown as TaskLog;

/** What PollStep may watch in a fresh invocation, as its handler computes it (pollStepHandler). */
const POLL_MAX_WATCH_MS = lambdaFunctionTimeouts.pollStep! * 1000 - WATCH_MARGIN_MS;

const pipelineText = (stepSeconds: readonly number[], approval: boolean) =>
  `version: 1\nsteps:\n${stepSeconds
    .map((_, i) => `${approval && i === 1 ? '  - name: production\n    approval: {message: Ship?, timeout: 48h}\n' : ''}  - name: work-${i}\n    image: alpine:3.20\n    timeout: 2h\n    commands: [make]\n`)
    .join('')}`;

let builds = 0;

/**
 * One build whose steps run `stepSeconds` each (after `pendingSeconds` pending), through the real
 * definition and task code in simulated time, polled as `v` says.
 */
export async function simulateBuild(
  v: Variant,
  stepSeconds: readonly number[],
  assumptions: CostAssumptions = DEFAULT_ASSUMPTIONS,
  /** Every pod meets this fate (simulated-cluster.ts), and the build must end with this Error. */
  scenario?: { fate: PendingFate; error: string },
  /** An approval step after the first step, approved this many simulated seconds after its wait starts. */
  approval?: { waitSeconds: number },
): Promise<SimulatedBuild> {
  const clock = new SimulatedClock();
  const startedAt = clock.now().getTime();
  const pollTimes: number[] = [];
  const timelines: StepTimeline[] = stepSeconds.map((runningSeconds) => ({ pendingSeconds: assumptions.pendingSeconds, runningSeconds, ...(scenario ? { fate: scenario.fate } : {}) }));
  const cluster = simulatedCluster(clock, timelines);
  // As deployed (PrepareBuild passes these to every step), but for what the design changes.
  const config = workflowSettings({
    namespace: 'default',
    imagePullGraceSeconds: 60,
    unschedulableGraceSeconds: 120,
    runningWatchSeconds: v.design === 'watch' ? (v.runningWatchSeconds ?? DEFAULT_RUNNING_WATCH_SECONDS) : 0,
    ...(v.runningWatchUntilSeconds !== undefined ? { runningWatchUntilSeconds: v.runningWatchUntilSeconds } : {}),
  });
  const deps: TaskDeps = {
    cluster: kubeStepCluster(async () => cluster.api),
    // The fixed 5-second baseline is plain polling, as a runner without a watch would do.
    ...(v.design !== 'fixed5s' ? { watchPod: cluster.watchPod } : {}),
    // No live log is followed in simulated time (no followLog): FinishStep stores each log whole.
    logs: {
      put: async (build, step) => `sim://${build}/${step}.log`,
      putPart: async (build, step) => `sim://${build}/${step}.log.parts/`,
      liveLocation: (build, step) => `sim://${build}/${step}.log.parts/`,
      complete: async (build, step) => ({ location: `sim://${build}/${step}.log`, tail: '' }),
      partEveryMs: 10_000,
      putResult: async () => {},
      results: async () => [],
    },
    now: () => clock.now(),
    log: silent,
  };
  // The fixed schedule changes nothing but the wait the poll asks for.
  const fixed = (poll: PollState): PollState =>
    v.design === 'fixed5s' && (poll.phase === 'pending' || poll.phase === 'running') ? { ...poll, nextPollSeconds: 5 } : poll;

  let invocations = 0;
  let pollInvocations = 0;
  let polls = 0;
  const byFunction: Record<string, (input: never) => Promise<unknown>> = {
    // The definition hands PrepareBuild the input beside the execution's ARN (superseding, which the simulation has none of).
    PrepareBuildLambdaFunction: async (given: { input: BuildInput }) => prepareBuild(given.input, config, deps),
    LaunchStepLambdaFunction: async (input: StepInput) => fixed(await launchStep(input, deps)),
    PollStepLambdaFunction: async (input: StepInput) => {
      // WaitForStep waited exactly what the previous poll (or the launch) asked for; when that was
      // 0 s the definition skips the Wait (StepStatus -> PollStep), which waits 0 s all the same.
      clock.advance(input.poll!.nextPollSeconds);
      pollTimes.push((clock.now().getTime() - startedAt) / 1000);
      polls++;
      pollInvocations++;
      // The deployment's settings reach PollStep through PrepareBuild and the Map, or the figures are of something else.
      if (input.settings.runningWatchUntilSeconds !== config.runningWatchUntilSeconds || input.settings.runningWatchSeconds !== config.runningWatchSeconds) {
        throw new Error(`PollStep got runningWatchSeconds ${input.settings.runningWatchSeconds}, runningWatchUntilSeconds ${input.settings.runningWatchUntilSeconds}; the deployment says ${config.runningWatchSeconds}, ${config.runningWatchUntilSeconds}`);
      }
      return fixed(await pollStep(input, deps, { maxWatchMs: POLL_MAX_WATCH_MS }));
    },
    // The simulated pipelines say no `needs`: bound so that every Task state of the definition is.
    WaitForNeedsLambdaFunction: async (input: StepInput) => waitForNeeds(input, deps),
    FinishStepLambdaFunction: async (input: StepInput) => finishStep(input, deps),
    // A simulated build succeeds, so it never reaches AwaitRerun: bound so that every Task state is.
    AwaitRerunLambdaFunction: async (input: AwaitRerunInput) => awaitRerun(input),
    // The real task, its token kept by a stand-in for the Secret; approved `waitSeconds` later (approval builds only).
    AwaitApprovalLambdaFunction: async (input: AwaitApprovalInput) => {
      if (!approval) throw new Error('this simulated pipeline has no approval step');
      const kept = { storeApprovalToken: async () => 'token-secret' } as unknown as TaskDeps['cluster'];
      const waiting = await awaitApproval(input, { cluster: kept, log: silent });
      // Once the invocation has returned, as a person decides later: the day passes in simulated time.
      setImmediate(() => {
        wait = { transitions, invocations };
        clock.advance(approval.waitSeconds);
        tokens.sendTaskSuccess(input.taskToken, JSON.stringify(approvedResult(input.step.name, 'octocat', clock.now())));
      });
      return waiting;
    },
    // The simulated pipelines say no `needs`, so no step needs the approval: bound so that every Task state is.
    ApprovalWaitsLambdaFunction: async () => {
      throw new Error('no step of a simulated pipeline needs its approval');
    },
    CleanupBuildLambdaFunction: async (input: { build: { id: string }; namespace?: string }) => cleanupBuild(input, config.namespace, deps),
    ReportStatusLambdaFunction: async (input: StatusRequest) =>
      reportStatus(input, { reporter: { report: async () => ({ posted: false, reason: 'benchmark' }) }, log: silent }),
  };

  // A task that throws is retried in real time and may be caught: the figures would be something else.
  const taskErrors: string[] = [];
  const definition = loadDefinition();
  const name = `bench-${v.label.replace(/[^a-z0-9-]/gi, '-')}-${++builds}`.toLowerCase();
  const executionArn = `arn:aws:states:us-east-1:000000000000:execution:build:${name}`;
  // The callback pattern as the local executor runs it (callback-tasks.ts): the token, then the wait for its answer.
  const tokens = new TaskTokens();
  let transitions = 0;
  let wait: { transitions: number; invocations: number } | undefined;
  let duringWait: { transitions: number; invocations: number } | undefined;
  const handlers: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const { state, functionId } of taskStates(definition)) {
    const task = byFunction[functionId];
    if (!task) throw new Error(`the benchmark has no binding for ${functionId} (Task state ${state})`);
    const invoke = async (input: unknown) => {
      invocations++;
      const output = await task(input as never).catch((error: unknown) => {
        taskErrors.push(`${state}: ${(error as Error).message}`);
        throw error;
      });
      clock.advance(assumptions.invocationSeconds);
      return output;
    };
    const callback = findState(definition, state)?.Resource === LAMBDA_WAIT_FOR_TASK_TOKEN;
    handlers[state] = callback
      ? async (parameters) => {
          const result = await callbackTaskCall(parameters).run(invoke, tokens, executionArn);
          if (wait) duringWait = { transitions: transitions - wait.transitions, invocations: invocations - wait.invocations };
          return result;
        }
      : invoke;
  }

  const machine = new StateMachine(resolveResources(withLocalCallbacks(definition), localArn) as never, {
    validationOptions: { checkPaths: true, checkArn: true },
  });
  const input: BuildInput = {
    build: { id: name, trigger: 'benchmark' },
    withoutSource: 'the benchmark measures its steps',
    pipeline: { file: 'bench.yml', text: pipelineText(stepSeconds, approval !== undefined) },
  };
  const execution = machine.run(input as never, {
    overrides: { taskResourceLocalHandlers: handlers as never, waitTimeOverrides: { WaitForStep: 0 } },
    // aws-local-stepfunctions fills $$.Execution only with what it is given.
    context: { Execution: { Id: executionArn, Name: name, Input: input as never, StartTime: clock.now().toISOString(), RedriveCount: 0 } },
    noThrowOnAbort: true,
  });
  let status = 'RUNNING';
  let failure: unknown;
  let error: string | undefined;
  for await (const event of execution.eventLogs as AsyncGenerator<{ type: string; Error?: string; Cause?: unknown }>) {
    if (event.type === 'StateEntered') transitions++;
    if (event.type === 'ExecutionSucceeded') status = 'SUCCEEDED';
    if (event.type === 'ExecutionFailed') {
      status = 'FAILED';
      error = event.Error;
      failure = `${event.Error}: ${String(event.Cause)}`;
    }
  }
  await execution.result.catch(() => undefined);
  // A build that did not end as meant measured something else than the polling of a step.
  if (scenario ? error !== scenario.error : status !== 'SUCCEEDED') throw new Error(`the simulated build did not ${scenario ? `fail with ${scenario.error}` : 'succeed'}: ${String(failure ?? status)}`);
  if (taskErrors.length > 0) throw new Error(`a simulated task failed (the simulated cluster lacks what the task code now calls?): ${taskErrors.join('; ')}`);

  // Watch time is billed Lambda time too, at PollStep's memory.
  const watchedSeconds = cluster.watchedSeconds();
  const pollGb = (v.pollMemoryMb ?? assumptions.memoryMb) / 1024;
  const otherGb = assumptions.memoryMb / 1024;
  const gbSeconds =
    (pollInvocations * assumptions.invocationSeconds + watchedSeconds) * pollGb + (invocations - pollInvocations) * assumptions.invocationSeconds * otherGb;
  const seconds = (clock.now().getTime() - startedAt) / 1000;
  if (approval && !duringWait) throw new Error('the simulated build never waited for its approval');
  return { transitions, invocations, polls, watchedSeconds, gbSeconds, dollars: dollarsOf(transitions, invocations, gbSeconds), status, pods: cluster.pods(), seconds, pollTimes, ...(error ? { error } : {}), ...(duringWait ? { duringWait } : {}) };
}

/** A Task state of the definition or of a Map's iterations, by name. */
function findState(machine: ReturnType<typeof loadDefinition>, name: string): { Resource?: unknown } | undefined {
  for (const [stateName, state] of Object.entries(machine.States)) {
    if (stateName === name) return state;
    const inner = state.ItemProcessor ? findState(state.ItemProcessor, name) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

export interface ApprovalWaitCost {
  waitSeconds: number;
  /** The whole build: a 1-minute step, the approval, a 1-minute step. */
  transitions: number;
  invocations: number;
  /** Between the wait's start (AwaitApproval's invocation returned) and the decision. */
  duringWait: { transitions: number; invocations: number };
  /** The same two steps without the approval: the difference is the approval's whole cost. */
  withoutApproval: { transitions: number; invocations: number };
}

/**
 * What a waiting approval costs (issue 40: "a waiting approval costs nothing per hour"): a build of
 * a step, an approval decided `waitSeconds` after its wait starts, and a step, in simulated time.
 */
export async function approvalWaitCost(waitSeconds: number, assumptions: CostAssumptions = DEFAULT_ASSUMPTIONS): Promise<ApprovalWaitCost> {
  const build = await simulateBuild(variant('watch'), [60, 60], assumptions, undefined, { waitSeconds });
  const without = await simulateBuild(variant('watch'), [60, 60], assumptions);
  return { waitSeconds, transitions: build.transitions, invocations: build.invocations, duringWait: build.duringWait!, withoutApproval: { transitions: without.transitions, invocations: without.invocations } };
}

/** The runner's own cost model (lib/workflow/cost-model.ts), at its default prices, on arm64 as deployed. */
const dollarsOf = (transitions: number, invocations: number, gbSeconds: number) => orchestrationDollars(transitions, invocations, gbSeconds, 'arm64');

/** One build with one step that runs `stepMinutes`. */
export async function orchestrationCost(stepMinutes: number, v: Variant, assumptions: CostAssumptions = DEFAULT_ASSUMPTIONS): Promise<OrchestrationCost> {
  const { pods: _pods, seconds: _seconds, pollTimes: _pollTimes, ...build } = await simulateBuild(v, [stepMinutes * 60], assumptions);
  return { stepMinutes, schedule: v.label, ...build };
}

export interface StepHourCost extends Omit<SimulatedBuild, 'status' | 'pods' | 'seconds' | 'pollTimes' | 'error'> {
  label: string;
  pollMemoryMb: number;
}

/**
 * What one hour of a running step costs, for a step that runs `stepSeconds` (default an hour): a
 * build whose step runs that long less the same build whose step exits the moment it starts
 * (pending, launch, finish and the build's own states cancel out), times 3600 / `stepSeconds`.
 * So for a 20 s step it is what 180 such steps cost in their running time.
 */
export async function costPerStepHour(v: Variant, assumptions: CostAssumptions = DEFAULT_ASSUMPTIONS, stepSeconds = 3600): Promise<StepHourCost> {
  const step = await simulateBuild(v, [stepSeconds], assumptions);
  const none = await simulateBuild(v, [0], assumptions);
  const scale = 3600 / stepSeconds;
  const transitions = (step.transitions - none.transitions) * scale;
  const invocations = (step.invocations - none.invocations) * scale;
  const gbSeconds = (step.gbSeconds - none.gbSeconds) * scale;
  return {
    label: v.label,
    pollMemoryMb: v.pollMemoryMb ?? assumptions.memoryMb,
    transitions,
    invocations,
    polls: (step.polls - none.polls) * scale,
    watchedSeconds: (step.watchedSeconds - none.watchedSeconds) * scale,
    gbSeconds,
    dollars: dollarsOf(transitions, invocations, gbSeconds),
  };
}

/**
 * Completion latency in simulated time: a two-step build whose first step runs `seconds`; from
 * that pod's simulated end to the simulated moment the second step's pod is created.
 */
export async function simulatedCompletionLatencyMs(v: Variant, seconds: number, assumptions: CostAssumptions = DEFAULT_ASSUMPTIONS): Promise<number> {
  const { pods } = await simulateBuild(v, [seconds, 1], assumptions);
  if (pods.length < 2) throw new Error(`the simulated build created ${pods.length} pod(s), not 2`);
  return pods[1]!.createdAt - pods[0]!.endsAt;
}

/** What a build whose one pod never runs costs until it ends, and how its polls were spaced. */
export interface PendingFateCost {
  fate: PendingFate;
  error: string;
  /** Simulated seconds from the start to the build's end. */
  seconds: number;
  transitions: number;
  invocations: number;
  polls: number;
  gbSeconds: number;
  dollars: number;
  /** The shortest and the longest simulated wait between two polls of the step. */
  pollGapSeconds: { min: number; max: number };
}

/** The Error each fate ends the build with, at the deployment's defaults. */
const FATE_ERRORS: Record<PendingFate, string> = {
  [PendingFates.neverScheduled]: 'PodStalled',
  [PendingFates.pullNotFound]: 'ImagePullFailed',
  [PendingFates.pullRateLimited]: 'ImagePullFailed',
};

/**
 * A one-step build whose pod never runs (`fate`, simulated-cluster.ts), as deployed (the pending
 * watch, the default pending-timeout and pull grace): what it costs until the build ends FAILED.
 * The pull's failure comes 2 s after the pod's creation.
 */
export async function pendingFateCost(fate: PendingFate, assumptions: CostAssumptions = DEFAULT_ASSUMPTIONS): Promise<PendingFateCost> {
  const build = await simulateBuild(variant('watch'), [60], { ...assumptions, pendingSeconds: 2 }, { fate, error: FATE_ERRORS[fate] });
  const gaps = build.pollTimes.slice(1).map((t, i) => t - build.pollTimes[i]!);
  return {
    fate,
    error: build.error!,
    seconds: Math.round(build.seconds),
    transitions: build.transitions,
    invocations: build.invocations,
    polls: build.polls,
    gbSeconds: build.gbSeconds,
    dollars: build.dollars,
    pollGapSeconds: gaps.length > 0 ? { min: Math.min(...gaps), max: Math.max(...gaps) } : { min: 0, max: 0 },
  };
}
