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
import { startEmbeddedCluster, DEFAULT_TIMINGS, FAST_TIMINGS } from '../lib/emulators/kubernetes/index.js';
import { deployedFunction } from '../lib/emulators/lambda/deployed-functions.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { measureApiRequestsPerPoll } from './api-requests.js';
import { measureDockerRuntime, type PodCost, type RuntimeRuns } from './docker-runtime.js';
import { measureCache } from './cache.js';
import { printImageBuild } from './image-build.js';
import { INSTALL_TARGET_SECONDS, measureInstall, printInstall } from './install.js';
import { bundledPollStep, measureColdStart } from './cold-start.js';
import { checkCost, timeToFailed } from './image-check.js';
import {
  costPerStepHour,
  DEFAULT_ASSUMPTIONS,
  DESIGNS,
  orchestrationCost,
  approvalWaitCost,
  pendingFateCost,
  type PendingFateCost,
  simulatedCompletionLatencyMs,
  variant,
  type Design,
  type OrchestrationCost,
  type StepHourCost,
  type Variant,
} from './orchestration-cost.js';
import { measurePollMemory } from './poll-memory.js';
import { PendingFates } from './simulated-cluster.js';
import { DEFAULT_PENDING_TIMEOUT_SECONDS } from '../lib/kube/types.js';
import { requestCounter } from './request-counter.js';
import { median, percentile, round } from './stats.js';
import { measureRealCompletionLatency, type DesignRuntimes } from './step-end-latency.js';
import { measureSurfaceLatency } from './surface-latency.js';
import { measureWebhookLatency } from './webhook-latency.js';
import { printWebhookLatency } from './webhook-latency-report.js';
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
  /** Pod created -> its container started, median Docker less median process runner. */
  dockerOverheadPerPodMedianMs: 500,
  /** The daemon's answer to a pull -> the pod's status shows ErrImagePull, every run. */
  pullFailureSurfacingMs: 1000,
  /** A pod never scheduled, until its build ends: at most this many times a pull failure's transitions, invocations and GB-s. */
  neverScheduledVsPullFailure: 2,
  /** Transitions and invocations while an approval waits, a day long (issue 40: nothing per hour). */
  approvalWaitPerDay: 0,
  /** ...and never polled faster than this (no one-second loop). */
  neverScheduledMinPollGapSeconds: 2,
  /** `npm install -g` of the packed tarball with an empty npm cache. */
  installSeconds: INSTALL_TARGET_SECONDS,
};

/** Step lengths of the completion-latency samples: real seconds, and simulated minutes. */
const REAL_SLEEPS = [2, 2.7, 3.4, 4.1, 4.8, 5.5, 6.2, 6.9];
const SIM_LENGTHS = { minutes: 120, tenMinutes: 600 } as const;
const SIM_SAMPLES = Array.from({ length: 8 }, (_, k) => round(k * 7.3, 1));
/** Steps of 10 to 15 minutes (600 + 0, 25 ... 275 s): the last stretch of the deployed watch. */
const SPREAD_SAMPLES = Array.from({ length: 12 }, (_, k) => k * 25);
/** Steps of 20 minutes (1200 s + SIM_SAMPLES), past the deployed watch: not a target length, shown for what it gives up. */
const PAST_WATCH_SECONDS = 1200;

/** PollStep's memorySize in serverless.yml (the memory section's spare is against it; the cost variants below still price 128 MB). */
const DEPLOYED_POLL_MEMORY_MB = deployedFunction('pollStep').memorySize;
/** The deployed design as serverless.yml deploys it: PollStep at 128 MB, the other functions at 256 MB. */
const DEPLOYED: Variant = { label: 'watch, 128MB', design: 'watch', pollMemoryMb: 128 };
/** What-ifs (not deployed; see bench/README.md). */
const WHOLE_RUN: Variant = { label: 'watch whole run, 128MB', design: 'watch', runningWatchUntilSeconds: 86_400, pollMemoryMb: 128 };
const ALTERNATIVES: Variant[] = [WHOLE_RUN, { label: 'schedule, 128MB', design: 'schedule', pollMemoryMb: 128 }];
/** Cost per step-hour by the step's length: `watch` (deployed) and watching the whole run against `schedule` (256 MB, today's). */
const STEP_LENGTHS = { '20s': 20, '2m': 120, '10m': 600, '30m': 1800, '1h': 3600 } as const;

const { values } = parseArgs({ options: { json: { type: 'boolean' }, runs: { type: 'string' } } });
const runs = Math.max(10, Number(values.runs ?? 12));
// With --json the last line of stdout is the figures; the table goes to stderr.
const print = (line = '') => (values.json ? process.stderr : process.stdout).write(`${line}\n`);
const verdict = (ok: boolean, missedBy: string) => (ok ? 'met' : `MISSED by ${missedBy}`);
const started = Date.now();
const summary = (values: number[], digits = 0) => ({ median: round(median(values), digits), p90: round(percentile(values, 90), digits), samples: values.length });
type Summary = ReturnType<typeof summary>;

const scratch = await mkdtemp(path.join(tmpdir(), 'step-runner-bench-'));
const counter = requestCounter();
const cluster = await startEmbeddedCluster({ workspace: scratch, timings: DEFAULT_TIMINGS, faults: counter.hook });
const kubeconfig = path.join(scratch, 'kubeconfig');
await writeFile(kubeconfig, cluster.kubeconfigYaml());
const runtime = localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir: path.join(scratch, 'logs') });

/** Section 9: the figures of bench/docker-runtime.ts, printed and summed up; skipped (with why) without a daemon. */
async function measureDockerRuntimeCost(dir: string) {
  await mkdir(dir, { recursive: true });
  const pods = Math.max(20, runs);
  // Docker failing mid-way is reported, not fatal: the other sections' figures stand.
  const measured = await measureDockerRuntime(dir, { pods, pullFailures: 5, builds: 3 }).catch((error: unknown) => ({ failed: (error as Error).message }));
  print();
  print(`Docker runtime against the process runner: ${pods} pods each (busybox, \`true\` / \`echo hi\`, restartPolicy Never, image present), FAST_TIMINGS (schedule ${FAST_TIMINGS.scheduleMs} ms; process runner's simulated pull ${FAST_TIMINGS.pullMs} ms, create ${FAST_TIMINGS.createMs} ms)`);
  if ('skipped' in measured) {
    print(`  skipped: ${measured.skipped}`);
    return { skipped: measured.skipped };
  }
  if ('failed' in measured) {
    print(`  could not measure: ${measured.failed}`);
    return { failed: measured.failed };
  }
  const stages = (p: PodCost[]) => ({
    admitted: summary(p.map((c) => c.admittedMs), 1),
    sandbox: summary(p.map((c) => c.sandboxMs), 1),
    createStart: summary(p.map((c) => c.startedMs - c.sandboxMs), 1),
    started: summary(p.map((c) => c.startedMs), 1),
    succeeded: summary(p.map((c) => c.succeededMs), 1),
  });
  const perPod = { docker: stages(measured.docker.pods), process: stages(measured.process.pods) };
  const overheadPerPodMs = {
    started: round(perPod.docker.started.median - perPod.process.started.median, 1),
    succeeded: round(perPod.docker.succeeded.median - perPod.process.succeeded.median, 1),
  };
  print(`  per pod, ms from the create request as the bench's watch sees the status (median / p90); ${measured.daemonVersion}`);
  print(`  ${'runtime'.padEnd(8)} ${'admitted'.padStart(15)} ${'sandbox'.padStart(15)} ${'create+start'.padStart(15)} ${'started'.padStart(15)} ${'Succeeded'.padStart(15)}`);
  for (const [name, s] of Object.entries(perPod)) {
    const cell = (x: Summary) => `${x.median} / ${x.p90}`.padStart(15);
    print(`  ${name.padEnd(8)} ${cell(s.admitted)} ${cell(s.sandbox)} ${cell(s.createStart)} ${cell(s.started)} ${cell(s.succeeded)}`);
  }
  print('  (admitted: the node took the pod on; sandbox: podIP set; create+start: sandbox -> container running/terminated)');
  print(`  Docker overhead per pod (median docker - median process): to started ${overheadPerPodMs.started} ms, to Succeeded ${overheadPerPodMs.succeeded} ms   target <= ${TARGETS.dockerOverheadPerPodMedianMs} ms: ${verdict(overheadPerPodMs.started <= TARGETS.dockerOverheadPerPodMedianMs, `${round(overheadPerPodMs.started - TARGETS.dockerOverheadPerPodMedianMs)} ms`)}`);
  const pulls = (r: RuntimeRuns) => ({
    answer: summary(r.pullFailures.map((f) => f.answerMs), 1),
    surfacing: { ...summary(r.pullFailures.map((f) => f.surfacingMs), 1), max: round(Math.max(...r.pullFailures.map((f) => f.surfacingMs)), 1) },
    message: r.pullFailures[0]?.message ?? '',
  });
  const pullFailure = { docker: pulls(measured.docker), process: pulls(measured.process) };
  print(`Pull failure, a missing tag (${measured.docker.pullFailures.length} pods each): Pulling event -> Failed event (the daemon's answer), then -> status ErrImagePull (median / p90 ms)`);
  for (const [name, f] of Object.entries(pullFailure)) {
    print(`  ${name.padEnd(8)} answer ${f.answer.median} / ${f.answer.p90}, surfacing ${f.surfacing.median} / ${f.surfacing.p90} (max ${f.surfacing.max}): ${f.message.slice(0, 110)}`);
  }
  const worstSurfacing = pullFailure.docker.surfacing.max;
  print(`  docker, surfacing within ${TARGETS.pullFailureSurfacingMs} ms of the daemon's answer: ${verdict(worstSurfacing <= TARGETS.pullFailureSurfacingMs, `${round(worstSurfacing - TARGETS.pullFailureSurfacingMs)} ms`)}`);
  const build = (r: RuntimeRuns) => ({ image: r.buildImage, eachMs: r.buildsMs.map((ms) => round(ms)), medianMs: round(median(r.buildsMs)) });
  const threeStepBuild = { docker: build(measured.docker), process: build(measured.process) };
  print('Three-step build (echo, each needing the one before, no source, no image check), wall time through the real state machine');
  for (const [name, b] of Object.entries(threeStepBuild)) print(`  ${name.padEnd(8)} ${b.eachMs.join(' ')} ms (median ${b.medianMs} ms), ${b.image}`);
  return { timings: 'FAST_TIMINGS', daemonVersion: measured.daemonVersion, perPodMs: perPod, overheadPerPodMs, pullFailureMs: pullFailure, threeStepBuild };
}

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
  // The target's figure as before: the watched polls; a step past the watch's limit apart.
  const apiRequestsPerPoll = Math.max(...perPoll.filter((p) => !p.pastWatch).map((p) => p.requests));
  const apiRequestsPerPollPastWatch = Math.max(...perPoll.filter((p) => p.pastWatch).map((p) => p.requests));
  print();
  print('Kubernetes API requests per PollStep invocation (counted at the embedded API\'s HTTP layer)');
  const byPhase = new Map<string, number[]>();
  for (const p of perPoll) byPhase.set(p.phase, [...(byPhase.get(p.phase) ?? []), p.requests]);
  for (const [phase, counts] of byPhase) print(`  ${phase.padEnd(38)} ${counts.length} poll(s), ${[...new Set(counts)].join('/')} request(s) each`);
  print(`  max ${apiRequestsPerPoll} per poll   target <= ${TARGETS.apiRequestsPerPoll}: ${verdict(apiRequestsPerPoll <= TARGETS.apiRequestsPerPoll, `${apiRequestsPerPoll - TARGETS.apiRequestsPerPoll}`)}`);
  print(`  a step past the running watch's limit (a poll a minute): max ${apiRequestsPerPollPastWatch} per poll (its log read plainly, the pod, its events)`);

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
  type Lengths = keyof typeof SIM_LENGTHS | 'tenToFifteenMinutes' | 'twentyMinutes';
  const completionLatencyMs = {} as Record<Design, Record<'seconds' | Lengths, Summary>>;
  /** Simulated: a couple of minutes, ten minutes, 10 to 15 minutes (where the deployed watch ends), 20 minutes (past it). */
  const simLatency = async (v: Variant) => {
    const of = async (base: number, extras: readonly number[]) => {
      const samples: number[] = [];
      for (const extra of extras) samples.push(await simulatedCompletionLatencyMs(v, base + extra));
      return summary(samples);
    };
    return {
      minutes: await of(SIM_LENGTHS.minutes, SIM_SAMPLES),
      tenMinutes: await of(SIM_LENGTHS.tenMinutes, SIM_SAMPLES),
      tenToFifteenMinutes: await of(SIM_LENGTHS.tenMinutes, SPREAD_SAMPLES),
      twentyMinutes: await of(PAST_WATCH_SECONDS, SIM_SAMPLES),
    } satisfies Record<Lengths, Summary>;
  };
  type Latencies = Awaited<ReturnType<typeof simLatency>>;
  for (const design of DESIGNS) {
    completionLatencyMs[design] = { seconds: summary(realLatency.filter((r) => r.design === design).map((r) => r.latencyMs)), ...(await simLatency(variant(design))) };
  }
  print();
  print('Completion latency: container exit -> next step\'s pod created (median / p90 ms)');
  print(`  seconds: real time, sleep ${REAL_SLEEPS.join(', ')} s; simulated: minutes / ten minutes ${SIM_LENGTHS.minutes} / ${SIM_LENGTHS.tenMinutes} s + ${SIM_SAMPLES.join(', ')} s,`);
  print(`  10-15 minutes ${SIM_LENGTHS.tenMinutes} s + ${SPREAD_SAMPLES.join(', ')} s, 20 minutes ${PAST_WATCH_SECONDS} s + the same as minutes (past the watch: no target)`);
  print(`  ${'design'.padEnd(9)} ${'seconds'.padStart(15)} ${'minutes'.padStart(15)} ${'ten minutes'.padStart(15)} ${'10-15 min'.padStart(15)} ${'20 min'.padStart(15)}   polls while running (real)`);
  for (const design of DESIGNS) {
    const l = completionLatencyMs[design];
    const cell = (x: Summary) => `${x.median} / ${x.p90}`.padStart(15);
    print(`  ${design.padEnd(9)} ${cell(l.seconds)} ${cell(l.minutes)} ${cell(l.tenMinutes)} ${cell(l.tenToFifteenMinutes)} ${cell(l.twentyMinutes)}   ${realLatency.filter((r) => r.design === design).map((r) => r.runningPolls).join(' ')}`);
  }
  print(`  watch, each real sample (ms): ${realLatency.filter((r) => r.design === 'watch').map((r) => `${r.sleepSeconds}s:${r.latencyMs}`).join(' ')}`);
  // The targets' lengths: seconds, a couple of minutes, ten minutes (and the rest of the watch's 15 minutes).
  const { seconds: wSeconds, minutes: wMinutes, tenMinutes: wTen, tenToFifteenMinutes: wSpread } = completionLatencyMs.watch;
  const watchLatency = [wSeconds, wMinutes, wTen, wSpread];
  const worstMedian = Math.max(...watchLatency.map((x) => x.median));
  const worstP90 = Math.max(...watchLatency.map((x) => x.p90));
  print(`  watch, seconds to 15 minutes: median <= ${TARGETS.completionLatencyMedianMs} ms: ${verdict(worstMedian <= TARGETS.completionLatencyMedianMs, `${worstMedian - TARGETS.completionLatencyMedianMs} ms`)}; p90 <= ${TARGETS.completionLatencyP90Ms} ms: ${verdict(worstP90 <= TARGETS.completionLatencyP90Ms, `${worstP90 - TARGETS.completionLatencyP90Ms} ms`)}`);

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

  // 4a. A waiting approval: a minute against a day, and what ran while it waited.
  const waits = [await approvalWaitCost(60), await approvalWaitCost(86_400)];
  const [minuteWait, dayWait] = waits;
  const approvalWait = {
    minute: { transitions: minuteWait!.transitions, invocations: minuteWait!.invocations },
    day: { transitions: dayWait!.transitions, invocations: dayWait!.invocations },
    duringDay: dayWait!.duringWait,
    approvalItself: { transitions: dayWait!.transitions - dayWait!.withoutApproval.transitions, invocations: dayWait!.invocations - dayWait!.withoutApproval.invocations },
  };
  const waitingCost = approvalWait.duringDay.transitions + approvalWait.duringDay.invocations + (approvalWait.day.transitions - approvalWait.minute.transitions) + (approvalWait.day.invocations - approvalWait.minute.invocations);
  print(`  an approval between two 1-minute steps, decided after a minute / a day: ${approvalWait.minute.transitions} / ${approvalWait.day.transitions} transitions, ${approvalWait.minute.invocations} / ${approvalWait.day.invocations} invocations (the approval itself: ${approvalWait.approvalItself.transitions} transitions, ${approvalWait.approvalItself.invocations} invocations, at its start and its end)`);
  print(`  while a day's approval waits: ${approvalWait.duringDay.transitions} transitions, ${approvalWait.duringDay.invocations} invocations   target ${TARGETS.approvalWaitPerDay}: ${verdict(waitingCost === TARGETS.approvalWaitPerDay, `${waitingCost} more`)}`);

  // 4b. Pods that never run: never scheduled (PodStalled at the default pending-timeout) against a pull that fails.
  const fates: PendingFateCost[] = [];
  for (const fate of Object.values(PendingFates)) fates.push(await pendingFateCost(fate));
  const fateOf = (fate: string) => fates.find((f) => f.fate === fate)!;
  print();
  print(`Pods that never run: one-step build until it ends (simulated time, as deployed: pending watch, pending-timeout ${DEFAULT_PENDING_TIMEOUT_SECONDS} s, pull grace 60 s)`);
  print(`  ${'pod'.padEnd(18)} ${'error'.padEnd(16)} ${'ends at'.padStart(7)} ${'transitions'.padStart(11)} ${'invocations'.padStart(11)} ${'polls'.padStart(6)} ${'GB-s'.padStart(7)} ${'USD'.padStart(9)}   poll gaps (s)`);
  for (const f of fates) {
    print(`  ${f.fate.padEnd(18)} ${f.error.padEnd(16)} ${`${f.seconds}s`.padStart(7)} ${String(f.transitions).padStart(11)} ${String(f.invocations).padStart(11)} ${String(f.polls).padStart(6)} ${round(f.gbSeconds, 2).toFixed(2).padStart(7)} ${f.dollars.toFixed(5).padStart(9)}   ${round(f.pollGapSeconds.min, 1)}-${round(f.pollGapSeconds.max, 1)}`);
  }
  const never = fateOf(PendingFates.neverScheduled);
  const againstPull = (pull: PendingFateCost) => ({
    transitions: round(never.transitions / pull.transitions, 2),
    invocations: round(never.invocations / pull.invocations, 2),
    gbSeconds: round(never.gbSeconds / pull.gbSeconds, 2),
    usd: round(never.dollars / pull.dollars, 2),
  });
  const neverScheduled = {
    byFate: Object.fromEntries(fates.map((f) => [f.fate, { error: f.error, seconds: f.seconds, transitions: f.transitions, invocations: f.invocations, polls: f.polls, gbSeconds: round(f.gbSeconds, 2), usd: round(f.dollars, 5), pollGapSeconds: { min: round(f.pollGapSeconds.min, 1), max: round(f.pollGapSeconds.max, 1) } }])),
    vsPullRateLimited: againstPull(fateOf(PendingFates.pullRateLimited)),
    vsPullNotFound: againstPull(fateOf(PendingFates.pullNotFound)),
  };
  const ratios = neverScheduled.vsPullRateLimited;
  const worstRatio = Math.max(ratios.transitions, ratios.invocations, ratios.gbSeconds);
  print(`  never scheduled / a pull failing for its grace (rate limit): ${ratios.transitions}x transitions, ${ratios.invocations}x invocations, ${ratios.gbSeconds}x GB-s, ${ratios.usd}x USD   target <= ${TARGETS.neverScheduledVsPullFailure}x: ${verdict(worstRatio <= TARGETS.neverScheduledVsPullFailure, `${round(worstRatio - TARGETS.neverScheduledVsPullFailure, 2)}x`)}`);
  const n = neverScheduled.vsPullNotFound;
  print(`  never scheduled / a pull refused at once (not found): ${n.transitions}x transitions, ${n.invocations}x invocations, ${n.gbSeconds}x GB-s, ${n.usd}x USD (no target: that build ends in its first poll)`);
  print(`  shortest wait between two polls of the never-scheduled step: ${round(never.pollGapSeconds.min, 1)} s   target >= ${TARGETS.neverScheduledMinPollGapSeconds} s: ${verdict(never.pollGapSeconds.min >= TARGETS.neverScheduledMinPollGapSeconds, `${round(TARGETS.neverScheduledMinPollGapSeconds - never.pollGapSeconds.min, 1)} s`)}`);

  // 5. Cost per step-hour: an hour-long step, then by the step's length.
  const hourly: StepHourCost[] = [];
  for (const design of DESIGNS) hourly.push(await costPerStepHour(variant(design)));
  hourly.splice(1, 0, await costPerStepHour(DEPLOYED));
  const alternatives: (StepHourCost & { latencyMs: Latencies })[] = [];
  for (const v of ALTERNATIVES) alternatives.push({ ...(await costPerStepHour(v)), latencyMs: await simLatency(v) });
  const hourOf = (label: string) => [...hourly, ...alternatives].find((h) => h.label === label)!;
  const money = (h: StepHourCost) => ({
    transitions: round(h.transitions, 1),
    invocations: round(h.invocations, 1),
    watchedSeconds: round(h.watchedSeconds),
    gbSeconds: round(h.gbSeconds, 1),
    usd: round(h.dollars, 5),
    pollMemoryMb: h.pollMemoryMb,
  });
  /** Against `schedule` at 256 MB, today's: the issue's target. */
  const against = (usd: number, baseline: number) => {
    const met = usd <= baseline * TARGETS.costPerStepHourVsSchedule;
    const pct = round((usd / baseline - 1) * 100);
    return { met, text: verdict(met, `$${(usd - baseline).toFixed(5)} (+${pct} %)`), vsSchedulePct: pct };
  };
  print();
  print('Cost per step-hour, an hour-long step: a step running 3600 s less one exiting as it starts (simulated; other functions 256 MB, arm64 prices)');
  print(`  ${'design'.padEnd(23)} ${'transitions'.padStart(11)} ${'invocations'.padStart(11)} ${'watched s'.padStart(9)} ${'GB-s'.padStart(7)} ${'USD'.padStart(8)}   latency median/p90 ms (minutes; ten minutes; 10-15 minutes; 20 minutes)`);
  const rows: (StepHourCost & { latencyMs?: Latencies })[] = [...hourly, ...alternatives];
  for (const h of rows) {
    const l = h.latencyMs;
    const lat = l ? [l.minutes, l.tenMinutes, l.tenToFifteenMinutes, l.twentyMinutes].map((x) => `${x.median}/${x.p90}`).join('; ') : '';
    print(`  ${h.label.padEnd(23)} ${String(round(h.transitions, 1)).padStart(11)} ${String(round(h.invocations, 1)).padStart(11)} ${String(round(h.watchedSeconds)).padStart(9)} ${h.gbSeconds.toFixed(1).padStart(7)} ${h.dollars.toFixed(5).padStart(8)}   ${lat}`);
  }
  const scheduleHour = hourOf('schedule').dollars;
  print(`  watch <= schedule ($${scheduleHour.toFixed(5)}), an hour-long step: PollStep at 256 MB ${against(hourOf('watch').dollars, scheduleHour).text}; at 128 MB, as deployed, ${against(hourOf(DEPLOYED.label).dollars, scheduleHour).text}`);

  const byLength: Record<string, { seconds: number; watch: ReturnType<typeof money>; watchWholeRun: ReturnType<typeof money>; schedule: ReturnType<typeof money>; verdict: { watch: string; watchWholeRun: string }; vsSchedulePct: { watch: number; watchWholeRun: number } }> = {};
  print();
  print('Cost per step-hour by the step\'s length L: (a step running L s less one exiting as it starts) x 3600 / L, USD; target: no more than schedule (256 MB, today\'s)');
  print(`  ${'L'.padEnd(4)} ${'watch (deployed)'.padStart(16)} ${'whole run'.padStart(9)} ${'schedule'.padStart(9)}   watch vs schedule; whole run vs schedule   (transitions per step-hour: watch / whole run / schedule)`);
  for (const [name, seconds] of Object.entries(STEP_LENGTHS)) {
    const watch = await costPerStepHour(DEPLOYED, DEFAULT_ASSUMPTIONS, seconds);
    const whole = await costPerStepHour(WHOLE_RUN, DEFAULT_ASSUMPTIONS, seconds);
    const schedule = await costPerStepHour(variant('schedule'), DEFAULT_ASSUMPTIONS, seconds);
    const w = against(watch.dollars, schedule.dollars);
    const r = against(whole.dollars, schedule.dollars);
    byLength[name] = { seconds, watch: money(watch), watchWholeRun: money(whole), schedule: money(schedule), verdict: { watch: w.text, watchWholeRun: r.text }, vsSchedulePct: { watch: w.vsSchedulePct, watchWholeRun: r.vsSchedulePct } };
    print(`  ${name.padEnd(4)} ${watch.dollars.toFixed(5).padStart(16)} ${whole.dollars.toFixed(5).padStart(9)} ${schedule.dollars.toFixed(5).padStart(9)}   ${w.text}; ${r.text}   (${[watch, whole, schedule].map((h) => round(h.transitions)).join(' / ')})`);
  }
  print('  not counted: the live log\'s S3 PUTs (while a watch holds at most one per 10 s of steady output, 360/h, $0.0018/h; past the watch at most one per poll, 60/h, $0.0003/h)');
  const costPerStepHourFigures = {
    ...Object.fromEntries(hourly.map((h) => [h.label === DEPLOYED.label ? 'watch128' : h.label, money(h)])),
    alternatives: Object.fromEntries(alternatives.map((h) => [h.label, { ...money(h), latencyMs: h.latencyMs }])),
    byLength,
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
      logMb: Math.max(...runs.map((m) => m.logMb)),
      putMb: Math.max(...runs.map((m) => m.putMb)),
    };
  };
  const pollStepMemory = { quiet: memoryOf('quiet'), loud: memoryOf('loud') };
  print();
  print('PollStep memory: the bundled handler in a fresh node, one invocation holding a running watch to the container\'s exit (quiet: sleep 4; loud: 20 MiB a minute for 70 s)');
  for (const [scenario, m] of Object.entries(pollStepMemory)) {
    print(`  ${scenario.padEnd(6)} (${m.samples}): node alone ${m.nodeRssMb} MB RSS, after import ${m.importedRssMb} MB, peak ${m.peakRssMb} MB (maxRSS ${m.maxRssMb} MB), V8 heap used peak ${m.peakHeapUsedMb} MB, ${m.invocationMs} ms in ${m.invocations} invocation(s), log kept ${m.logMb} MB (PUT ${m.putMb} MB); at ${DEPLOYED_POLL_MEMORY_MB} MB: ${round(DEPLOYED_POLL_MEMORY_MB - m.maxRssMb, 1)} MB spare`);
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

  // 9. The Docker runtime against the process runner (their own clusters, FAST_TIMINGS).
  const dockerRuntime = await measureDockerRuntimeCost(path.join(scratch, 'docker-runtime'));

  // 9a. A build: step's image, cold and warm (issue 39); skipped (with why) without Docker or buildah.
  const imageBuild = await printImageBuild(path.join(scratch, 'image-build'), 3, print);

  // 10. The cache: its scripts on a node_modules-sized tree, and a two-step build cold and warm.
  const cache = await measureCache(path.join(scratch, 'cache'), print);

  // 11. The webhook's answer time against a GitHub API that takes 5 s a call.
  const webhookLatencyMs = await measureWebhookLatency(path.join(scratch, 'webhook'));
  printWebhookLatency(webhookLatencyMs, print);

  // 12. The command installed as a user does: npm pack, npm install -g, npx, --version, a build.
  // Without the npm registry it is reported, not fatal: the other sections' figures stand.
  const install = await measureInstall(path.join(scratch, 'install')).catch((error: unknown) => ({ failed: (error as Error).message }));
  if ('failed' in install) print(`\nInstall as a command: could not measure: ${install.failed}`);
  else printInstall(install, print);

  const figures = {
    surfaceLatencyMs,
    transitions,
    approvalWait,
    neverScheduled,
    coldStart,
    apiRequestsPerPoll,
    apiRequestsPerPollPastWatch,
    imageCheck,
    completionLatencyMs,
    costPerStepHour: costPerStepHourFigures,
    pollStepMemory,
    dockerRuntime,
    imageBuild,
    cache,
    webhookLatencyMs,
    install,
    benchSeconds: round((Date.now() - started) / 1000),
  };
  print();
  print(`Bench took ${figures.benchSeconds} s`);
  if (values.json) process.stdout.write(`${JSON.stringify(figures)}\n`);
} finally {
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
}
