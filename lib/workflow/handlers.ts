/**
 * The Lambda handlers of serverless.yml, as factories over a TaskRuntime: functions/ builds each
 * one with the AWS runtime (lib/lambda), the local executor with the local one (lib/local), so both
 * run the same middy composition and the same task code, and only the injected I/O differs.
 */
import type { Context } from 'aws-lambda';
import type { ExecutionInput, StatusReport, StatusRequest } from '../contract/index.js';
import { completeLookup, type LookupSources } from '../forge/deferred-lookup.js';
import { lambdaEventHandler, lambdaTask, logger } from './lambda-task.js';
import type { NotBuilt, PreparedBuild, StepInput } from './state-data.js';
import type { TaskRuntime } from './task-deps.js';
import { cleanupBuild, type CleanupInput } from './tasks/cleanup-build.js';
import { cleanupEndedExecution, type ExecutionStatusChange } from './tasks/cleanup-ended-execution.js';
import { cleanupOrphans } from './tasks/cleanup-orphans.js';
import { finishStep } from './tasks/finish-step.js';
import { launchStep } from './tasks/launch-step.js';
import { pollStep } from './tasks/poll-step.js';
import { waitForNeeds } from './tasks/wait-for-needs.js';
import type { BuildCredentials } from './build-credentials.js';
import { prepareBuild } from './tasks/prepare-build.js';
import { reportStatus, type StatusReporter } from './tasks/report-status.js';

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
) =>
  lambdaTask(async (input: ExecutionInput, context): Promise<PreparedBuild | NotBuilt> => {
    if (!('lookup' in input)) return prepareBuild(input, settings, deps, credentialsFor(context));
    deps.log.info(`Reading from GitHub what the webhook left to the build: ${input.lookup.why}`);
    const outcome = await completeLookup(input, lookupFor(context));
    if (outcome.kind === 'notBuilt') {
      deps.log.info(`No build: ${outcome.reason}`);
      return { build: input.build, notBuilt: outcome.reason };
    }
    return prepareBuild(outcome.input, settings, deps, credentialsFor(context));
  });

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

/**
 * `reporterFor` sees the invocation's context, where a secrets middleware (lib/lambda) leaves the
 * GitHub token.
 */
export const reportStatusHandler = (reporterFor: (context: Context) => StatusReporter) =>
  lambdaTask<StatusRequest, StatusReport>(async (input, context) =>
    reportStatus(input, { reporter: reporterFor(context), log: logger }),
  );

/**
 * EventBridge: an execution of the build state machine was ABORTED, TIMED_OUT or FAILED;
 * `reporterFor` as for ReportStatus, for the commit status no state posted.
 */
export const cleanupEndedExecutionHandler = ({ settings, deps }: TaskRuntime, reporterFor?: (context: Context) => StatusReporter) =>
  lambdaEventHandler(async (event: ExecutionStatusChange, context: Context) =>
    cleanupEndedExecution(event, settings.namespace, deps, reporterFor?.(context)),
  );

/** EventBridge schedule: the sweep for runner pods that no execution cleaned up. */
export const cleanupOrphansHandler = ({ settings, deps }: TaskRuntime, marginSeconds: number) =>
  lambdaEventHandler(async () => cleanupOrphans(settings.namespace, marginSeconds, deps));
