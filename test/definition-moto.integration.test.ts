/**
 * The definition held to a second interpreter (issue 35). The local executor runs
 * state-machine.asl.yml in aws-local-stepfunctions; moto's Step Functions backend (LocalStack's
 * interpreter, written apart from it) runs the same definition. Every path that task results
 * decide is run through both with the same ordered script of results (an answer, or the error the
 * function throws), and what each says happened must be the same: the states entered in order,
 * the states exited with their output, each Map iteration's apart and how it ended, and the
 * execution's status, output, Error and Cause. Each scenario also says what a user sees of it.
 *
 * What this leaves to the documentation (moto cannot show it; test/fixtures/moto-sfn/run_definition.py
 * says what the driver changes in moto):
 * - Retry intervals, backoff and jitter, and TimeoutSeconds: neither side sleeps (the driver skips
 *   moto's sleeps, the executor runs with waitMs and retryMs 0), so only which retrier matches and
 *   how many attempts it allows are compared; state-machine-definition.test.ts and
 *   definition-failure-paths.test.ts hold the rest to the Amazon States Language spec.
 * - Redrive: moto has no RedriveExecution, so the re-run is compared up to the execution failing in
 *   AwaitRerun, with `$$.Execution.RedriveCount` 0 (moto's context object has none: the driver
 *   supplies 0, a first execution's value per "Context object" in the developer guide,
 *   https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html);
 *   step-retry-placement-builds.integration.test.ts covers the redrive itself.
 * - Map iterations side by side: moto's one results queue serves every function, so every scenario
 *   runs its Maps one iteration at a time (max-parallel 1, the pipeline's default), where the
 *   invocations come in a fixed order. Fail fast under max-parallel > 1 is
 *   needs-fail-fast.integration.test.ts's.
 * - A build another build supersedes is stopped by StopExecution from PrepareBuild: no task result
 *   decides that (superseded-builds.integration.test.ts); here, the path it takes when that stop
 *   could not be made.
 * - moto's mock-config loader (Step Functions Local's mocked responses) is a stub: the Lambda
 *   functions are moto's own, answering from the script.
 * Where the two differ, the AWS documentation decides; each difference moto is wrong about is a
 * documented exception below (asDocuments).
 */
import { startLocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import type { ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import type { ScriptedTask } from '../lib/emulators/stepfunctions/overrides.js';
import { checkoutStep } from '../lib/workflow/checkout-step.js';
import { iterationMaps, loadDefinition, resolveResources, taskStates } from '../lib/workflow/definition.js';
import type { CleanupResult, NeedsState, NotBuilt, PollState, PreparedBuild, StepResult } from '../lib/workflow/state-data.js';
import type { ErrorName, ExecutionInput, StatusReport } from '../lib/contract/index.js';
import type { Step } from '../lib/pipeline/types.js';
import type { TaskRuntime } from '../lib/workflow/task-deps.js';
import { describeRequiring } from './fixtures/requirements.js';
import { motoLambdaArn, motoStepFunctionsInstalled, runInMoto, type InterpretedRun, type MotoRun, type StatesPassed } from './fixtures/moto-sfn.js';
import { parseImageReference } from '../lib/pipeline/index.js';
import { executionUsage } from '../lib/emulators/stepfunctions/execution-cost.js';
import { historyUsage } from '../lib/workflow/history-usage.js';
import type { BuildUsage } from '../lib/workflow/cost-model.js';

const BUILD = { id: 'gh-acme-web-42', trigger: 'github push', repository: 'acme/web', commit: '0123456789abcdef0123456789abcdef01234567', ref: 'refs/heads/main', event: 'push' };
const INPUT: ExecutionInput = {
  build: BUILD,
  pipeline: { file: '.step-runner.yml', text: 'steps:\n  - name: test\n    image: node:22-alpine\n    commands: [npm test]\n' },
  source: { url: 'https://github.com/acme/web.git', commit: BUILD.commit, ref: BUILD.ref },
};
const NAMESPACE = 'step-runner';

const step = (name: string, extra: Partial<Step> = {}): Step => ({ name, image: 'node:22-alpine', imageRef: parseImageReference('node:22-alpine'), commands: [`npm run ${name}`], env: {}, pull: 'if-not-present', timeoutSeconds: 3600, secrets: [], ...extra });
const CLONE = checkoutStep({ url: INPUT.source!.url, commit: BUILD.commit, ref: BUILD.ref }, { depth: 1, submodules: false }, parseImageReference('alpine/git:2.47.2'));

/** PrepareBuild's output as prepare-build.ts shapes it: the checkout first, in a kept workspace claim. */
function prepared(steps: Step[], extra: Partial<PreparedBuild> = {}): PreparedBuild {
  return {
    build: BUILD,
    namespace: NAMESPACE,
    settings: {
      imagePullGraceSeconds: 120,
      unschedulableGraceSeconds: 600,
      pendingWatchSeconds: 20,
      runningWatchSeconds: 240,
      runningWatchUntilSeconds: 1800,
      workspace: { claimName: `workspace-${BUILD.id}` },
      checkoutStep: CLONE.name,
    },
    steps: [CLONE, ...steps],
    maxParallel: 1,
    pipelineFile: '.step-runner.yml',
    images: [],
    ...extra,
  };
}

const REPORTED: StatusReport = { posted: true, state: 'pending', description: 'Build running' };
const pod = (name: string) => `${BUILD.id}-${name}`;
const launched = (name: string): PollState => ({ podName: pod(name), launchedAt: '2026-12-06T00:00:00.000Z', runningSince: null, phase: 'pending', reason: 'ContainerCreating', nextPollSeconds: 2, polls: 0 });
const running = (name: string, nextPollSeconds: number): PollState => ({ ...launched(name), runningSince: '2026-12-06T00:00:03.000Z', phase: 'running', reason: 'Running', nextPollSeconds, polls: 1 });
const ended = (name: string): PollState => ({ ...running(name, 0), phase: 'succeeded', reason: 'Completed', exitCode: 0, nextPollSeconds: 0, polls: 2 });
const failedPoll = (name: string, error: ErrorName, cause: string): PollState => ({ ...running(name, 0), phase: 'failed', reason: 'Error', error, cause, exitCode: 1, polls: 2 });
const finished = (name: string): StepResult => ({ step: name, status: 'succeeded', exitCode: 0, error: null, cause: null, logTail: `${name} done\n`, log: `s3://step-runner-logs/${BUILD.id}/${name}.log` });
const finishedFailed = (name: string, error: ErrorName, cause: string, nextAttempt?: number): StepResult => ({
  ...finished(name),
  status: 'failed',
  exitCode: 1,
  error,
  cause,
  ...(nextAttempt !== undefined ? { nextAttempt } : {}),
});
const cleanedUp = (rerun?: Step[]): CleanupResult => ({ deletedPods: 1, deletedClaims: rerun ? 0 : 1, deletedSecrets: 0, ...(rerun ? { rerun: { steps: rerun, keptSeconds: 86_400 } } : {}) });
const needs = (met: boolean, waitingFor: string[], done: string[]): NeedsState => ({ met, done, waitingFor, nextPollSeconds: met ? 0 : 5, checks: 1 });

const answer = (state: string, result: unknown): ScriptedTask => ({ state, result });
/** The function throws: Step Functions sees its name as the Error, Lambda's JSON payload as the Cause. */
const thrown = (state: string, name: string, message: string): ScriptedTask => ({ state, error: { name, message } });
const UNREACHABLE = 'Kubernetes API unreachable: connect ETIMEDOUT 10.0.0.1:443';

/** One step's RunSteps iteration that succeeds: launched, polled (a watch, then a scheduled wait), finished, reported. */
const stepSucceeds = (name: string): ScriptedTask[] => [
  answer('LaunchStep', launched(name)),
  answer('PollStep', running(name, 0)),
  answer('PollStep', running(name, 10)),
  answer('PollStep', ended(name)),
  answer('FinishStep', finished(name)),
  answer('ReportProgress', REPORTED),
];
const stepFails = (name: string, error: ErrorName, cause: string, nextAttempt?: number): ScriptedTask[] => [
  answer('LaunchStep', launched(name)),
  answer('PollStep', failedPoll(name, error, cause)),
  answer('FinishFailedStep', finishedFailed(name, error, cause, nextAttempt)),
];
/** What follows a failed RunSteps when no step runs after the failure. */
const failureReported = (rerun?: Step[]): ScriptedTask[] => [answer('CleanupBuild', cleanedUp(rerun)), answer('ReportFailed', { ...REPORTED, state: 'failure' })];

interface Scenario {
  name: string;
  results: ScriptedTask[];
  /** What a user sees of the build, whatever the interpreters agree on. */
  expected: { status: 'SUCCEEDED' | 'FAILED'; error?: string; last: string };
}

const TEST = step('test');
/** Two combinations of a matrix with fail-fast: false. */
const KEEP_GOING = ['1', '2'].map((v) => step(`test-v-${v}`, { matrix: { of: 'test', values: { v }, failFast: false } }));
const STEP_FAILED_CAUSE = 'Step "test" exited with code 1 (npm run test)';

const POLL_ERRORS: { error: ErrorName; cause: string }[] = [
  { error: 'StepFailed', cause: STEP_FAILED_CAUSE },
  { error: 'ImagePullFailed', cause: 'Step "test": image node:22-alpine could not be pulled: manifest unknown' },
  { error: 'StepTimedOut', cause: 'Step "test" ran past its timeout of 60 min' },
  { error: 'Unschedulable', cause: 'Step "test": no node can run its pod: 0/3 nodes are available: 3 Insufficient cpu' },
];

const SCENARIOS: Scenario[] = [
  {
    name: 'a build that succeeds',
    results: [answer('PrepareBuild', prepared([TEST])), answer('ReportStarted', REPORTED), ...stepSucceeds(CLONE.name), ...stepSucceeds('test'), answer('CleanupSucceededBuild', cleanedUp()), answer('ReportSucceeded', REPORTED)],
    expected: { status: 'SUCCEEDED', last: 'BuildSucceeded' },
  },
  ...POLL_ERRORS.map(({ error, cause }): Scenario => ({
    name: `a poll that reports ${error}`,
    results: [answer('PrepareBuild', prepared([TEST])), answer('ReportStarted', REPORTED), ...stepSucceeds(CLONE.name), ...stepFails('test', error, cause), ...failureReported()],
    expected: { status: 'FAILED', error, last: 'BuildFailed' },
  })),
  {
    name: 'a step tried again (StepInterrupted with retry)',
    results: [
      answer('PrepareBuild', prepared([TEST])),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      ...stepFails('test', 'StepInterrupted', 'Step "test": its node was reclaimed (spot interruption)', 1),
      answer('LaunchStep', { ...launched('test'), podName: `${pod('test')}-1` }),
      answer('PollStep', ended('test')),
      answer('FinishStep', finished('test')),
      answer('ReportProgress', REPORTED),
      answer('CleanupSucceededBuild', cleanedUp()),
      answer('ReportSucceeded', REPORTED),
    ],
    expected: { status: 'SUCCEEDED', last: 'BuildSucceeded' },
  },
  {
    name: 'fail fast with needs: no step after the failed one starts',
    results: [
      answer('PrepareBuild', prepared([step('build', { needs: ['clone'] }), step('test', { needs: ['build'] }), step('lint', { needs: ['clone'] })], { maxParallel: 1 })),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      answer('WaitForNeeds', needs(false, ['clone'], [])),
      answer('WaitForNeeds', needs(true, [], ['clone'])),
      ...stepFails('build', 'StepFailed', 'Step "build" exited with code 2 (npm run build)'),
      ...failureReported(),
    ],
    expected: { status: 'FAILED', error: 'StepFailed', last: 'BuildFailed' },
  },
  {
    name: 'a combination of a fail-fast: false matrix that fails lets its sibling run and end; the step that needs them does not start; the build fails with its Error',
    results: [
      answer('PrepareBuild', prepared([...KEEP_GOING, step('report', { needs: KEEP_GOING.map((s) => s.name) })])),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      ...stepFails('test-v-1', 'StepFailed', 'Step "test-v-1" exited with code 1 (npm run test-v-1)'),
      ...stepSucceeds('test-v-2'),
      answer('WaitForNeeds', { ...needs(false, ['test-v-1'], ['test-v-2']), unmet: { step: 'test-v-1', reason: 'it needs "test-v-1", which failed' } }),
      ...failureReported(),
    ],
    expected: { status: 'FAILED', error: 'StepFailed', last: 'BuildFailed' },
  },
  {
    name: 'an approval that needs a fail-fast: false matrix one of whose combinations failed is never asked for (no ReportWaiting); the build fails with its Error',
    results: [
      answer('PrepareBuild', prepared([...KEEP_GOING, step('approve', { needs: KEEP_GOING.map((s) => s.name), approval: { selfApproval: true, timeoutSeconds: 3600 } })])),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      ...stepFails('test-v-1', 'StepFailed', 'Step "test-v-1" exited with code 1 (npm run test-v-1)'),
      ...stepSucceeds('test-v-2'),
      answer('WaitForNeeds', { ...needs(false, ['test-v-1'], ['test-v-2']), unmet: { step: 'test-v-1', reason: 'it needs "test-v-1", which failed' } }),
      ...failureReported(),
    ],
    expected: { status: 'FAILED', error: 'StepFailed', last: 'BuildFailed' },
  },
  {
    name: 'a fail-fast: false matrix whose combinations all succeed: the build goes on',
    results: [
      answer('PrepareBuild', prepared(KEEP_GOING)),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      ...stepSucceeds('test-v-1'),
      ...stepSucceeds('test-v-2'),
      answer('CleanupSucceededBuild', cleanedUp()),
      answer('ReportSucceeded', REPORTED),
    ],
    expected: { status: 'SUCCEEDED', last: 'BuildSucceeded' },
  },
  {
    name: 'steps that run after a failure',
    results: [
      answer('PrepareBuild', prepared([TEST], { afterFailure: [step('notify', { when: { status: ['failure'] } })] })),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      ...stepFails('test', 'StepFailed', STEP_FAILED_CAUSE),
      answer('StopSteps', cleanedUp()),
      answer('LaunchAfterFailure', launched('notify')),
      answer('PollAfterFailure', running('notify', 0)),
      answer('PollAfterFailure', running('notify', 10)),
      answer('PollAfterFailure', failedPoll('notify', 'StepFailed', 'Step "notify" exited with code 1 (npm run notify)')),
      answer('FinishAfterFailure', finishedFailed('notify', 'StepFailed', 'Step "notify" exited with code 1 (npm run notify)')),
      ...failureReported(),
    ],
    expected: { status: 'FAILED', error: 'StepFailed', last: 'BuildFailed' },
  },
  {
    name: 'a superseded build whose stop could not be made',
    results: [answer('PrepareBuild', { build: BUILD, notBuilt: 'Superseded by 89abcdef0123 (execution gh-acme-web-43), a newer build of the concurrency group "main"' } satisfies NotBuilt)],
    expected: { status: 'SUCCEEDED', last: 'NotBuilt' },
  },
  {
    name: 'a build with nothing to build (NotBuilt)',
    results: [answer('PrepareBuild', { build: BUILD, notBuilt: 'no .step-runner.yml at 0123456' } satisfies NotBuilt)],
    expected: { status: 'SUCCEEDED', last: 'NotBuilt' },
  },
  {
    name: 'a build none of whose steps runs (ReportSkipped)',
    results: [
      answer('PrepareBuild', { ...prepared([]), steps: [], skipped: [{ name: 'test', index: 0, reason: 'paths: no changed file matches src/**' }], skippedBuild: 'No step runs: test (paths)' }),
      answer('ReportSkipped', { ...REPORTED, state: 'success' }),
    ],
    expected: { status: 'SUCCEEDED', last: 'BuildSucceeded' },
  },
  {
    name: 'a build whose pipeline is refused (a Lambda error, its Cause the runtime JSON)',
    results: [thrown('PrepareBuild', 'InvalidPipeline', '.step-runner.yml: line 4: steps[0].image: required'), ...failureReported()],
    expected: { status: 'FAILED', error: 'InvalidPipeline', last: 'BuildFailed' },
  },
  {
    name: 'a build whose cluster stays unreachable (PrepareBuild retried, then caught)',
    results: [...Array.from({ length: 4 }, () => thrown('PrepareBuild', 'KubernetesUnavailable', UNREACHABLE)), ...failureReported()],
    expected: { status: 'FAILED', error: 'KubernetesUnavailable', last: 'BuildFailed' },
  },
  {
    name: 'a start status that cannot be posted',
    results: [
      answer('PrepareBuild', prepared([TEST])),
      thrown('ReportStarted', 'GitHubUnavailable', 'GitHub answered 502 to the commit status'),
      ...stepSucceeds(CLONE.name),
      ...stepSucceeds('test'),
      answer('CleanupSucceededBuild', cleanedUp()),
      answer('ReportSucceeded', REPORTED),
    ],
    expected: { status: 'SUCCEEDED', last: 'BuildSucceeded' },
  },
  {
    name: 'a step whose progress cannot be reported (StepEnded)',
    results: [
      answer('PrepareBuild', prepared([TEST])),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name).slice(0, -1),
      thrown('ReportProgress', 'GitHubUnavailable', 'GitHub answered 502 to the check run update'),
      ...stepSucceeds('test'),
      answer('CleanupSucceededBuild', cleanedUp()),
      answer('ReportSucceeded', REPORTED),
    ],
    expected: { status: 'SUCCEEDED', last: 'BuildSucceeded' },
  },
  {
    name: 'a poll retried after the cluster was unreachable',
    results: [
      answer('PrepareBuild', prepared([TEST])),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      answer('LaunchStep', launched('test')),
      thrown('PollStep', 'KubernetesUnavailable', UNREACHABLE),
      thrown('PollStep', 'KubernetesUnavailable', UNREACHABLE),
      answer('PollStep', ended('test')),
      answer('FinishStep', finished('test')),
      answer('ReportProgress', REPORTED),
      answer('CleanupSucceededBuild', cleanedUp()),
      answer('ReportSucceeded', REPORTED),
    ],
    expected: { status: 'SUCCEEDED', last: 'BuildSucceeded' },
  },
  {
    name: 'a pod the cluster refuses (LaunchStep fails the iteration)',
    results: [
      answer('PrepareBuild', prepared([TEST])),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      thrown('LaunchStep', 'PodConfigError', 'Step "test": the pod was refused: spec.containers[0].resources.limits.cpu: Invalid value: “lots” (a quantity like 500m or 2)'),
      ...failureReported(),
    ],
    expected: { status: 'FAILED', error: 'PodConfigError', last: 'BuildFailed' },
  },
  {
    name: 'a failed build whose cleanup and failure status cannot be made',
    results: [
      answer('PrepareBuild', prepared([TEST])),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      ...stepFails('test', 'StepFailed', STEP_FAILED_CAUSE),
      ...Array.from({ length: 4 }, () => thrown('CleanupBuild', 'KubernetesUnavailable', UNREACHABLE)),
      thrown('ReportFailed', 'GitHubUnavailable', 'GitHub answered 502 to the commit status'),
    ],
    expected: { status: 'FAILED', error: 'StepFailed', last: 'BuildFailed' },
  },
  {
    // "A retrier's parameters apply across all visits to the retrier in the context of a
    // single-state execution" (developer guide, "Error handling in Step Functions", Complex retry
    // scenarios): each retrier counts its own, so two throttled answers leave States.ALL its three.
    name: 'a succeeded build whose cleanup is throttled, then cannot reach the cluster, and whose status cannot be posted',
    results: [
      answer('PrepareBuild', prepared([TEST])),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      ...stepSucceeds('test'),
      thrown('CleanupSucceededBuild', 'Lambda.TooManyRequestsException', 'Rate Exceeded.'),
      thrown('CleanupSucceededBuild', 'Lambda.TooManyRequestsException', 'Rate Exceeded.'),
      ...Array.from({ length: 4 }, () => thrown('CleanupSucceededBuild', 'KubernetesUnavailable', UNREACHABLE)),
      thrown('ReportSucceeded', 'GitHubUnavailable', 'GitHub answered 502 to the commit status'),
    ],
    expected: { status: 'SUCCEEDED', last: 'BuildSucceeded' },
  },
  {
    name: 'a skipped build whose status cannot be posted',
    results: [
      answer('PrepareBuild', { ...prepared([]), steps: [], skipped: [{ name: 'test', index: 0, reason: 'branch feature/x is not main' }], skippedBuild: 'No step runs: test (branch)' }),
      thrown('ReportSkipped', 'GitHubUnavailable', 'GitHub answered 502 to the commit status'),
    ],
    expected: { status: 'SUCCEEDED', last: 'BuildSucceeded' },
  },
  {
    name: 'a step after the failure whose pod is refused, and stopping the steps that could not be',
    results: [
      answer('PrepareBuild', prepared([TEST], { afterFailure: [step('notify', { when: { status: ['failure'] } }), step('report', { when: { status: ['failure'] } })] })),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      ...stepFails('test', 'StepFailed', STEP_FAILED_CAUSE),
      ...Array.from({ length: 4 }, () => thrown('StopSteps', 'KubernetesUnavailable', UNREACHABLE)),
      thrown('LaunchAfterFailure', 'InvalidImage', 'Step "notify": image node:22-alpine@sha256:00 is not a valid reference'),
      ...failureReported(),
    ],
    expected: { status: 'FAILED', error: 'StepFailed', last: 'BuildFailed' },
  },
  {
    // AwaitRerun is a Task whose function throws the build's Error and Cause the first time (a
    // redrive schedules it again; step-retry-placement-builds.integration.test.ts): both sides answer the
    // `thrown` entry as Lambda answers a function error, so the execution's Cause is Lambda's JSON.
    name: 'a failed build with steps to re-run, failing in AwaitRerun',
    results: [
      answer('PrepareBuild', prepared([TEST])),
      answer('ReportStarted', REPORTED),
      ...stepSucceeds(CLONE.name),
      ...stepFails('test', 'StepFailed', STEP_FAILED_CAUSE),
      ...failureReported([TEST]),
      thrown('AwaitRerun', 'StepFailed', STEP_FAILED_CAUSE),
    ],
    expected: { status: 'FAILED', error: 'StepFailed', last: 'AwaitRerun' },
  },
];

/** The definition's Map of each iteration state, to read the local history as the driver reads moto's. */
const MAP_OF = iterationMaps(loadDefinition());

/** The real local executor, every Task answered from the script instead of its handler. */
async function runLocally(scenario: Scenario): Promise<InterpretedRun & { usage: BuildUsage }> {
  const events: ExecutionEvent[] = [];
  // No handler runs: their runtime and the statuses are never reached.
  const runtime = { settings: {}, deps: {} } as TaskRuntime;
  const execution = startLocalExecution(INPUT, {
    runtime,
    statuses: { report: () => Promise.reject(new Error('no status is reported: ReportStatus is scripted')) },
    executionName: BUILD.id,
    onEvent: (event) => events.push(event),
    overrides: { waitMs: 0, retryMs: 0, scriptedTasks: scenario.results },
  });
  const summary = await execution.result;
  // The Cause the service records (ExecutionFailed's), not the summary's, which reads Lambda's JSON back for people.
  const failed = events.findLast((event) => event.type === 'ExecutionFailed');
  return {
    ...readLocalHistory(events),
    status: summary.status,
    error: summary.error,
    cause: failed ? (failed.Cause as string | undefined) ?? null : summary.cause,
    usage: executionUsage(events, 'arm64'),
  };
}

function readLocalHistory(events: readonly ExecutionEvent[]): Omit<InterpretedRun, 'status' | 'error' | 'cause'> {
  const top: StatesPassed = { entered: [], exited: [] };
  const iterations: Record<string, Map<number, StatesPassed>> = {};
  const outcomes: Record<string, Map<number, string>> = {};
  let output: unknown = null;
  const scope = (state: string, index: number): StatesPassed => {
    const map = MAP_OF.get(state);
    if (map === undefined) return top;
    const byIndex = (iterations[map] ??= new Map());
    if (!byIndex.has(index)) byIndex.set(index, { entered: [], exited: [] });
    return byIndex.get(index)!;
  };
  for (const event of events) {
    if (event.type === 'ExecutionSucceeded') output = event.output;
    const index = event.index ?? 0;
    const map = event.parentState?.name;
    if (map && /^MapIteration(Succeeded|Failed)$/.test(event.type)) {
      (outcomes[map] ??= new Map()).set(index, event.type === 'MapIterationSucceeded' ? 'succeeded' : 'failed');
    }
    if (!event.state) continue;
    if (event.type === 'StateEntered') scope(event.state.name, index).entered.push(event.state.name);
    if (event.type === 'StateExited') scope(event.state.name, index).exited.push([event.state.name, event.state.output ?? null]);
  }
  const ordered = <T>(byIndex: Map<number, T>) => [...byIndex.keys()].sort((a, b) => a - b).map((index) => byIndex.get(index)!);
  return {
    output,
    states: top.entered,
    exited: top.exited,
    iterations: Object.fromEntries(Object.entries(iterations).map(([map, byIndex]) => [map, ordered(byIndex)])),
    iterationOutcomes: Object.fromEntries(Object.entries(outcomes).map(([map, byIndex]) => [map, ordered(byIndex)])),
  };
}

const FUNCTION_OF = new Map(taskStates(loadDefinition()).map(({ state, functionId }) => [state, functionId]));
/**
 * A documented exception. A Lambda function's error reaches Step Functions as the runtime's JSON
 * error document, which becomes the Error's Cause ("AWS Lambda function errors in Node.js",
 * https://docs.aws.amazon.com/lambda/latest/dg/nodejs-exceptions.html: "Lambda generates a JSON
 * representation of the error"; "Error handling in Step Functions",
 * https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html). moto does not
 * hand the document on as it came: it parses it and writes it again with Python's json.dumps
 * (moto/stepfunctions/parser/asl/component/state/exec/state_task/lambda_eval_utils.py), which
 * escapes every non-ASCII character (“ becomes \u201c). The Node.js runtime writes the document
 * with JSON.stringify, as the local executor does (lambda-binding.ts). Same JSON value, another
 * text: such a document is compared as the value it holds (the definition reads it only so:
 * ParseLambdaError's States.StringToJson).
 */
function asDocuments(value: unknown): unknown {
  if (typeof value === 'string' && value.startsWith('{"errorType":')) {
    try {
      return JSON.stringify(JSON.parse(value));
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return value.map(asDocuments);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, asDocuments(inner)]));
  return value;
}

const compared = ({ status, output, error, cause, states, exited, iterations, iterationOutcomes }: InterpretedRun) =>
  asDocuments({ status, output, error, cause, states, exited, iterations, iterationOutcomes });

describeRequiring('the definition in moto and in the local executor', motoStepFunctionsInstalled, () => {
  let moto: Map<string, MotoRun>;
  let local: Map<string, Promise<InterpretedRun & { usage: BuildUsage }>>;

  // Both interpreters at once: moto's in its Python process, the local executor's here.
  beforeAll(async () => {
    local = new Map(SCENARIOS.map((scenario) => [scenario.name, runLocally(scenario)]));
    for (const run of local.values()) run.catch(() => undefined);
    const { runs } = await runInMoto(
      resolveResources(loadDefinition(), motoLambdaArn),
      SCENARIOS.map(({ name, results }) => ({ name, input: INPUT, results })),
    );
    moto = new Map(runs.map((run) => [run.name, run]));
  }, 120_000);

  it.each(SCENARIOS)('$name: both say the same happened', async (scenario) => {
    const inMoto = moto.get(scenario.name)!;
    // The script was taken whole, in order, by the states it was written for.
    expect({ invoked: inMoto.invoked, unused: inMoto.unused }).toEqual({ invoked: scenario.results.map((entry) => FUNCTION_OF.get(entry.state)), unused: 0 });
    const locally = await local.get(scenario.name)!;
    expect(compared(locally)).toEqual(compared(inMoto));
    expect({ status: locally.status, error: locally.error ?? undefined, last: locally.states.at(-1) }).toEqual(scenario.expected);
    // The build's cost counts the same transitions and invocations from either history: the local
    // executor's (execution-cost.ts) and the AWS-shaped one ReportStatus reads (history-usage.ts).
    const onAws = historyUsage(inMoto.history, { architecture: 'arm64', memoryMb: {} }, []);
    expect({ transitions: onAws.transitions, invocations: onAws.lambda.invocations }).toEqual({ transitions: locally.usage.transitions, invocations: locally.usage.lambda.invocations });
  });
});

/**
 * A difference found while holding the local executor to moto, settled in the definition:
 * aws-local-stepfunctions 3.0.0 never matches `IsPresent: false` (a Choice on `{}` with it goes to
 * Default), where moto matches it when the path finds nothing, as Step Functions does ("Choice
 * workflow state", IsPresent: https://docs.aws.amazon.com/step-functions/latest/dg/state-choice.html).
 * The definition writes `Not: {IsPresent: true}` instead (ReadFailure), and must go on doing so.
 */
it('asks whether a field is absent only as Not IsPresent: true, which both interpreters read alike', () => {
  const absentTests: string[] = [];
  const visitRule = (state: string, rule: Record<string, unknown>) => {
    if (rule.IsPresent === false) absentTests.push(`${state}: ${String(rule.Variable)}`);
    for (const inner of [...((rule.And as Record<string, unknown>[]) ?? []), ...((rule.Or as Record<string, unknown>[]) ?? []), ...(rule.Not ? [rule.Not as Record<string, unknown>] : [])]) visitRule(state, inner);
  };
  const visit = (machine: { States: Record<string, { Choices?: Record<string, unknown>[]; ItemProcessor?: { States: Record<string, unknown> } }> }) => {
    for (const [name, state] of Object.entries(machine.States)) {
      for (const rule of state.Choices ?? []) visitRule(name, rule);
      if (state.ItemProcessor) visit(state.ItemProcessor as never);
    }
  };
  visit(loadDefinition() as never);
  expect(absentTests).toEqual([]);
});
