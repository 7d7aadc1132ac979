import { commitStatusFor, type CaughtFailure, type Outcome, type StatusSink } from '../../forge/commit-status.js';
import { isGitHubTrigger } from '../../forge/build-request.js';
import { consoleUrlFor } from '../../forge/execution-name.js';
import type { BuildRef } from '../state-data.js';
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

export type ReportStatusResult =
  | { posted: true; state: string; description: string }
  | { posted: false; reason: string };

/**
 * Posts the build's commit status. Never throws for a status that cannot be posted: a commit
 * status is a courtesy, and GitHub being unreachable must not fail (or hide the result of) a build.
 */
export async function reportStatus(input: ReportStatusInput, deps: { sink: StatusSink; log: TaskLog }): Promise<ReportStatusResult> {
  const { build } = input;
  if (!isGitHubTrigger(build.trigger) || !build.repository || !build.commit) {
    return { posted: false, reason: `not a GitHub build (${build.trigger ?? 'no trigger'}): no commit status` };
  }
  const status = commitStatusFor(input.outcome, input.failure, targetUrl(input.executionArn));
  try {
    await deps.sink.post({ repository: build.repository, commit: build.commit }, status);
  } catch (error) {
    const reason = (error as Error).message;
    deps.log.warn('Commit status not posted; the build goes on', { repository: build.repository, commit: build.commit, state: status.state, reason });
    return { posted: false, reason };
  }
  deps.log.info(`Commit status ${status.state} posted`, { repository: build.repository, commit: build.commit });
  return { posted: true, state: status.state, description: status.description };
}

/** The console page, for executions that have one (a local execution's ARN names no real region). */
function targetUrl(executionArn: string | undefined): string | undefined {
  const region = executionArn?.startsWith('arn:aws:states:') ? executionArn.split(':')[3] : undefined;
  return region && /^[a-z]{2}(-[a-z]+)+-\d+$/.test(region) ? consoleUrlFor(executionArn!) : undefined;
}
