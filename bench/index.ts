/**
 * `npm run bench [-- --json] [--runs N]`: the runner's speed and cost, measured. Not a test: it
 * prints figures against the targets and exits 0 either way (1 only if it could not measure).
 */
import './quiet.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEmbeddedCluster, DEFAULT_TIMINGS } from '../lib/local/cluster/index.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { measureApiRequestsPerPoll } from './api-requests.js';
import { bundledPollStep, measureColdStart } from './cold-start.js';
import { checkCost, timeToFailed } from './image-check.js';
import {
  costPerStepHour,
  DEFAULT_ASSUMPTIONS,
  DESIGNS,
  orchestrationCost,
  simulatedCompletionLatencyMs,
  variant,
  type Design,
  type OrchestrationCost,
  type StepHourCost,
  type Variant,
} from './orchestration-cost.js';
import { measurePollMemory } from './poll-memory.js';
import { requestCounter } from './request-counter.js';
import { median, percentile, round } from './stats.js';
import { measureRealCompletionLatency, type DesignRuntimes } from './step-end-latency.js';
import { measureSurfaceLatency } from './surface-latency.js';
import { mkdir } from 'node:fs/promises';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NAMESPACE = 'default';

export const TARGETS = {
  surfaceLatencyMedianMs: 1500,
  transitions10m: 60,
  coldStartRatio: 3,
  apiRequestsPerPoll: 2,
  missingImageTimeToFailedMs: 2000,
  imageCheckAddsMs: 500,
  /** Container exit -> next step's pod created, `watch`, every step length. */
  completionLatencyMedianMs: 1000,
  completionLatencyP90Ms: 2000,
  /** Cost per step-hour of `watch` at most `schedule`'s (ratio). */
  costPerStepHourVsSchedule: 1,
};

/** Step lengths of the completion-latency samples: real seconds, and simulated minutes. */
const REAL_SLEEPS = [2, 2.7, 3.4, 4.1, 4.8, 5.5, 6.2, 6.9];
const SIM_LENGTHS = { minutes: 120, tenMinutes: 600 } as const;
const SIM_SAMPLES = Array.from({ length: 8 }, (_, k) => round(k * 7.3, 1));
const SPREAD_SAMPLES = Array.from({ length: 12 }, (_, k) => k * 25);

/** What-ifs for the running watch (not deployed; see bench/README.md). */
const ALTERNATIVES: Variant[] = [
  { label: 'watch 290s, 128MB', design: 'watch', runningWatchSeconds: 290, pollMemoryMb: 128 },
  { label: 'watch first 15 min, 128MB', design: 'watch', watchFirstSeconds: 900, pollMemoryMb: 128 },
  { label: 'watch 240s/wait 60s, 128MB', design: 'watch', waitAfterWatchSeconds: 60, pollMemoryMb: 128 },
  { label: 'schedule, 128MB', design: 'schedule', pollMemoryMb: 128 },
];

const { values } = parseArgs({ options: { json: { type: 'boolean' }, runs: { type: 'string' } } });
const runs = Math.max(10, Number(values.runs ?? 12));
// With --json the last line of stdout is the figures; the table goes to stderr.
const print = (line = '') => (values.json ? process.stderr : process.stdout).write(`${line}\n`);
const verdict = (ok: boolean, missedBy: string) => (ok ? 'met' : `MISSED by ${missedBy}`);
const started = Date.now();
const summary = (values: number[]) => ({ median: round(median(values)), p90: round(percentile(values, 90)), samples: values.length });
type Summary = ReturnType<typeof summary>;

const scratch = await mkdtemp(path.join(tmpdir(), 'step-runner-bench-'));
const counter = requestCounter();
const cluster = await startEmbeddedCluster({ workspace: scratch, timings: DEFAULT_TIMINGS, faults: counter.hook });
const kubeconfig = path.join(scratch, 'kubeconfig');
await writeFile(kubeconfig, cluster.kubeconfigYaml());
const runtime = localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir: path.join(scratch, 'logs') });

try {
  print(`Embedded cluster at ${cluster.url}, DEFAULT_TIMINGS (schedule ${DEFAULT_TIMINGS.scheduleMs} ms, pull ${DEFAULT_TIMINGS.pullMs} ms)`);

  // 1. Surface latency of an image pull failure.
  const surface = await measureSurfaceLatency(cluster.kubeConfig(), runtime, runs);
  const latencies = surface.map((r) => r.latencyMs);
  const surfaceLatencyMs = { median: round(median(latencies)), p90: round(percentile(latencies, 90)), runs: surface.length };
  print();
  print('Surface latency: kubelet\'s first pull-failure report -> execution FAILED (real poll schedule)');
  print(`  runs ${surfaceLatencyMs.runs}, errors ${[...new Set(surface.map((r) => r.error))].join(', ')}, polls per run ${[...new Set(surface.map((r) => r.polls))].join('/')}`);
  print(`  each (ms): ${latencies.map((l) => round(l)).join(' ')}`);
  print(`  median ${surfaceLatencyMs.median} ms, p90 ${surfaceLatencyMs.p90} ms   target median <= ${TARGETS.surfaceLatencyMedianMs} ms: ${verdict(surfaceLatencyMs.median <= TARGETS.surfaceLatencyMedianMs, `${round(surfaceLatencyMs.median - TARGETS.surfaceLatencyMedianMs)} ms`)}`);

  // 2. Kubernetes API requests per poll.
  const perPoll = await measureApiRequestsPerPoll(counter, runtime);
  const apiRequestsPerPoll = Math.max(...perPoll.map((p) => p.requests));
  print();
  print('Kubernetes API requests per PollStep invocation (counted at the embedded API\'s HTTP layer)');
  const byPhase = new Map<string, number[]>();
  for (const p of perPoll) byPhase.set(p.phase, [...(byPhase.get(p.phase) ?? []), p.requests]);
  for (const [phase, counts] of byPhase) print(`  ${phase.padEnd(36)} ${counts.length} poll(s), ${[...new Set(counts)].join('/')} request(s) each`);
  print(`  max ${apiRequestsPerPoll} per poll   target <= ${TARGETS.apiRequestsPerPoll}: ${verdict(apiRequestsPerPoll <= TARGETS.apiRequestsPerPoll, `${apiRequestsPerPoll - TARGETS.apiRequestsPerPoll}`)}`);

  // 3. Completion latency in real time: steps of seconds, the three designs side by side.
  const designRuntimes: DesignRuntimes = {
    watch: { runtime },
    schedule: { runtime: localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir: path.join(scratch, 'logs'), settings: { runningWatchSeconds: 0 } }) },
    fixed5s: {
      runtime: localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir: path.join(scratch, 'logs'), settings: { pendingWatchSeconds: 0, runningWatchSeconds: 0 } }),
      waitMs: 5000,
    },
  };
  const realLatency = await measureRealCompletionLatency(cluster.url, designRuntimes, REAL_SLEEPS);
  const completionLatencyMs = {} as Record<Design, Record<'seconds' | keyof typeof SIM_LENGTHS, Summary>>;
  const simLatency = async (v: Variant) => {
    const out = {} as Record<keyof typeof SIM_LENGTHS, Summary>;
    for (const [length, base] of Object.entries(SIM_LENGTHS) as [keyof typeof SIM_LENGTHS, number][]) {
      const samples: number[] = [];
      for (const extra of SIM_SAMPLES) samples.push(await simulatedCompletionLatencyMs(v, base + extra));
      out[length] = summary(samples);
    }
    return out;
  };
  /** Steps of 10 to 15 minutes, for the what-ifs whose behaviour changes along a step's run. */
  const spreadLatency = async (v: Variant) => {
    const samples: number[] = [];
    for (const extra of SPREAD_SAMPLES) samples.push(await simulatedCompletionLatencyMs(v, SIM_LENGTHS.tenMinutes + extra));
    return summary(samples);
  };
  for (const design of DESIGNS) {
    completionLatencyMs[design] = { seconds: summary(realLatency.filter((r) => r.design === design).map((r) => r.latencyMs)), ...(await simLatency(variant(design))) };
  }
  print();
  print('Completion latency: container exit -> next step\'s pod created (median / p90 ms)');
  print(`  seconds: real time, sleep ${REAL_SLEEPS.join(', ')} s; minutes / ten minutes: simulated, ${SIM_LENGTHS.minutes} / ${SIM_LENGTHS.tenMinutes} s + ${SIM_SAMPLES.join(', ')} s`);
  print(`  ${'design'.padEnd(9)} ${'seconds'.padStart(15)} ${'minutes'.padStart(15)} ${'ten minutes'.padStart(15)}   polls while running (real)`);
  for (const design of DESIGNS) {
    const l = completionLatencyMs[design];
    const cell = (x: Summary) => `${x.median} / ${x.p90}`.padStart(15);
    print(`  ${design.padEnd(9)} ${cell(l.seconds)} ${cell(l.minutes)} ${cell(l.tenMinutes)}   ${realLatency.filter((r) => r.design === design).map((r) => r.runningPolls).join(' ')}`);
  }
  print(`  watch, each real sample (ms): ${realLatency.filter((r) => r.design === 'watch').map((r) => `${r.sleepSeconds}s:${r.latencyMs}`).join(' ')}`);
  const watchLatency = Object.values(completionLatencyMs.watch);
  const worstMedian = Math.max(...watchLatency.map((x) => x.median));
  const worstP90 = Math.max(...watchLatency.map((x) => x.p90));
  print(`  watch, every length: median <= ${TARGETS.completionLatencyMedianMs} ms: ${verdict(worstMedian <= TARGETS.completionLatencyMedianMs, `${worstMedian - TARGETS.completionLatencyMedianMs} ms`)}; p90 <= ${TARGETS.completionLatencyP90Ms} ms: ${verdict(worstP90 <= TARGETS.completionLatencyP90Ms, `${worstP90 - TARGETS.completionLatencyP90Ms} ms`)}`);

  // 4. Orchestration cost in simulated time.
  const costs: OrchestrationCost[] = [];
  for (const minutes of [1, 10, 60]) {
    for (const design of DESIGNS) costs.push(await orchestrationCost(minutes, variant(design)));
  }
  const cost = (minutes: number, schedule: Design) => costs.find((c) => c.stepMinutes === minutes && c.schedule === schedule)!;
  print();
  print(`Orchestration cost of one build with one step (simulated time; pending ${DEFAULT_ASSUMPTIONS.pendingSeconds} s, ${DEFAULT_ASSUMPTIONS.memoryMb} MB, ${DEFAULT_ASSUMPTIONS.invocationSeconds * 1000} ms billed per invocation plus watch time)`);
  print(`  ${'step'.padEnd(6)} ${'design'.padEnd(9)} ${'transitions'.padStart(11)} ${'invocations'.padStart(11)} ${'polls'.padStart(6)} ${'GB-s'.padStart(7)} ${'USD'.padStart(9)}`);
  for (const c of costs) {
    print(`  ${`${c.stepMinutes}m`.padEnd(6)} ${c.schedule.padEnd(9)} ${String(c.transitions).padStart(11)} ${String(c.invocations).padStart(11)} ${String(c.polls).padStart(6)} ${round(c.gbSeconds, 2).toFixed(2).padStart(7)} ${c.dollars.toFixed(5).padStart(9)}`);
  }
  const transitions = {
    '1m': cost(1, 'watch').transitions,
    '10m': cost(10, 'watch').transitions,
    '60m': cost(60, 'watch').transitions,
    schedule10m: cost(10, 'schedule').transitions,
    fixed5s10m: cost(10, 'fixed5s').transitions,
  };
  print(`  10-minute step (watch, as deployed): ${transitions['10m']} transitions   target <= ${TARGETS.transitions10m}: ${verdict(transitions['10m'] <= TARGETS.transitions10m, `${transitions['10m'] - TARGETS.transitions10m} transitions`)} (schedule: ${transitions.schedule10m})`);

  // 5. Cost per step-hour.
  const hourly: StepHourCost[] = [];
  for (const design of DESIGNS) hourly.push(await costPerStepHour(variant(design)));
  hourly.splice(1, 0, await costPerStepHour({ label: 'watch, 128MB', design: 'watch', pollMemoryMb: 128 }));
  type Latencies = Record<keyof typeof SIM_LENGTHS | 'tenToFifteenMinutes', Summary>;
  const alternatives: (StepHourCost & { latencyMs: Latencies })[] = [];
  for (const v of ALTERNATIVES) alternatives.push({ ...(await costPerStepHour(v)), latencyMs: { ...(await simLatency(v)), tenToFifteenMinutes: await spreadLatency(v) } });
  const hourOf = (label: string) => [...hourly, ...alternatives].find((h) => h.label === label)!;
  const money = (h: StepHourCost) => ({
    transitions: h.transitions,
    invocations: h.invocations,
    watchedSeconds: round(h.watchedSeconds),
    gbSeconds: round(h.gbSeconds, 1),
    usd: round(h.dollars, 5),
    pollMemoryMb: h.pollMemoryMb,
  });
  print();
  print('Cost per step-hour: a step running 3600 s less one exiting as it starts (simulated; other functions 256 MB, arm64 prices)');
  print(`  ${'design'.padEnd(27)} ${'transitions'.padStart(11)} ${'invocations'.padStart(11)} ${'watched s'.padStart(9)} ${'GB-s'.padStart(7)} ${'USD'.padStart(8)}   latency median/p90 ms (minutes; ten minutes; 10-15 minutes)`);
  const rows: (StepHourCost & { latencyMs?: Latencies })[] = [...hourly, ...alternatives];
  for (const h of rows) {
    const l = h.latencyMs;
    const lat = l ? `${l.minutes.median}/${l.minutes.p90}; ${l.tenMinutes.median}/${l.tenMinutes.p90}; ${l.tenToFifteenMinutes.median}/${l.tenToFifteenMinutes.p90}` : '';
    print(`  ${h.label.padEnd(27)} ${String(h.transitions).padStart(11)} ${String(h.invocations).padStart(11)} ${String(round(h.watchedSeconds)).padStart(9)} ${h.gbSeconds.toFixed(1).padStart(7)} ${h.dollars.toFixed(5).padStart(8)}   ${lat}`);
  }
  const watchHour = hourOf('watch').dollars;
  const scheduleHour = hourOf('schedule').dollars;
  const watch128Hour = hourOf('watch, 128MB').dollars;
  const pct = (a: number) => `${round((a / scheduleHour - 1) * 100)} %`;
  print(`  watch <= schedule ($${scheduleHour.toFixed(5)}): PollStep at 256 MB ${verdict(watchHour <= scheduleHour * TARGETS.costPerStepHourVsSchedule, `$${(watchHour - scheduleHour).toFixed(5)} (+${pct(watchHour)})`)}; at 128 MB, as deployed, ${verdict(watch128Hour <= scheduleHour * TARGETS.costPerStepHourVsSchedule, `$${(watch128Hour - scheduleHour).toFixed(5)} (+${pct(watch128Hour)})`)}`);
  print('  not counted: the live log\'s S3 PUTs while a watch holds (at most one per 10 s of steady output: 360/h, $0.0018/h)');
  const costPerStepHourFigures = {
    ...Object.fromEntries(hourly.map((h) => [h.label === 'watch, 128MB' ? 'watch128' : h.label, money(h)])),
    alternatives: Object.fromEntries(alternatives.map((h) => [h.label, { ...money(h), latencyMs: h.latencyMs }])),
  };

  // 6. Cold start of the PollStep handler.
  const cold = await measureColdStart(ROOT, path.join(scratch, 'cold-start'));
  const coldStart = { bundleBytes: cold.bundleBytes, bundledInitMs: round(cold.bundledInitMs, 1), unbundledInitMs: round(cold.unbundledInitMs, 1), ratio: round(cold.ratio, 2) };
  print();
  print(`Cold start of PollStep (module init in a fresh node, median of ${cold.samples})`);
  print(`  bundle ${coldStart.bundleBytes} bytes (+ ${cold.sourceMapBytes} bytes of source map)`);
  print(`  bundled ${coldStart.bundledInitMs} ms, unbundled ${coldStart.unbundledInitMs} ms, ratio ${coldStart.ratio}x   target >= ${TARGETS.coldStartRatio}x: ${verdict(coldStart.ratio >= TARGETS.coldStartRatio, `${round(TARGETS.coldStartRatio - coldStart.ratio, 2)}x`)}`);
  print(`  (bundled with --enable-source-maps: ${round(cold.bundledWithSourceMapsInitMs, 1)} ms, not set by default)`);

  // 7. PollStep's memory while it holds a watch (the bundle above, in fresh processes).
  const memoryDir = path.join(scratch, 'memory');
  await mkdir(memoryDir, { recursive: true });
  const memory = await measurePollMemory(bundledPollStep(path.join(scratch, 'cold-start')), memoryDir, cluster.url, runtime);
  const memoryOf = (scenario: string) => {
    const runs = memory.filter((m) => m.scenario === scenario);
    return {
      peakRssMb: Math.max(...runs.map((m) => m.peakRssMb)),
      maxRssMb: Math.max(...runs.map((m) => m.maxRssMb)),
      importedRssMb: round(median(runs.map((m) => m.importedRssMb)), 1),
      nodeRssMb: round(median(runs.map((m) => m.nodeRssMb)), 1),
      peakHeapUsedMb: Math.max(...runs.map((m) => m.peakHeapUsedMb)),
      invocationMs: round(median(runs.map((m) => m.invocationMs))),
      invocations: Math.max(...runs.map((m) => m.invocations)),
      samples: runs.length,
    };
  };
  const pollStepMemory = { quiet: memoryOf('quiet') };
  print();
  print('PollStep memory: the bundled handler in a fresh node, one invocation holding a running watch to the container\'s exit');
  for (const [scenario, m] of Object.entries(pollStepMemory)) {
    print(`  ${scenario.padEnd(6)} (${m.samples}): node alone ${m.nodeRssMb} MB RSS, after import ${m.importedRssMb} MB, peak ${m.peakRssMb} MB (maxRSS ${m.maxRssMb} MB), V8 heap used peak ${m.peakHeapUsedMb} MB, ${m.invocationMs} ms in ${m.invocations} invocation(s); at 128 MB: ${round(128 - m.maxRssMb, 1)} MB spare`);
  }
  print(`  phases: ${memory.map((m) => `${m.scenario} ${m.phase}`).join(', ')}`);

  // 8. The image check: a missing image in the last of five 10-second steps, and what the check costs.
  const checkedRuns = [];
  for (let run = 0; run < 5; run++) checkedRuns.push(await timeToFailed(runtime, true));
  const unchecked = await timeToFailed(runtime, false);
  const checkCosts = await checkCost(runtime, cluster.registry, cluster.registry.url, runs);
  const imageCheck = {
    timeToFailedMs: { checked: round(median(checkedRuns.map((r) => r.ms))), unchecked: round(unchecked.ms) },
    addsMs: { cold: round(checkCosts.coldMs - checkCosts.offMs, 1), warm: round(checkCosts.warmMs - checkCosts.offMs, 1) },
    registryRequestsPerImage: round(checkCosts.requestsPerImage, 2),
  };
  print();
  print('Image check: missing image in the last of five steps, each 10 s (StartExecution -> ExecutionFailed)');
  print(`  check on:  ${checkedRuns.map((r) => round(r.ms)).join(' ')} ms (median ${imageCheck.timeToFailedMs.checked} ms), ${[...new Set(checkedRuns.map((r) => r.error))].join(', ')}, steps run ${checkedRuns[0]!.stepsRun}`);
  print(`  check off: ${imageCheck.timeToFailedMs.unchecked} ms, ${unchecked.error}, steps run ${unchecked.stepsRun}`);
  print(`  target <= ${TARGETS.missingImageTimeToFailedMs} ms: ${verdict(imageCheck.timeToFailedMs.checked <= TARGETS.missingImageTimeToFailedMs, `${imageCheck.timeToFailedMs.checked - TARGETS.missingImageTimeToFailedMs} ms`)}`);
  print(`Image check cost, five images that exist (PrepareBuild medians of ${checkCosts.runs}: off ${round(checkCosts.offMs, 1)} ms, fresh checker ${round(checkCosts.coldMs, 1)} ms, warm ${round(checkCosts.warmMs, 1)} ms)`);
  print(`  adds ${imageCheck.addsMs.cold} ms (fresh: a cold Lambda's first build), ${imageCheck.addsMs.warm} ms (verdicts cached); ${imageCheck.registryRequestsPerImage} registry requests per image (HEAD, token, HEAD)`);
  print(`  target <= ${TARGETS.imageCheckAddsMs} ms: ${verdict(imageCheck.addsMs.cold <= TARGETS.imageCheckAddsMs, `${round(imageCheck.addsMs.cold - TARGETS.imageCheckAddsMs)} ms`)}`);

  const figures = {
    surfaceLatencyMs,
    transitions,
    coldStart,
    apiRequestsPerPoll,
    imageCheck,
    completionLatencyMs,
    costPerStepHour: costPerStepHourFigures,
    pollStepMemory,
    benchSeconds: round((Date.now() - started) / 1000),
  };
  print();
  print(`Bench took ${figures.benchSeconds} s`);
  if (values.json) process.stdout.write(`${JSON.stringify(figures)}\n`);
} finally {
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
}
