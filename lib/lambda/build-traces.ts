/**
 * ReportStatus's trace export on AWS (lib/workflow/trace-export.ts), when the deployment names an
 * OTLP endpoint (`OTLP_ENDPOINT`, params.otlpEndpoint): the headers it wants are read from Secrets
 * Manager (`OTLP_HEADERS_SECRET_ID`) as the deployment's other secrets are, cached as long, but at
 * the export and not by a middleware: a secret that cannot be read costs the trace, never the
 * commit status or the build. A secret that does not exist is no headers (a collector of one's own
 * may want none), as the GitHub token is read where an App makes it optional. The OpenTelemetry SDK is loaded on the first export, so a deployment
 * without traces never pays for it at a cold start.
 */
import { targetUrl } from '../forge/commit-status.js';
import { logger } from '../workflow/lambda-task.js';
import type { BuildTraceExport } from '../workflow/trace-export.js';
import { optionalSecretString } from './secrets.js';
import { EnvNames } from './settings.js';

export function lambdaBuildTraces(env: NodeJS.ProcessEnv): BuildTraceExport | undefined {
  const endpoint = env[EnvNames.otlpEndpoint];
  if (!endpoint) return undefined;
  const secretId = env[EnvNames.otlpHeadersSecretId];
  let exporter: Promise<BuildTraceExport> | undefined;
  return async (ended) => {
    exporter ??= import('../workflow/trace-export.js').then(({ otlpBuildTraces, parseOtlpHeaders }) => {
      const secret = secretId ? optionalSecretString(secretId) : undefined;
      const headers = async () => {
        const text = await secret?.();
        return text === undefined ? {} : { headers: parseOtlpHeaders(text) };
      };
      return otlpBuildTraces(async () => ({ endpoint, ...(await headers()) }), logger);
    });
    // The run's page: the Step Functions console's, the very link of the commit status and the check run (targetUrl).
    // A step has no page of its own there (a Map iteration is a part of the execution's), so its page is the execution's too.
    const page = targetUrl(ended.executionArn);
    const stepUrls = page ? Object.fromEntries([...ended.steps, ...(ended.running ?? [])].map((s) => [s.step, page])) : undefined;
    return (await exporter)({ ...ended, ...(page ? { runUrl: page, stepUrls } : {}) });
  };
}
