import { Outcomes, type CostSummary, type StatusReport, type StatusRequest, type WaitingStepReport } from '../../contract/index.js';
import { approvedOf } from '../approval-decision.js';
import type { BuildSettings, PreparedBuild } from '../state-data.js';
import { endedSteps, statusSteps } from '../status-steps.js';
import type { StepRecord } from '../step-log-store.js';
import type { PodUsage } from '../cost-model.js';
import type { TaskLog } from '../task-deps.js';
import type { BuildTraceExport } from '../trace-export.js';
import { writeBuildMetrics } from '../metrics-writer.js';
import type { MetricsSink } from '../metric-records.js';

/** Where a build's status goes: check runs or commit statuses on GitHub (lib/forge), printed lines locally. */
export interface StatusReporter {
  report(request: StatusRequest): Promise<StatusReport>;
  /**
   * The approval steps the execution waits on now, the one waiting longest first (its history:
   * lib/workflow/waiting-approval.ts); absent: a reporter that shows no buttons.
   */
  waitingApprovals?(executionArn: string): Promise<WaitingStepReport[]>;
}

/**
 * What the Report states hand ReportStatus: the request, and the state as it stands (`prepared`,
 * `$` in the definition: Parameters cannot name a path that may be missing, and a build that
 * failed before its steps were prepared has none), whose steps the report lists. At the build's
 * end, the execution's start ($$.Execution.StartTime), for the build's metrics and trace.
 */
export type ReportInput = StatusRequest & {
  prepared?: Partial<PreparedBuild>;
  startedAt?: string;
  settings?: Pick<BuildSettings, 'approvals'>;
  /** ReportDecision: AwaitApproval's result as it is (`$.result`), read by approvedOf: the report's `approved`. */
  decided?: unknown;
};

interface ReportDeps {
  reporter: StatusReporter;
  log: TaskLog;
  results?: (buildId: string) => Promise<StepRecord[]>;
  /** The build's trace, sent when it ends (trace-export.ts); absent: no trace. */
  exportTrace?: BuildTraceExport;
  /** What the build cost (lib/lambda/execution-cost-reader.ts on AWS); absent: no cost line. */
  cost?: BuildCostReader;
  /** Where the build's metric record goes (metrics-writer.ts); absent: none. */
  metrics?: MetricsSink;
  now?: () => Date;
}

/**
 * Reports the build's status. Never throws for a status that cannot be reported: a commit status is
 * a courtesy, and GitHub being unreachable must not fail (or hide the result of) a build.
 */
export async function reportStatus(input: ReportInput, deps: ReportDeps): Promise<StatusReport> {
  const { prepared, startedAt, settings, decided, ...given } = input;
  const approved = decided === undefined ? undefined : approvedOf(decided);
  const request: StatusRequest = approved ? { ...given, approved } : given;
  // Read once, for the report, the cost, the metrics and the trace, and only when one of them asks.
  let records: Promise<StepRecord[]> | undefined;
  const results = deps.results ? () => (records ??= readRecords(request, deps)) : undefined;
  const ended = request.outcome === Outcomes.succeeded || request.outcome === Outcomes.failed;
  const cost = ended && deps.cost ? await costOf(request, deps.cost, { log: deps.log, ...(results ? { results } : {}) }) : undefined;
  // The build's end (a skipped build ran nothing to measure): its metrics, whatever becomes of the report.
  if (deps.metrics && ended && !request.skipped) {
    const failure = request.outcome === Outcomes.failed ? { failure: request.failure ?? {} } : {};
    writeBuildMetrics({ build: request.build, ...failure, ...(startedAt ? { startedAt } : {}), ...(cost ? { cost: { usd: cost.usd } } : {}) }, (await results?.()) ?? [], { metrics: deps.metrics, log: deps.log, ...(deps.now ? { now: deps.now } : {}) });
  }
  const approvals = await approvalsOf(request, settings, deps);
  const reported = await report(prepared, { ...request, ...(cost ? { cost } : {}), ...(approvals ? { approvals } : {}) }, { reporter: deps.reporter, log: deps.log, ...(results ? { results } : {}) });
  const { outcome } = request;
  // After the report, which people wait for; the export logs its own failure and never throws.
  if (deps.exportTrace && (outcome === Outcomes.succeeded || outcome === Outcomes.failed)) {
    await deps.exportTrace({
      build: request.build,
      outcome,
      ...(request.failure ? { failure: request.failure } : {}),
      ...(request.skipped ? { skipped: request.skipped } : {}),
      ...(startedAt ? { startedAt } : {}),
      endedAt: new Date().toISOString(),
      ...(prepared?.pipelineFile ? { pipelineFile: prepared.pipelineFile } : {}),
      ...(request.executionArn ? { executionArn: request.executionArn } : {}),
      steps: results ? await results() : [],
    });
  }
  return reported;
}

async function report(
  prepared: Partial<PreparedBuild> | undefined,
  request: StatusRequest,
  deps: { reporter: StatusReporter; log: TaskLog; results?: () => Promise<StepRecord[]> },
): Promise<StatusReport> {
  const { build } = request;
  try {
    const steps = await stepsOf(prepared, request, deps);
    const result = await deps.reporter.report({ ...request, ...steps });
    if (result.posted) deps.log.info(`Commit status ${result.state} posted`, { repository: build.repository, commit: build.commit });
    return result;
  } catch (error) {
    const reason = (error as Error).message;
    deps.log.warn('Commit status not posted; the build goes on', { repository: build.repository, commit: build.commit, reason });
    return { posted: false, reason };
  }
}

/** The steps a check run's summary shows; a store that cannot be read costs the summary its table, never the report. */
async function stepsOf(
  prepared: Partial<PreparedBuild> | undefined,
  request: StatusRequest,
  deps: { results?: () => Promise<StepRecord[]> },
): Promise<Pick<StatusRequest, 'steps' | 'pipelineFile'>> {
  // A step's end: its iteration has no plan of the build, only what has ended.
  if (request.outcome === Outcomes.progress) return deps.results ? { steps: endedSteps(await deps.results()) } : {};
  if (!prepared?.steps || !prepared.settings) return {};
  const records = request.outcome === Outcomes.started || !deps.results ? [] : await deps.results();
  const steps = statusSteps({ steps: prepared.steps, settings: prepared.settings, ...(prepared.skipped ? { skipped: prepared.skipped } : {}), ...(prepared.afterFailure ? { afterFailure: prepared.afterFailure } : {}) }, records, request.outcome !== Outcomes.started);
  return { steps, ...(prepared.pipelineFile ? { pipelineFile: prepared.pipelineFile } : {}) };
}

/**
 * A progress report's waiting approvals (StatusRequest.approvals): none in a build without an
 * approval step (PrepareBuild's settings say so: nothing is read), else read through the reporter.
 * Undefined, not known, when the state passed no settings (a definition older than this) or the
 * read failed: the check run is then left as it is. Only a build that came through a GitHub App
 * (`installationId`) has a check run to show buttons on (lib/forge/check-run-reporter.ts
 * gitHubReporter, lib/local/server/github-app-reporting.ts): any other, a generic delivery's or a
 * commit status's, reads nothing either.
 */
async function approvalsOf(request: StatusRequest, settings: ReportInput['settings'], deps: Pick<ReportDeps, 'reporter' | 'log'>): Promise<WaitingStepReport[] | undefined> {
  if (request.outcome !== Outcomes.progress || !settings) return undefined;
  if (!settings.approvals || request.build.installationId === undefined) return [];
  if (!deps.reporter.waitingApprovals || !request.executionArn) return undefined;
  try {
    return await deps.reporter.waitingApprovals(request.executionArn);
  } catch (error) {
    deps.log.warn('Which approval steps wait could not be read: the check run is left as it is', { reason: (error as Error).message });
    return undefined;
  }
}

/**
 * What a build cost so far (lib/lambda/execution-cost-reader.ts on AWS), from its execution, its
 * steps' records and the pods of the steps still running when it ended outside the definition.
 */
export type BuildCostReader = (executionArn: string, records: readonly StepRecord[], unfinished?: readonly PodUsage[]) => Promise<CostSummary & { complete?: boolean }>;

/** The cost, at the build's end only; one that cannot be worked out costs the report its line, never the report. */
async function costOf(request: StatusRequest, reader: BuildCostReader, deps: { log: TaskLog; results?: () => Promise<StepRecord[]> }): Promise<CostSummary | undefined> {
  if (!request.executionArn) return undefined;
  return readBuildCost(request.executionArn, reader, async () => (await deps.results?.()) ?? [], [], deps.log);
}

/** The build's cost, logged; undefined (and a warning) when it cannot be worked out. */
export async function readBuildCost(executionArn: string, reader: BuildCostReader, records: () => Promise<readonly StepRecord[]>, unfinished: readonly PodUsage[], log: TaskLog): Promise<CostSummary | undefined> {
  try {
    const { complete, ...cost } = await reader(executionArn, await records(), unfinished);
    if (complete === false) log.warn("The build's cost counts the first pages of its history only", { usd: cost.usd });
    log.info(`The build cost $${cost.usd.toFixed(4)}`, { cost });
    return cost;
  } catch (error) {
    log.warn("The build's cost could not be worked out; the report goes without it", { reason: (error as Error).message });
    return undefined;
  }
}

async function readRecords(request: StatusRequest, deps: { log: TaskLog; results?: (buildId: string) => Promise<StepRecord[]> }): Promise<StepRecord[]> {
  if (!deps.results) return [];
  try {
    return await deps.results(request.build.id);
  } catch (error) {
    deps.log.warn('How the steps ended could not be read: the report lists them without', { reason: (error as Error).message });
    return [];
  }
}
