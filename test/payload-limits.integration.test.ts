/**
 * Step Functions fails an execution whose state input or output passes 256 KiB
 * (States.DataLimitExceeded, which no Catch handles: the build would end with no cleanup state and
 * no readable Cause). The largest build a pipeline file allows, run through the real definition:
 * as many steps as a file may have, commands that bring the file near its size limit, and every
 * step printing far more than its log tail. Every state's data must stay well inside the limit.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAX_PIPELINE_BYTES, MAX_STEPS, parsePipeline } from '../lib/pipeline/index.js';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { printedStatusReporter } from '../lib/emulators/lambda/printed-status.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import type { StepResult } from '../lib/workflow/state-data.js';

const STATE_DATA_LIMIT = 256 * 1024;
/** Each step prints this many lines of 200 characters: 40 KiB, twenty times its log tail. */
const LOG_LINES = 200;

let cluster: EmbeddedCluster;
let root: string;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
  root = await mkdtemp(path.join(tmpdir(), 'payload-limits-'));
  await writeFile(path.join(root, 'kubeconfig'), cluster.kubeconfigYaml());
});
afterAll(async () => {
  await cluster.stop();
  await rm(root, { recursive: true, force: true });
});

/** The largest file the limits allow: MAX_STEPS steps, each padded with a long `env` value. */
function largestPipeline(): string {
  const step = (i: number, padding: string) =>
    `  - name: step-${i}\n    image: alpine:3.20\n    timeout: 20m\n    env: { PADDING: "${padding}" }\n    commands:\n      - 'i=0; while [ $i -lt ${LOG_LINES} ]; do printf "%0200d\\n" $i; i=$((i+1)); done'\n      - echo step ${i} done\n`;
  const header = 'version: 1\ncheckout: false\nsteps:\n';
  const bare = header + Array.from({ length: MAX_STEPS }, (_, i) => step(i, '')).join('');
  const padding = 'p'.repeat(Math.floor((MAX_PIPELINE_BYTES - Buffer.byteLength(bare) - 64) / MAX_STEPS));
  return header + Array.from({ length: MAX_STEPS }, (_, i) => step(i, padding)).join('');
}

/** Every piece of state data the history shows: the states' inputs and outputs and the tasks' results. */
function stateData(events: ExecutionEvent[]): { what: string; bytes: number }[] {
  return events.flatMap((event) =>
    [event.state?.input, event.state?.output, event.output]
      .filter((data) => data !== undefined)
      .map((data) => ({ what: `${event.type} ${event.state?.name ?? ''}`, bytes: Buffer.byteLength(JSON.stringify(data)) })),
  );
}

describe('the largest build a pipeline file allows', () => {
  it(`runs ${MAX_STEPS} steps with long logs, every state's data far inside 256 KiB`, async () => {
    const text = largestPipeline();
    expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_PIPELINE_BYTES * 0.95);
    expect(parsePipeline(text, 'p.yml').steps).toHaveLength(MAX_STEPS);

    const events: ExecutionEvent[] = [];
    const summary = await startLocalExecution(
      { build: { id: 'largest-build', trigger: 'test' }, pipeline: { file: 'p.yml', text }, withoutSource: 'no checkout: the steps print' },
      {
        runtime: localTaskRuntime({ kubeconfig: path.join(root, 'kubeconfig'), namespace: 'default', logsDir: path.join(root, 'logs') }),
        statuses: printedStatusReporter(() => {}),
        overrides: { waitMs: 10, retryMs: 5 },
        onEvent: (event) => events.push(event),
      },
    ).result;
    expect({ status: summary.status, error: summary.error }).toEqual({ status: 'SUCCEEDED', error: null });
    expect(summary.steps.filter((s) => s.status === 'succeeded')).toHaveLength(MAX_STEPS);

    const largest = stateData(events).reduce((a, b) => (b.bytes > a.bytes ? b : a));
    // The file's own size, carried as text and as parsed steps, is what dominates; logs add nothing.
    expect(largest.bytes).toBeLessThan(STATE_DATA_LIMIT / 2);
    expect(largest.bytes).toBeLessThan(MAX_PIPELINE_BYTES * 1.5);

    // What the Map collects per step is a few fields, not the log's tail.
    // The iteration's output: what its last state (ReportProgress, after FinishStep) leaves.
    const iterationOutputs = events.filter((e) => e.type === 'StateExited' && e.state?.name === 'ReportProgress').map((e) => JSON.stringify(e.state?.output));
    expect(iterationOutputs).toHaveLength(MAX_STEPS);
    expect(Math.max(...iterationOutputs.map((o) => Buffer.byteLength(o)))).toBeLessThan(512);
    const runSteps = events.find((e) => e.type === 'StateExited' && e.state?.name === 'RunSteps');
    expect(runSteps?.state?.output).not.toHaveProperty('results');

    // And nothing of the logs was lost for it: each whole log is in the store.
    const results = events.filter((e) => e.type === 'TaskSucceeded' && e.state?.name === 'FinishStep').map((e) => e.state?.output as StepResult);
    const last = await readFile(results.at(-1)!.log!, 'utf8');
    expect(last.split('\n').filter((line) => /^\d{200}$/.test(line))).toHaveLength(LOG_LINES);
    expect(results.at(-1)!.logTail).toContain(`step ${MAX_STEPS - 1} done`);
  }, 120_000);
});
