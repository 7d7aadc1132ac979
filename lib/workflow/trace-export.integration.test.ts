/**
 * The export as a collector receives it: an OTLP/HTTP receiver on loopback (test/fixtures/otlp-receiver.ts)
 * decodes the request with the protocol's own .proto files.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { otlpBuildTraces } from './trace-export.js';
import type { EndedBuild } from './build-trace.js';
import type { TaskLog } from './task-deps.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../test/fixtures/otlp-receiver.js';

const T0 = Date.parse('2026-03-14T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const nanos = (seconds: number) => String(BigInt(T0 + seconds * 1000) * 1_000_000n);

const ended: EndedBuild = {
  build: { id: 'b-42', repository: 'octo/app', ref: 'refs/heads/main', commit: 'c0ffee' },
  outcome: 'failed',
  failure: { Error: 'ImagePullFailed', Cause: 'no such image' },
  startedAt: at(0),
  endedAt: at(20),
  steps: [{ step: 'test', status: 'failed', exitCode: null, error: 'ImagePullFailed', startedAt: at(2), endedAt: at(19), timeline: { scheduledAt: at(2), pullingAt: at(3) } }],
};

function recordingLog(): TaskLog & { lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string, extra?: Record<string, unknown>) => lines.push(`${message} ${JSON.stringify(extra ?? {})}`);
  return { lines, info: keep, warn: keep, error: keep, debug: keep } as unknown as TaskLog & { lines: string[] };
}

describe('otlpBuildTraces', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  it('sends the build as one trace of nested spans, with the headers, in one OTLP/HTTP protobuf request a collector decodes', async () => {
    const exported = await otlpBuildTraces(async () => ({ endpoint: receiver.endpoint, headers: { 'x-api-key': 'k-123' } }), recordingLog())(ended);
    expect(exported).toBe(true);
    expect(receiver.exports).toHaveLength(1);
    const [request] = receiver.exports;
    expect(request!.path).toBe('/v1/traces');
    expect(request!.headers['x-api-key']).toBe('k-123');
    expect(request!.headers['content-type']).toBe('application/x-protobuf');
    const spans = request!.spans;
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const byName = new Map(spans.map((span) => [span.name, span]));
    const root = byName.get('RUN octo/app')!;
    expect(root).toMatchObject({ parentSpanId: '', kind: 'SPAN_KIND_SERVER', startTimeUnixNano: nanos(0), endTimeUnixNano: nanos(20), status: { code: 'STATUS_CODE_ERROR', message: 'ImagePullFailed' } });
    expect(root.attributes).toMatchObject({ 'cicd.pipeline.name': 'octo/app', 'cicd.pipeline.run.id': 'b-42', 'cicd.pipeline.result': 'error', 'error.type': 'ImagePullFailed', 'vcs.ref.head.revision': 'c0ffee' });
    expect(root.resource['service.name']).toBe('serverless-step-runner');
    const step = byName.get('test')!;
    expect(step).toMatchObject({ parentSpanId: root.spanId, kind: 'SPAN_KIND_INTERNAL', startTimeUnixNano: nanos(2), endTimeUnixNano: nanos(19) });
    expect(step.attributes).toMatchObject({ 'cicd.pipeline.task.name': 'test', 'cicd.pipeline.task.run.id': 'b-42/test', 'cicd.pipeline.task.run.result': 'error' });
    expect(spans.filter((span) => span.parentSpanId === step.spanId).map((span) => [span.name, span.status.code])).toEqual([
      ['pending', 'STATUS_CODE_UNSET'],
      ['pulling', 'STATUS_CODE_ERROR'],
    ]);
  });

  it('logs an export the endpoint refuses, without its headers, and never throws', async () => {
    // 401: a key the collector refuses (a 503 would be retried first, as the exporter retries what may pass).
    receiver.answer(401);
    const log = recordingLog();
    try {
      const exported = await otlpBuildTraces(async () => ({ endpoint: `${receiver.endpoint}/otlp?token=s3cret`, headers: { authorization: 'Bearer s3cret' } }), log)(ended);
      expect(exported).toBe(false);
    } finally {
      receiver.answer(200);
    }
    expect(log.lines).toEqual([expect.stringContaining(`Build trace not exported to ${receiver.endpoint}`)]);
    expect(log.lines.join('\n')).not.toContain('s3cret');
  });

  it('logs a destination that cannot be had (its secret unreadable)', async () => {
    const log = recordingLog();
    const exported = await otlpBuildTraces(async () => Promise.reject(new Error('AccessDeniedException: not allowed')), log)(ended);
    expect(exported).toBe(false);
    expect(log.lines).toEqual([expect.stringMatching(/^Build trace not exported to the OTLP endpoint; .*AccessDeniedException/)]);
  });
});
