/**
 * ReportStatus's trace export on AWS (lib/workflow/trace-export.ts), when the deployment names an
 * OTLP endpoint (`OTLP_ENDPOINT`, params.otlpEndpoint): the headers it wants are read from Secrets
 * Manager (`OTLP_HEADERS_SECRET_ID`) as the deployment's other secrets are, cached as long, but at
 * the export and not by a middleware: a secret that cannot be read costs the trace, never the
 * commit status or the build. The OpenTelemetry SDK is loaded on the first export, so a deployment
 * without traces never pays for it at a cold start.
 */
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { logger } from '../workflow/lambda-task.js';
import type { BuildTraceExport } from '../workflow/trace-export.js';
import { cachedRead, secretsManagerClient } from './secrets.js';
import { EnvNames } from './settings.js';

export function lambdaBuildTraces(env: NodeJS.ProcessEnv): BuildTraceExport | undefined {
  const endpoint = env[EnvNames.otlpEndpoint];
  if (!endpoint) return undefined;
  const secretId = env[EnvNames.otlpHeadersSecretId];
  let exporter: Promise<BuildTraceExport> | undefined;
  return async (ended) => {
    exporter ??= import('../workflow/trace-export.js').then(({ otlpBuildTraces, parseOtlpHeaders }) => {
      const headers = secretId
        ? cachedRead(async () => {
            const { SecretString } = await secretsManagerClient().send(new GetSecretValueCommand({ SecretId: secretId }));
            return parseOtlpHeaders(SecretString ?? '');
          })
        : undefined;
      return otlpBuildTraces(async () => ({ endpoint, ...(headers ? { headers: await headers() } : {}) }), logger);
    });
    return (await exporter)(ended);
  };
}
