/**
 * The metric records a build and its steps write (lib/workflow/metric-records.ts), made by the
 * tasks that run at their ends (PollStep and FinishStep on the in-memory cluster, ReportStatus),
 * and written by Powertools Metrics as Embedded Metric Format documents, each validated against
 * the EMF specification's JSON schema (test/fixtures/emf/emf-schema.json, from the CloudWatch
 * User Guide).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { Ajv } from 'ajv';
import { fakeStepCluster, type FakeStepCluster } from '../lib/kube/fake-cluster.js';
import { emfDocument, emfMetricsSink } from '../lib/lambda/emf-metrics.js';
import { parseImageReference } from '../lib/pipeline/index.js';
import { DEFAULT_METRICS_NAMESPACE, METRICS, type MetricRecord, type MetricsSink } from '../lib/workflow/metric-records.js';
import { DEFAULT_PRICES, podDollars, type Prices } from '../lib/workflow/cost-model.js';
import type { PollState, StepInput, StepResult } from '../lib/workflow/state-data.js';
import type { StepLogStore, StepRecord } from '../lib/workflow/step-log-store.js';
import type { TaskDeps } from '../lib/workflow/task-deps.js';
import { finishStep } from '../lib/workflow/tasks/finish-step.js';
import { pollStep } from '../lib/workflow/tasks/poll-step.js';
import { reportStatus } from '../lib/workflow/tasks/report-status.js';
import { cleanupEndedExecution } from '../lib/workflow/tasks/cleanup-ended-execution.js';
import { at, condition, podEvent, stepPod, terminated, waiting } from './fixtures/kube/builders.js';

const schema = JSON.parse(readFileSync(new URL('./fixtures/emf/emf-schema.json', import.meta.url), 'utf8')) as object;
const validEmf = new Ajv({ allErrors: true }).compile(schema);

const silent = { info: () => undefined, warn: () => undefined };
const BUILD = { id: 'b-42', repository: 'octo-org/app', commit: 'c0ffee', ref: 'refs/heads/main', event: 'push' };

function memoryLogs(): StepLogStore {
  const records: StepRecord[] = [];
  return {
    partEveryMs: 0,
    put: async (build, step) => `mem://${build}/${step}`,
    putPart: async (build, step) => `mem://${build}/${step}.parts`,
    liveLocation: (build, step) => `mem://${build}/${step}.parts`,
    complete: async (build, step) => ({ location: `mem://${build}/${step}`, tail: '' }),
    putResult: async (_build, record) => void records.push(record),
    results: async () => records,
  };
}

/** The records a run writes, as the sink receives them. */
function capture(): MetricsSink & { records: MetricRecord[] } {
  const records: MetricRecord[] = [];
  return { records, write: (record) => void records.push(record) };
}

const input = (name: string, poll?: PollState): StepInput => ({
  build: BUILD,
  namespace: 'ci',
  settings: { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120 },
  step: { name, image: 'node:20', imageRef: parseImageReference('node:20'), commands: ['npm test'], env: {}, pull: 'if-not-present', timeoutSeconds: 3600, secrets: [] },
  index: 0,
  ...(poll ? { poll } : {}),
});

const launched = (podName: string, extra: Partial<PollState> = {}): PollState => ({
  podName,
  launchedAt: at(0).toISOString(),
  runningSince: null,
  phase: 'pending',
  reason: 'PodCreated',
  nextPollSeconds: 1,
  polls: 0,
  ...extra,
});

interface StepCase {
  name: string;
  /** The pod and its events as the cluster has them when the last poll looks. */
  pod: V1Pod;
  events: (pod: V1Pod) => CoreV1Event[];
  /** The pod is deleted (the step's end) before PollStep looks: the poll reads no status, only events. */
  gone?: boolean;
  endsAt: number;
  metrics: Record<string, unknown>;
  error?: string;
}

/**
 * Each step asks for a quarter of its node, a c6g.xlarge (4 vCPUs, 8 GiB, $0.136 an hour): however
 * the node's price is split between a vCPU and a GiB, the pod costs a quarter of it, $0.034 an hour,
 * from the kubelet's acceptance of the pod (its startTime) to its end (docs/cost.md).
 */
const NODE_TYPE = 'c6g.xlarge';
const quarterNodeFor = (seconds: number) => expect.closeTo((0.136 / 4) * (seconds / 3600), 12);

function askingQuarterNode(pod: V1Pod): V1Pod {
  const [container, ...rest] = pod.spec!.containers;
  return { ...pod, spec: { ...pod.spec!, containers: [{ ...container!, resources: { requests: { cpu: '1', memory: '2Gi' } } }, ...rest] } };
}

const pulledNode = (pod: V1Pod) => [
  podEvent(pod, { reason: 'Scheduled', message: 'Successfully assigned ci/b-42-test to ip-10-0-12-34.eu-west-1.compute.internal', container: null, first: 40 }),
  podEvent(pod, { reason: 'Pulling', message: 'Pulling image "node:20"', first: 41 }),
  podEvent(pod, { reason: 'Pulled', message: 'Successfully pulled image "node:20" in 7.264s (7.264s including waiting). Image size: 68857691 bytes.', first: 48 }),
  podEvent(pod, { reason: 'Created', message: 'Created container: step', first: 49 }),
  podEvent(pod, { reason: 'Started', message: 'Started container step', first: 50 }),
];

const STEP_CASES: StepCase[] = [
  {
    name: 'a step that waited 40 s for a node, pulled its image in 7.264 s and ran 2 min',
    pod: stepPod({ step: 'test', phase: 'Succeeded', startedAt: 40, conditions: [condition('PodScheduled', 'True', 40)], state: terminated(0, 'Completed', { started: 50, finished: 170 }) }),
    events: pulledNode,
    endsAt: 171,
    metrics: { StepDuration: 170, StepQueueTime: 40, StepPendingTime: 50, StepPullTime: 7.264, StepRunTime: 120, StepFailure: 0, StepCost: quarterNodeFor(170 - 40) },
  },
  {
    name: 'a step whose tests failed (exit 1), its image already on the node',
    pod: stepPod({ step: 'test', phase: 'Failed', conditions: [condition('PodScheduled', 'True', 2)], state: terminated(1, 'Error', { started: 4, finished: 64 }) }),
    events: (pod) => [podEvent(pod, { reason: 'Pulled', message: 'Container image "node:20" already present on machine', first: 3 })],
    endsAt: 65,
    metrics: { StepDuration: 64, StepQueueTime: 2, StepPendingTime: 4, StepPullTime: 0, StepRunTime: 60, StepFailure: 1, StepCost: quarterNodeFor(64) },
    error: 'StepFailed',
  },
  {
    name: 'a step whose image does not exist: scheduled, never started',
    pod: stepPod({ step: 'test', phase: 'Pending', conditions: [condition('PodScheduled', 'True', 1)], state: waiting('ImagePullBackOff', 'Back-off pulling image "node:20"') }),
    events: (pod) => [
      podEvent(pod, { reason: 'Pulling', message: 'Pulling image "node:20"', first: 2 }),
      podEvent(pod, { reason: 'Failed', message: 'Failed to pull image "node:20": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/node:20": not found', first: 3 }),
    ],
    endsAt: 95,
    // Still holding its requests when FinishStep ends it: priced to then.
    metrics: { StepDuration: 95, StepQueueTime: 1, StepFailure: 1, StepCost: quarterNodeFor(95) },
    error: 'ImagePullFailed',
  },
];

/** The step's poll and FinishStep, as the definition runs them, at the deployment's prices (AWS's list prices, COST_PRICES ''). */
async function runStep(cluster: FakeStepCluster, sink: MetricsSink, logs: StepLogStore, c: StepCase, prices: Prices | null = DEFAULT_PRICES): Promise<StepResult> {
  const pod = cluster.put('pod', askingQuarterNode(c.pod));
  cluster.instanceTypes.set(pod.spec!.nodeName!, NODE_TYPE);
  cluster.events.push(...c.events(pod));
  const deps: TaskDeps = { cluster, logs, metrics: sink, ...(prices ? { prices } : {}), now: () => at(c.endsAt), log: silent };
  const podName = pod.metadata!.name!;
  const poll = await pollStep(input('test', launched(podName)), deps);
  expect({ phase: poll.phase, error: poll.error }).toEqual(c.error ? { phase: 'failed', error: c.error } : { phase: 'succeeded', error: undefined });
  return finishStep(input('test', poll), deps);
}

describe('a step\'s metric record', () => {
  it.each(STEP_CASES)('$name', async (c) => {
    const cluster = fakeStepCluster({ now: () => at(0) });
    const sink = capture();
    const result = await runStep(cluster, sink, memoryLogs(), c);

    expect(sink.records).toHaveLength(1);
    const [record] = sink.records;
    expect(Object.fromEntries(record!.metrics.map((m) => [m.name, m.value]))).toEqual(c.metrics);
    // The pod FinishStep kept for the build's cost, priced by the one cost model: the step's cost is its part of the build's.
    expect(record!.metrics.find((m) => m.name === 'StepCost')).toEqual({ name: 'StepCost', unit: 'None', value: podDollars(result.pod!, DEFAULT_PRICES) });
    expect(record!.dimensionSets).toEqual(c.error ? [{ Repository: 'octo-org/app' }, { Repository: 'octo-org/app', Error: c.error }] : [{ Repository: 'octo-org/app' }]);
    expect(record!.properties).toMatchObject({ build: 'b-42', step: 'test', commit: 'c0ffee', result: c.error ? 'failed' : 'succeeded' });
    expectValidEmf(emf(record!, 'StepRunner/test'));
  });

  it('has no StepCost when the function has no prices (a deployment whose COST_PRICES is wrong), and its other metrics all the same', async () => {
    const sink = capture();
    await runStep(fakeStepCluster({ now: () => at(0) }), sink, memoryLogs(), STEP_CASES[0]!, null);

    const { StepCost, ...others } = STEP_CASES[0]!.metrics;
    expect(StepCost).toBeDefined();
    expect(Object.fromEntries(sink.records[0]!.metrics.map((m) => [m.name, m.value]))).toEqual(others);
  });

  it('has its pull time even when the only poll saw the step already ended (no events read then): FinishStep reads the events the pod left', async () => {
    const cluster = fakeStepCluster({ now: () => at(0) });
    const sink = capture();
    const c = STEP_CASES[0]!;
    const pod = cluster.put('pod', c.pod);
    cluster.events.push(...c.events(pod));
    const deps: TaskDeps = { cluster, logs: memoryLogs(), metrics: sink, now: () => at(171), log: silent, watchPod: async () => ({ pod, settled: true }) };
    const poll = await pollStep({ ...input('test', launched(pod.metadata!.name!)), settings: { ...input('test').settings, pendingWatchSeconds: 20 } }, deps, { maxWatchMs: 20_000 });
    expect(poll.timings?.pullSeconds).toBeUndefined();

    await finishStep(input('test', poll), deps);

    expect(sink.records[0]!.metrics.find((m) => m.name === 'StepPullTime')?.value).toBe(7.264);
    expect(cluster.calls.filter((call) => call.startsWith('observePod'))).toHaveLength(2);
  });

  it('costs no request of its own: FinishStep\'s one look at the pod before deleting it serves the trace and the metrics alike (the timings kept with the step\'s record)', async () => {
    const lookups = async (metrics?: ReturnType<typeof capture>) => {
      const cluster = fakeStepCluster({ now: () => at(0) });
      const pod = cluster.put('pod', STEP_CASES[0]!.pod);
      const deps: TaskDeps = { cluster, logs: memoryLogs(), ...(metrics ? { metrics } : {}), now: () => at(171), log: silent, watchPod: async () => ({ pod, settled: true }) };
      const poll = await pollStep({ ...input('test', launched(pod.metadata!.name!)), settings: { ...input('test').settings, pendingWatchSeconds: 20 } }, deps, { maxWatchMs: 20_000 });
      await finishStep(input('test', poll), deps);
      return cluster.calls.filter((call) => call.startsWith('observePod')).length;
    };
    const sink = capture();
    expect(await lookups(sink)).toBe(await lookups());
    expect(sink.records).toHaveLength(1);
  });
});

describe('a build\'s metric record', () => {
  /** The build's steps run as the cases above, then its end is reported as the definition does. */
  async function endBuild(cases: StepCase[], end: { outcome: 'succeeded' | 'failed'; failure?: { Error: string; Cause: string }; cost?: { usd: number } }) {
    const sink = capture();
    const logs = memoryLogs();
    for (const c of cases) await runStep(fakeStepCluster({ now: () => at(0) }), capture(), logs, c);
    const reporter = { report: async () => ({ posted: true as const, state: 'success', description: 'The build succeeded' }) };
    await reportStatus(
      { build: BUILD, outcome: end.outcome, executionArn: 'arn:aws:states:us-east-1:123456789012:execution:build:b-1', startedAt: at(-5).toISOString(), ...(end.failure ? { failure: end.failure } : {}) },
      // The build's cost as ReportStatus works it out (cost-model.ts), which the record then carries.
      { reporter, log: silent, results: logs.results, metrics: sink, now: () => at(200), ...(end.cost ? { cost: async () => ({ usd: end.cost!.usd, parts: {}, prices: { region: 'us-east-1', asOf: '2026-12-06' } }) } : {}) },
    );
    return sink.records;
  }

  it.each([
    {
      name: 'a build that succeeded, with its cost',
      cases: [STEP_CASES[0]!],
      end: { outcome: 'succeeded' as const, cost: { usd: 0.0123 } },
      metrics: { BuildDuration: 205, BuildQueueTime: 40, BuildPullTime: 7.264, BuildFailure: 0, BuildCost: 0.0123 },
      dimensions: [{ Repository: 'octo-org/app' }],
    },
    {
      name: 'a build whose second step failed: the steps\' queue and pull times added up',
      cases: [STEP_CASES[0]!, STEP_CASES[1]!],
      end: { outcome: 'failed' as const, failure: { Error: 'StepFailed', Cause: 'Step "test" failed: exited with 1' } },
      metrics: { BuildDuration: 205, BuildQueueTime: 42, BuildPullTime: 7.264, BuildFailure: 1 },
      dimensions: [{ Repository: 'octo-org/app' }, { Repository: 'octo-org/app', Error: 'StepFailed' }],
    },
    {
      name: 'a build refused before any step ran (InvalidPipeline): its duration and failure only',
      cases: [],
      end: { outcome: 'failed' as const, failure: { Error: 'InvalidPipeline', Cause: '.step-runner.yml: line 3: unknown key' } },
      metrics: { BuildDuration: 205, BuildFailure: 1 },
      dimensions: [{ Repository: 'octo-org/app' }, { Repository: 'octo-org/app', Error: 'InvalidPipeline' }],
    },
  ])('$name', async ({ cases, end, metrics, dimensions }) => {
    const records = await endBuild(cases, end);
    expect(records).toHaveLength(1);
    expect(Object.fromEntries(records[0]!.metrics.map((m) => [m.name, m.value]))).toEqual(metrics);
    expect(records[0]!.dimensionSets).toEqual(dimensions);
    expectValidEmf(emf(records[0]!));
  });

  it('is written by the ended-execution cleanup for a build stopped outside the definition (no ReportFailed ran), timed from the event\'s startDate', async () => {
    const sink = capture();
    const logs = memoryLogs();
    await runStep(fakeStepCluster({ now: () => at(0) }), capture(), logs, STEP_CASES[0]!);
    const deps: TaskDeps = { cluster: fakeStepCluster({ now: () => at(0) }), logs, metrics: sink, now: () => at(600), log: silent };
    const event = { detail: { executionArn: 'arn:aws:states:us-east-1:000000000000:execution:build:b-42', name: 'b-42', status: 'ABORTED', input: JSON.stringify({ build: BUILD }), startDate: at(-5).getTime() } };

    await cleanupEndedExecution(event, 'ci', deps);

    expect(sink.records.map((r) => [Object.fromEntries(r.metrics.map((m) => [m.name, m.value])), r.dimensionSets.at(-1)])).toEqual([
      [{ BuildDuration: 605, BuildQueueTime: 40, BuildPullTime: 7.264, BuildFailure: 1 }, { Repository: 'octo-org/app', Error: 'ExecutionAborted' }],
    ]);
    expectValidEmf(emf(sink.records[0]!));

    // A superseded build (StopExecution by a newer one of its group) is no failure to count.
    await cleanupEndedExecution({ detail: { ...event.detail, error: 'Superseded', cause: 'Superseded by abc123' } }, 'ci', deps);
    expect(sink.records).toHaveLength(1);
  });

  it('is written for neither a skipped build nor a report along the way (started, a step\'s progress)', async () => {
    const sink = capture();
    const reporter = { report: async () => ({ posted: true as const, state: 'success', description: 'The build succeeded' }) };
    for (const request of [
      { build: BUILD, outcome: 'succeeded' as const, skipped: 'no file matches when.paths' },
      { build: BUILD, outcome: 'started' as const },
      { build: BUILD, outcome: 'progress' as const },
    ]) {
      await reportStatus(request, { reporter, log: silent, metrics: sink });
    }
    expect(sink.records).toEqual([]);
  });
});

describe('the EMF document', () => {
  it('is one line on stdout per record, in the deployment\'s namespace, with no dimension but the record\'s (no Powertools service)', () => {
    const lines: string[] = [];
    const warnings: string[] = [];
    const now = new Date();
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof process.stdout.write;
    // As deployed, where nothing turns the records off (test/setup/quiet-handlers.ts does, for the other tests).
    const disabled = process.env.POWERTOOLS_METRICS_DISABLED;
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    try {
      emfMetricsSink({ POWERTOOLS_METRICS_NAMESPACE: 'StepRunner/prod' }, (warning) => warnings.push(warning)).write({
        timestamp: now,
        dimensionSets: [{ Repository: 'octo-org/app' }],
        metrics: [{ name: 'StepDuration', unit: 'Seconds', value: 3 }],
        properties: { build: 'b-42', step: 'test' },
      });
    } finally {
      process.stdout.write = write;
      if (disabled !== undefined) process.env.POWERTOOLS_METRICS_DISABLED = disabled;
    }
    expect(lines).toHaveLength(1);
    const document = JSON.parse(lines[0]!) as Record<string, unknown>;
    expectValidEmf(document);
    expect(document).toEqual({
      _aws: { Timestamp: now.getTime(), CloudWatchMetrics: [{ Namespace: 'StepRunner/prod', Dimensions: [['Repository']], Metrics: [{ Name: 'StepDuration', Unit: 'Seconds' }] }] },
      Repository: 'octo-org/app',
      build: 'b-42',
      step: 'test',
      StepDuration: 3,
    });
    expect(warnings).toEqual([]);
    expect(DEFAULT_METRICS_NAMESPACE).toBe('StepRunner');
  });

  it('says, in the function\'s log, what Powertools finds wrong: a timestamp CloudWatch would drop', () => {
    const warnings: string[] = [];
    emfDocument({ timestamp: new Date(Date.now() - 15 * 86_400_000), dimensionSets: [{ Repository: 'r' }], metrics: [{ name: 'BuildFailure', unit: 'Count', value: 0 }], properties: {} }, 'StepRunner', (w) => warnings.push(w));
    expect(warnings).toEqual([expect.stringContaining('within 14 days in the past')]);
  });
});

/**
 * The record's EMF document, as it would be written now (Powertools warns of a timestamp over two
 * weeks old, which CloudWatch would drop): Powertools must have found nothing to warn of.
 */
function emf(record: MetricRecord, namespace?: string): object {
  const warnings: string[] = [];
  const document = emfDocument({ ...record, timestamp: new Date() }, namespace, (warning) => warnings.push(warning));
  expect(warnings).toEqual([]);
  return document;
}

/**
 * Valid by the specification's schema, and by what its prose adds that a schema cannot say: every
 * dimension a set names is a string member of the root, every metric a number, named in METRICS.
 */
function expectValidEmf(document: object): void {
  expect(validEmf.errors ?? []).toEqual([]);
  expect({ valid: validEmf(document), errors: validEmf.errors ?? [] }).toEqual({ valid: true, errors: [] });
  const root = document as Record<string, unknown> & { _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] } };
  for (const directive of root._aws.CloudWatchMetrics) {
    for (const set of directive.Dimensions) {
      expect(set.length).toBeLessThanOrEqual(30);
      for (const name of set) expect(typeof root[name]).toBe('string');
    }
    for (const { Name } of directive.Metrics) {
      expect(Object.keys(METRICS)).toContain(Name);
      expect(typeof root[Name]).toBe('number');
    }
  }
}
