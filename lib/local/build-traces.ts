/**
 * `run --otlp-endpoint` and `serve --otlp-endpoint`: each build that ends is sent as a trace by the
 * very module ReportStatus uses on AWS (lib/workflow/trace-export.ts), the export's outcome printed
 * beside the build's lines. The endpoint's headers come from OTEL_EXPORTER_OTLP_HEADERS, which the
 * OpenTelemetry exporter reads itself (@opentelemetry/otlp-exporter-base,
 * configuration/otlp-node-http-env-configuration.ts); the deployment reads them from a secret.
 * OpenTelemetry's SDK is loaded at the first build's end, as on Lambda (lib/lambda/build-traces.ts).
 */
import type { TaskLog } from '../workflow/task-log.js';
import type { BuildTraceExport } from '../workflow/trace-export.js';

/** Serve's console pages: an execution's, by its name (the ARN's last part), and a step's on it when the page shows that step. */
export interface ConsolePages {
  run(executionName: string): string;
  step(executionName: string, step: string): string | undefined;
}

/** `pages`: serve's console; run has none, and its traces no URL. */
export function localBuildTraces(endpoint: string, print: (line: string) => void, pages?: ConsolePages): BuildTraceExport {
  const log = {
    info: (message: string) => print(message),
    warn: (message: string, extra?: { reason?: string }) => print(extra?.reason ? `${message}: ${extra.reason}` : message),
  } as TaskLog;
  let send: Promise<BuildTraceExport> | undefined;
  return async (ended) => {
    send ??= import('../workflow/trace-export.js').then(({ otlpBuildTraces }) => otlpBuildTraces(async () => ({ endpoint }), log));
    const name = ended.executionArn?.split(':').pop();
    if (!pages || !name) return (await send)(ended);
    const stepUrls = Object.fromEntries([...ended.steps, ...(ended.running ?? [])].flatMap((s) => {
      const url = pages.step(name, s.step);
      return url ? [[s.step, url]] : [];
    }));
    return (await send)({ ...ended, runUrl: pages.run(name), stepUrls });
  };
}
