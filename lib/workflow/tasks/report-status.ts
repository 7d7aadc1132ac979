import type { BuildRef, CaughtFailure, Outcome } from '../../contract/index.js';
import type { TaskLog } from '../task-deps.js';

/**
 * The ReportStarted / ReportSucceeded / ReportFailed states' Parameters:
 *   build.$: $.build, outcome: started|succeeded|failed, executionArn.$: $$.Execution.Id,
 *   and for failed, failure.$: $.failure.
 */
export interface ReportStatusInput {
  build: BuildRef;
  outcome: Outcome;
  executionArn?: string;
  failure?: CaughtFailure;
}

/** `posted` only when the forge has the status; one that was only printed says so in `reason`. */
export type ReportStatusResult =
  | { posted: true; state: string; description: string }
  | { posted: false; reason: string; state?: string; description?: string };

/** Where a build's status goes: commit statuses on GitHub (lib/forge), printed lines locally. */
export interface StatusReporter {
  report(input: ReportStatusInput): Promise<ReportStatusResult>;
}

/**
 * Reports the build's status. Never throws for a status that cannot be reported: a commit status is
 * a courtesy, and GitHub being unreachable must not fail (or hide the result of) a build.
 */
export async function reportStatus(input: ReportStatusInput, deps: { reporter: StatusReporter; log: TaskLog }): Promise<ReportStatusResult> {
  const { build } = input;
  try {
    const result = await deps.reporter.report(input);
    if (result.posted) deps.log.info(`Commit status ${result.state} posted`, { repository: build.repository, commit: build.commit });
    return result;
  } catch (error) {
    const reason = (error as Error).message;
    deps.log.warn('Commit status not posted; the build goes on', { repository: build.repository, commit: build.commit, reason });
    return { posted: false, reason };
  }
}
