/**
 * The Lambda handlers of serverless.yml, as factories over a TaskRuntime: functions/ builds each
 * one with the AWS runtime (lib/lambda), the local executor with the local one (lib/local), so both
 * run the same middy composition and the same task code, and only the injected I/O differs.
 */
import type { Context } from 'aws-lambda';
import type { BuildInput, ExecutionInput, StatusReport } from '../contract/index.js';
import { parsePipeline } from '../pipeline/index.js';
import { executionNameOf, supersede } from './superseding.js';
import { withResolvedInputs } from './build-inputs.js';
import { completeLookup, type LookupSources } from '../forge/deferred-lookup.js';
import { buildIdFor } from '../forge/execution-name.js';
import { lambdaEventHandler, lambdaTask, logger } from './lambda-task.js';
import type { NotBuilt, PreparedBuild, StepInput } from './state-data.js';
import type { TaskDeps, TaskRuntime } from './task-deps.js';
import { awaitRerun, type AwaitRerunInput } from './tasks/await-rerun.js';
import { awaitApproval, type AwaitApprovalInput } from './tasks/await-approval.js';
import { approvalWaits, type AwaitApprovedNeedsInput, type FinishApprovalInput } from './tasks/approval-waits.js';
import { cleanupBuild, type CleanupInput } from './tasks/cleanup-build.js';
import { cleanupEndedExecution, type ExecutionStatusChange } from './tasks/cleanup-ended-execution.js';
import { cleanupOrphans } from './tasks/cleanup-orphans.js';
import { finishStep } from './tasks/finish-step.js';
import { launchStep } from './tasks/launch-step.js';
import { pollStep } from './tasks/poll-step.js';
import { waitForNeeds } from './tasks/wait-for-needs.js';
import type { BuildCredentials } from './build-credentials.js';
import { prepareBuild } from './tasks/prepare-build.js';
import { reportStatus, type BuildCostReader, type ReportInput, type StatusReporter } from './tasks/report-status.js';
import type { StepLogStore } from './step-log-store.js';
import type { MetricsSink } from './metric-records.js';
import type { BuildTraceExport } from './trace-export.js';

/** A watch must end well before the invocation does, or the poll is lost to a Lambda timeout. */
export const WATCH_MARGIN_MS = 5_000;

/**
 * `credentialsFor` sees the invocation's context, where lib/lambda's secrets middleware leaves the
 * token; `lookupFor` likewise gives the GitHub sources for what the webhook left to the build.
 */
export const prepareBuildHandler = (
  { settings, deps }: TaskRuntime,
  credentialsFor: (context: Context) => BuildCredentials = () => ({}),
  lookupFor: (context: Context) => LookupSources | undefined = () => deps.lookup,
  /** The build's files at its commit, with the invocation's credentials (a build step's Dockerfile); default: the runtime's own. */
  filesFor: (context: Context) => TaskDeps['sourceFiles'] = () => deps.sourceFiles,
) =>
  lambdaTask(async (given: ExecutionInput | PrepareBuildParameters, context): Promise<PreparedBuild | NotBuilt> => {
    // The definition hands over the input with the execution's ARN; a caller of its own, the input alone.
    const { input, executionArn } = 'executionArn' in given && 'input' in given ? given : { input: given, executionArn: undefined };
    // Parsed once for both: superseding needs its `concurrency`, preparing the rest.
    const prepare = async (complete: BuildInput): Promise<PreparedBuild | NotBuilt> => {
      const pipeline = parsePipeline(complete.pipeline.text, complete.pipeline.file);
      const resolved = withResolvedInputs(complete, pipeline);
      const superseded = await supersede(resolved.build, pipeline.concurrency, executionArn, deps);
      if (superseded) return { build: resolved.build, notBuilt: superseded };
      const sourceFiles = filesFor(context);
      return prepareBuild(resolved, settings, { ...deps, ...(sourceFiles ? { sourceFiles } : {}) }, credentialsFor(context), pipeline);
    };
    if (!('lookup' in input)) return prepare(input);
    deps.log.info(`Reading from GitHub what the webhook left to the build: ${input.lookup.why}`);
    const outcome = await completeLookup(input, lookupFor(context), executionArn !== undefined ? executionNameOf(executionArn) : undefined);
    if (outcome.kind === 'notBuilt') {
      deps.log.info(`No build: ${outcome.reason}`);
      return { build: { ...input.build, id: input.build.id ?? buildIdOf(executionArn) }, notBuilt: outcome.reason };
    }
    return prepare(outcome.input);
  });

/** The build id of an execution whose input names none (a schedule's), as the ended-execution cleanup derives it. */
function buildIdOf(executionArn: string | undefined): string {
  return buildIdFor(executionArn !== undefined ? executionNameOf(executionArn) : 'build');
}

/**
 * PrepareBuild's Parameters in the definition: the execution input, and the execution's ARN
 * ($$.Execution.Id); the build beside them, for the log lines' keys.
 */
export interface PrepareBuildParameters {
  build: ExecutionInput['build'];
  input: ExecutionInput;
  executionArn: string;
}

/** `credentialsFor` as for PrepareBuild: a token that expires is renewed before a pod that reads it starts. */
export const launchStepHandler = ({ deps }: TaskRuntime, credentialsFor: (context: Context) => BuildCredentials = () => ({})) =>
  lambdaTask(async (input: StepInput, context) => launchStep(input, deps, credentialsFor(context)));

export const pollStepHandler = ({ deps }: TaskRuntime) =>
  lambdaTask(async (input: StepInput, context) =>
    pollStep(input, deps, { maxWatchMs: context.getRemainingTimeInMillis() - WATCH_MARGIN_MS }),
  );

export const waitForNeedsHandler = ({ deps }: TaskRuntime) =>
  lambdaTask(async (input: StepInput, context) => waitForNeeds(input, deps, { maxWatchMs: context.getRemainingTimeInMillis() - WATCH_MARGIN_MS }));

export const finishStepHandler = ({ deps }: TaskRuntime) => lambdaTask(async (input: StepInput) => finishStep(input, deps));

export const cleanupBuildHandler = ({ settings, deps }: TaskRuntime) =>
  lambdaTask(async (input: CleanupInput) => cleanupBuild(input, settings.namespace, deps, { keepFailedSeconds: settings.failedWorkspaceKeepSeconds }));

/** An approval step's start: its task token kept for whoever decides (tasks/await-approval.ts). */
export const awaitApprovalHandler = ({ deps }: TaskRuntime) => lambdaTask(async (input: AwaitApprovalInput) => awaitApproval(input, deps));

/** A step waiting for approvals it needs, and an approval given that lets them go on (tasks/approval-waits.ts). */
export const approvalWaitsHandler = ({ deps }: TaskRuntime) => lambdaTask(async (input: AwaitApprovedNeedsInput | FinishApprovalInput) => approvalWaits(input, deps));

/** A failed build's end, until a redrive lets it go on (tasks/await-rerun.ts). It calls nothing: no runtime. */
export const awaitRerunHandler = () => lambdaTask(async (input: AwaitRerunInput) => awaitRerun(input));

/**
 * `reporterFor` sees the invocation's context, where a secrets middleware (lib/lambda) leaves the
 * GitHub token.
 */
export const reportStatusHandler = (reporterFor: (context: Context) => StatusReporter, logs?: Pick<StepLogStore, 'results'>, observers: { cost?: BuildCostReader; metrics?: MetricsSink; exportTrace?: BuildTraceExport } = {}) =>
  lambdaTask<ReportInput, StatusReport>(async (input, context) =>
    reportStatus(input, { reporter: reporterFor(context), log: logger, ...(logs ? { results: (buildId: string) => logs.results(buildId) } : {}), ...observers }),
  );

/**
 * EventBridge: an execution of the build state machine was ABORTED, TIMED_OUT or FAILED;
 * `reporterFor` as for ReportStatus, for the commit status no state posted.
 */
export const cleanupEndedExecutionHandler = ({ settings, deps }: TaskRuntime, reporterFor?: (context: Context) => StatusReporter, cost?: BuildCostReader) =>
  lambdaEventHandler(async (event: ExecutionStatusChange, context: Context) =>
    cleanupEndedExecution(event, settings.namespace, deps, reporterFor?.(context), cost),
  );

/** EventBridge schedule: the sweep for runner pods that no execution cleaned up. */
export const cleanupOrphansHandler = ({ settings, deps }: TaskRuntime, marginSeconds: number) =>
  lambdaEventHandler(async () => cleanupOrphans(settings.namespace, marginSeconds, deps));
