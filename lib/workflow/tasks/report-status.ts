import { Outcomes, type CostSummary, type StatusReport, type StatusRequest } from '../../contract/index.js';
import type { PreparedBuild } from '../state-data.js';
import { endedSteps, statusSteps } from '../status-steps.js';
import type { StepRecord } from '../step-log-store.js';
import type { TaskLog } from '../task-deps.js';

/** Where a build's status goes: check runs or commit statuses on GitHub (lib/forge), printed lines locally. */
export interface StatusReporter {
  report(request: StatusRequest): Promise<StatusReport>;
}

/**
 * What the Report states hand ReportStatus: the request, and the state as it stands (`prepared`,
 * `$` in the definition: Parameters cannot name a path that may be missing, and a build that
 * failed before its steps were prepared has none), whose steps the report lists.
 */
export type ReportInput = StatusRequest & { prepared?: Partial<PreparedBuild> };

/**
 * Reports the build's status. Never throws for a status that cannot be reported: a commit status is
 * a courtesy, and GitHub being unreachable must not fail (or hide the result of) a build.
 */
export async function reportStatus(
  input: ReportInput,
  deps: { reporter: StatusReporter; log: TaskLog; results?: (buildId: string) => Promise<StepRecord[]>; cost?: BuildCostReader },
): Promise<StatusReport> {
  const { prepared, ...request } = input;
  const { build } = request;
  try {
    const steps = await stepsOf(prepared, request, deps);
    const cost = await costOf(request, deps);
    const result = await deps.reporter.report({ ...request, ...steps, ...(cost ? { cost } : {}) });
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
  deps: { log: TaskLog; results?: (buildId: string) => Promise<StepRecord[]> },
): Promise<Pick<StatusRequest, 'steps' | 'pipelineFile'>> {
  // A step's end: its iteration has no plan of the build, only what has ended.
  if (request.outcome === Outcomes.progress) return deps.results ? { steps: endedSteps(await readRecords(request, deps)) } : {};
  if (!prepared?.steps || !prepared.settings) return {};
  const records = request.outcome === Outcomes.started ? [] : await readRecords(request, deps);
  const steps = statusSteps({ steps: prepared.steps, settings: prepared.settings, ...(prepared.skipped ? { skipped: prepared.skipped } : {}), ...(prepared.afterFailure ? { afterFailure: prepared.afterFailure } : {}) }, records, request.outcome !== Outcomes.started);
  return { steps, ...(prepared.pipelineFile ? { pipelineFile: prepared.pipelineFile } : {}) };
}

/** What a build cost so far (lib/lambda/execution-cost-reader.ts on AWS), from its execution and its steps' records. */
export type BuildCostReader = (executionArn: string, records: readonly StepRecord[]) => Promise<CostSummary & { complete?: boolean }>;

/** The cost, at the build's end only; one that cannot be worked out costs the report its line, never the report. */
async function costOf(request: StatusRequest, deps: { log: TaskLog; results?: (buildId: string) => Promise<StepRecord[]>; cost?: BuildCostReader }): Promise<CostSummary | undefined> {
  if (!deps.cost || !request.executionArn || (request.outcome !== Outcomes.succeeded && request.outcome !== Outcomes.failed)) return undefined;
  try {
    const { complete, ...cost } = await deps.cost(request.executionArn, await readRecords(request, deps));
    if (complete === false) deps.log.warn("The build's cost counts the first pages of its history only", { usd: cost.usd });
    deps.log.info(`The build cost $${cost.usd.toFixed(4)}`, { cost });
    return cost;
  } catch (error) {
    deps.log.warn("The build's cost could not be worked out; the report goes without it", { reason: (error as Error).message });
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
