import { readFile } from 'node:fs/promises';
import { Outcomes, type CostSummary, type WaitingStepReport } from '../../contract/index.js';
import { checkRunReporter } from '../../forge/check-run-reporter.js';
import { gitHubApp } from '../../forge/github-app.js';
import type { ApprovalDeliveryDeps } from '../../forge/approval-delivery.js';
import { localApprovalDesk } from './approvals.js';
import type { StatusReporter } from '../../workflow/tasks/report-status.js';
import { printedStatusReporter } from '../../emulators/lambda/printed-status.js';

/** `serve --github-app-id ... --github-app-key FILE [--github-api-url URL]`: the App whose deliveries the server builds. */
export interface LocalGitHubApp {
  appId: string;
  privateKeyFile: string;
  /** Default https://api.github.com; a stand-in's URL to try it without GitHub. */
  apiUrl?: string;
}

/**
 * Reports as a deployment with that App does: a build that came through it (its delivery named
 * the installation) gets its check run on the App's GitHub, written with the App's installation
 * token and printed as well; any other build's commit status is printed only, as without an App.
 */
export function localGitHubAppReporter(
  app: LocalGitHubApp,
  print: (line: string) => void,
  costOf?: (executionArn: string) => CostSummary | undefined,
  waitingApprovals?: (executionArn: string) => WaitingStepReport[],
): StatusReporter {
  const baseUrl = app.apiUrl ?? 'https://api.github.com';
  const checks = checkRunReporter({ app: appOf(app) }, { baseUrl });
  const printed = printedStatusReporter(print);
  return {
    async report(request) {
      if (request.build.installationId === undefined) return printed.report(request);
      // At the build's end its cost, from the execution's history so far, as ReportStatus reads it on AWS.
      const ended = request.outcome === Outcomes.succeeded || request.outcome === Outcomes.failed;
      const cost = ended && !request.cost && request.executionArn ? costOf?.(request.executionArn) : undefined;
      const result = await checks.report(cost ? { ...request, cost } : request);
      const commit = `${request.build.repository ?? ''}@${(request.build.commit ?? '').slice(0, 7)}`;
      print(result.posted ? `check run ${commit} step-runner: ${result.state} "${result.description}"` : `check run ${commit} step-runner not written: ${result.reason}`);
      return result;
    },
    // Which approval steps wait, for the check run's buttons, from the execution's history as on AWS.
    ...(waitingApprovals ? { waitingApprovals: async (executionArn: string) => waitingApprovals(executionArn) } : {}),
  };
}

function appOf(app: LocalGitHubApp) {
  return gitHubApp({ appId: app.appId, privateKey: () => readFile(app.privateKeyFile, 'utf8'), keySource: app.privateKeyFile, baseUrl: app.apiUrl ?? 'https://api.github.com' });
}

/**
 * A check run's Approve and Reject on the server's builds, as a deployment with that App answers
 * them: who clicked is asked of the App's GitHub, and the step is answered through its Secret.
 */
export function localGitHubApprovals(app: LocalGitHubApp, executions: Parameters<typeof localApprovalDesk>[0]): Omit<ApprovalDeliveryDeps, 'appId' | 'log'> {
  return { desk: localApprovalDesk(executions), credentials: { app: appOf(app) }, api: { baseUrl: app.apiUrl ?? 'https://api.github.com' } };
}
