/**
 * Sends a build's trace (build-trace.ts) to an OTLP/HTTP endpoint with OpenTelemetry's own SDK and
 * exporter (@opentelemetry/sdk-trace-base, @opentelemetry/exporter-trace-otlp-proto), once, when
 * the build ends. The spans are made with the times the build recorded (explicit start and end
 * times: they happened before this function ran), collected, and exported in one request that is
 * waited for: a Lambda is frozen once it returns, so nothing may be left to a background flush.
 * An export that fails is logged and returned as `false`, never thrown: a trace is an observer's,
 * and the build has ended whatever becomes of it.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { buildTrace, type EndedBuild, type TraceSpan } from './build-trace.js';
import type { TaskLog } from './task-log.js';

/** Where traces go: the OTLP/HTTP endpoint, and the headers it wants (an API key, say). */
export interface TraceDestination {
  endpoint: string;
  headers?: Record<string, string>;
}

/** Exports one ended build as a trace; false (logged) when it could not be sent. */
export type BuildTraceExport = (ended: EndedBuild) => Promise<boolean>;

/** The service every span's resource names. */
export const TRACE_SERVICE_NAME = 'serverless-step-runner';

/** Long enough for a collector across the internet, well within ReportStatus's own timeout. */
const EXPORT_TIMEOUT_MS = 10_000;

const EXPORT_SUCCESS = 0;

/**
 * The traces URL of an endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT is read by the SDKs
 * ("Endpoint URLs for OTLP/HTTP", opentelemetry.io/docs/specs/otel/protocol/exporter/): `v1/traces`
 * is added to its path, unless the path already ends with it (a signal's own URL, as
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is given). Pure.
 */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!/\/v1\/traces\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url.toString();
}

/**
 * The headers an endpoint wants, as a secret holds them: a JSON object of strings
 * (`{"x-honeycomb-team": "..."}`), or the `key=value,key=value` list of OTEL_EXPORTER_OTLP_HEADERS
 * (values URL-encoded: "Specifying headers via environment variables",
 * opentelemetry.io/docs/specs/otel/protocol/exporter/). Throws, naming neither key nor value, on
 * anything else. Pure.
 */
export function parseOtlpHeaders(text: string): Record<string, string> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      throw new Error('the OTLP headers secret is neither a JSON object of strings nor key=value pairs');
    }
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.some(([, v]) => typeof v !== 'string')) throw new Error('the OTLP headers secret is a JSON object whose values are not all strings');
    return Object.fromEntries(entries) as Record<string, string>;
  }
  const headers: Record<string, string> = {};
  for (const pair of trimmed.split(',').filter((p) => p.trim() !== '')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error('the OTLP headers secret is neither a JSON object of strings nor key=value pairs');
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

/**
 * `destination` is asked at each export (its headers may come from a secret read then); a
 * destination that cannot be had is a failed export like any other.
 */
export function otlpBuildTraces(destination: () => Promise<TraceDestination>, log: TaskLog): BuildTraceExport {
  return async (ended) => {
    let where = 'the OTLP endpoint';
    try {
      const { endpoint, headers } = await destination();
      const url = tracesUrl(endpoint);
      // The origin only: a path or query may carry what a log must not.
      where = new URL(url).origin;
      await sendSpans(spansOf(buildTrace(ended)), url, headers ?? {});
      log.info(`Build trace exported to ${where}`, { build: ended.build.id });
      return true;
    } catch (error) {
      log.warn(`Build trace not exported to ${where}; the build is not affected`, { build: ended.build.id, reason: (error as Error).message ?? String(error) });
      return false;
    }
  };
}

/** The spans as the SDK makes them: one provider per trace, its resource the service. */
function spansOf(root: TraceSpan): ReadableSpan[] {
  const collected = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: TRACE_SERVICE_NAME }),
    spanProcessors: [new SimpleSpanProcessor(collected)],
  });
  const tracer = provider.getTracer(TRACE_SERVICE_NAME);
  const open = (span: TraceSpan, parent: Context) => {
    const made = tracer.startSpan(span.name, { kind: span.kind === 'server' ? SpanKind.SERVER : SpanKind.INTERNAL, startTime: span.start, attributes: span.attributes }, parent);
    if (span.error) made.setStatus({ code: SpanStatusCode.ERROR, message: span.message ?? span.error });
    const inside = trace.setSpan(parent, made);
    for (const child of span.children) open(child, inside);
    made.end(span.end);
  };
  // A trace of its own, whatever context the invocation runs in.
  open(root, ROOT_CONTEXT);
  return collected.getFinishedSpans();
}

/** One export request, waited for; a failure thrown with the exporter's own reason. */
async function sendSpans(spans: ReadableSpan[], url: string, headers: Record<string, string>): Promise<void> {
  const exporter = new OTLPTraceExporter({ url, headers, timeoutMillis: EXPORT_TIMEOUT_MS });
  try {
    const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
    // ExportResultCode.SUCCESS of @opentelemetry/core (the exporter's dependency, not ours).
    if (result.code !== EXPORT_SUCCESS) throw result.error ?? new Error('the exporter gave no reason');
  } finally {
    await exporter.shutdown();
  }
}
