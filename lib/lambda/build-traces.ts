/**
 * ReportStatus's trace export on AWS (lib/workflow/trace-export.ts), when the deployment names an
 * OTLP endpoint (`OTLP_ENDPOINT`, params.otlpEndpoint): the headers it wants are read from Secrets
 * Manager (`OTLP_HEADERS_SECRET_ID`) as the deployment's other secrets are, cached as long, but at
 * the export and not by a middleware: a secret that cannot be read costs the trace, never the
 * commit status or the build.
 */
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { logger } from '../workflow/lambda-task.js';
import { otlpBuildTraces, parseOtlpHeaders, type BuildTraceExport } from '../workflow/trace-export.js';
import { cachedRead, secretsManagerClient } from './secrets.js';
import { EnvNames } from './settings.js';

export function lambdaBuildTraces(env: NodeJS.ProcessEnv): BuildTraceExport | undefined {
  const endpoint = env[EnvNames.otlpEndpoint];
  if (!endpoint) return undefined;
  const secretId = env[EnvNames.otlpHeadersSecretId];
  const headers = secretId
    ? cachedRead(async () => {
        const { SecretString } = await secretsManagerClient().send(new GetSecretValueCommand({ SecretId: secretId }));
        return parseOtlpHeaders(SecretString ?? '');
      })
    : undefined;
  return otlpBuildTraces(async () => ({ endpoint, ...(headers ? { headers: await headers() } : {}) }), logger);
}
