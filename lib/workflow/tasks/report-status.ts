import type { StatusReport, StatusRequest } from '../../contract/index.js';
import type { TaskLog } from '../task-deps.js';

/** Where a build's status goes: commit statuses on GitHub (lib/forge), printed lines locally. */
export interface StatusReporter {
  report(request: StatusRequest): Promise<StatusReport>;
}

/**
 * Reports the build's status. Never throws for a status that cannot be reported: a commit status is
 * a courtesy, and GitHub being unreachable must not fail (or hide the result of) a build.
 */
export async function reportStatus(input: StatusRequest, deps: { reporter: StatusReporter; log: TaskLog }): Promise<StatusReport> {
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
