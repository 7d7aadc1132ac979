import { commitStatusReporter, type StatusSink } from '../../forge/commit-status.js';
import type { StatusReporter } from '../../workflow/tasks/report-status.js';

/**
 * Locally: one line per commit status, where the build's progress is printed. Nothing reaches
 * GitHub, and ReportStatus's output says so (`posted: false`).
 */
export function printedStatusSink(print: (line: string) => void): StatusSink {
  return {
    async post(commit, status) {
      const link = status.target_url ? ` (${status.target_url})` : '';
      print(`commit status ${commit.repository}@${commit.commit.slice(0, 7)} ${status.context}: ${status.state} "${status.description}"${link}`);
      return { posted: false, reason: 'printed locally: a local run posts no commit status' };
    },
  };
}

export function printedStatusReporter(print: (line: string) => void): StatusReporter {
  return commitStatusReporter(printedStatusSink(print));
}
