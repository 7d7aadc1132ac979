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
import { measureColdStart } from './cold-start.js';
import { checkCost, timeToFailed } from './image-check.js';
import { DEFAULT_ASSUMPTIONS, orchestrationCost, type OrchestrationCost } from './orchestration-cost.js';
import { requestCounter } from './request-counter.js';
import { median, percentile, round } from './stats.js';
import { measureSurfaceLatency } from './surface-latency.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NAMESPACE = 'default';

export const TARGETS = {
  surfaceLatencyMedianMs: 1500,
  transitions10m: 60,
  coldStartRatio: 3,
  apiRequestsPerPoll: 2,
  missingImageTimeToFailedMs: 2000,
  imageCheckAddsMs: 500,
};

const { values } = parseArgs({ options: { json: { type: 'boolean' }, runs: { type: 'string' } } });
const runs = Math.max(10, Number(values.runs ?? 12));
// With --json the last line of stdout is the figures; the table goes to stderr.
const print = (line = '') => (values.json ? process.stderr : process.stdout).write(`${line}\n`);
const verdict = (ok: boolean, missedBy: string) => (ok ? 'met' : `MISSED by ${missedBy}`);

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

  // 3. Orchestration cost in simulated time.
  const costs: OrchestrationCost[] = [];
  for (const minutes of [1, 10, 60]) {
    costs.push(await orchestrationCost(minutes, 'adaptive'));
    costs.push(await orchestrationCost(minutes, 'fixed5s'));
  }
  const cost = (minutes: number, schedule: OrchestrationCost['schedule']) => costs.find((c) => c.stepMinutes === minutes && c.schedule === schedule)!;
  print();
  print(`Orchestration cost of one build with one step (simulated time; pending ${DEFAULT_ASSUMPTIONS.pendingSeconds} s, ${DEFAULT_ASSUMPTIONS.memoryMb} MB, ${DEFAULT_ASSUMPTIONS.invocationSeconds * 1000} ms billed per invocation)`);
  print(`  ${'step'.padEnd(6)} ${'schedule'.padEnd(9)} ${'transitions'.padStart(11)} ${'invocations'.padStart(11)} ${'polls'.padStart(6)} ${'GB-s'.padStart(7)} ${'USD'.padStart(9)}`);
  for (const c of costs) {
    print(`  ${`${c.stepMinutes}m`.padEnd(6)} ${c.schedule.padEnd(9)} ${String(c.transitions).padStart(11)} ${String(c.invocations).padStart(11)} ${String(c.polls).padStart(6)} ${round(c.gbSeconds, 2).toFixed(2).padStart(7)} ${c.dollars.toFixed(5).padStart(9)}`);
  }
  const transitions = { '1m': cost(1, 'adaptive').transitions, '10m': cost(10, 'adaptive').transitions, '60m': cost(60, 'adaptive').transitions, fixed5s10m: cost(10, 'fixed5s').transitions };
  print(`  10-minute step: ${transitions['10m']} transitions   target <= ${TARGETS.transitions10m}: ${verdict(transitions['10m'] <= TARGETS.transitions10m, `${transitions['10m'] - TARGETS.transitions10m} transitions`)}`);

  // 4. Cold start of the PollStep handler.
  const cold = await measureColdStart(ROOT, path.join(scratch, 'cold-start'));
  const coldStart = { bundleBytes: cold.bundleBytes, bundledInitMs: round(cold.bundledInitMs, 1), unbundledInitMs: round(cold.unbundledInitMs, 1), ratio: round(cold.ratio, 2) };
  print();
  print(`Cold start of PollStep (module init in a fresh node, median of ${cold.samples})`);
  print(`  bundle ${coldStart.bundleBytes} bytes (+ ${cold.sourceMapBytes} bytes of source map)`);
  print(`  bundled ${coldStart.bundledInitMs} ms, unbundled ${coldStart.unbundledInitMs} ms, ratio ${coldStart.ratio}x   target >= ${TARGETS.coldStartRatio}x: ${verdict(coldStart.ratio >= TARGETS.coldStartRatio, `${round(TARGETS.coldStartRatio - coldStart.ratio, 2)}x`)}`);
  print(`  (bundled with --enable-source-maps: ${round(cold.bundledWithSourceMapsInitMs, 1)} ms, not set by default)`);

  // 5. The image check: a missing image in the last of five 10-second steps, and what the check costs.
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

  const figures = { surfaceLatencyMs, transitions, coldStart, apiRequestsPerPoll, imageCheck };
  if (values.json) process.stdout.write(`${JSON.stringify(figures)}\n`);
} finally {
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
}
