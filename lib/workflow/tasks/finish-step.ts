import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { finishedCause, maskSecrets, secretNeedles, STEP_CONTAINER } from '../../kube/index.js';
import { ErrorNames } from '../../contract/index.js';
import { causeLogTail, logTail } from '../log-tail.js';
import { buildClaimName, type KeptArtifact, type PollState, type ServiceResult, type StepInput, type StepResult } from '../state-data.js';
import type { StepS3Usage } from '../cost-model.js';
import type { Service } from '../../pipeline/types.js';
import { serviceLogName } from '../step-log-store.js';
import { readFailedServiceLog } from '../failed-service-log.js';
import type { TaskDeps } from '../task-deps.js';
import { InvalidPipeline } from '../../pipeline/index.js';
import { parseKeyHashes } from '../cache-keys.js';
import { attemptWords, nextAttempt } from '../step-retry.js';
import { keptArtifacts } from '../kept-artifacts.js';
import { readStepReports } from '../step-reports.js';
import { stepSecretRefs } from '../aws-secrets.js';
import { finalStepTimings, writeStepMetrics } from '../metrics-writer.js';
import { keepsFailedPod } from '../keeps-going.js';
import type { TestSummary } from '../../contract/test-summary.js';
import { podUsage } from '../pod-usage.js';

/**
 * Keeps the step's log and deletes its pod (unless other steps need it and it succeeded, or it is a failed combination of a fail-fast: false matrix). For a failed step the result
 * carries the Error and the Cause, ended by finishedCause (lib/kube/cause.ts) with what the kept
 * logs and the retry say: a non-zero exit's log tail, a failed service's, the attempt. Each of the
 * step's services has its log kept beside the step's.
 *
 * A step may print the secrets it was given (on purpose or through `set -x`), so the values of the
 * Secret keys it references are masked in everything kept from here on: the stored log, the tail
 * in the state output and the Cause, as GitHub Actions masks registered secrets.
 */
export async function finishStep(input: StepInput, deps: TaskDeps): Promise<StepResult> {
  const poll = input.poll;
  if (!poll) throw new Error('FinishStep needs $.poll from PollStep');
  const { cluster } = deps;
  const checkout = input.settings.checkout;
  const services = input.step.services ?? [];
  // A service's log is kept too, so what its Secrets hold is masked everywhere as well.
  const secrets = [...(checkout?.secrets ?? []), ...stepSecretRefs(input.build.id, input.step), ...services.flatMap((s) => s.secrets)];
  // Read before the pod is deleted, so a failure here leaves the step retryable as it was.
  const needles = secrets.length > 0 ? secretNeedles(await cluster.readSecretValues(input.namespace, secrets)) : [];
  const mask = (text: string) => maskSecrets(text, needles);
  // Read before the log is kept: what they say ends the step's log (a report that is no JUnit XML above all).
  const reports = input.step.reports && deps.cache ? await readStepReports(input, deps.cache) : undefined;
  const tests = reports ? maskedTests(reports.summary, mask) : undefined;
  const { location, end, written } = await keepLog(input, poll, deps, mask, reports ? `${reports.lines.join('\n')}\n` : '');
  const serviceLogs = await keepServiceLogs(input, poll, deps, mask);
  const failed = poll.phase === 'failed';
  // What the pod reserved on its node and for how long: the build's cost prices it (cost-model.ts).
  const pod = podUsage(input.step.name, poll.placed, deps.now());
  // A step that others need says by its succeeded pod, once marked finished below, that they may
  // start (WaitForNeeds); the build's cleanup deletes it. A failed combination of a fail-fast: false
  // matrix fails no Map, so its Failed pod is what tells every step still to start that it never
  // will (needs-verdict.ts), however late it looks (keeps-going.ts).
  const keepPod = failed ? keepsFailedPod(input.step) : input.step.needed === true;
  const seen = await lastLook(input, poll, deps);
  if (!keepPod) await cluster.deletePod(input.namespace, poll.podName);
  const tail = end ? logTail(end) : '';
  deps.log.info(`Step "${input.step.name}" ${failed ? 'failed' : 'succeeded'}; pod ${poll.podName} ${keepPod ? (failed ? 'kept until the build ends' : 'kept for the steps that need it') : 'deleted'}`, {
    log: location,
  });
  const keys = !failed && input.step.name === input.settings.checkoutStep ? await keepCacheKeys(input, end, deps) : undefined;
  // Kept by the pod after a failure too (test reports and coverage matter most then).
  const artifacts = input.step.artifacts && deps.cache ? await keptArtifacts(input, deps.cache, deps.log) : undefined;
  const s3 = stepS3Usage(written, [...serviceLogs.values()], artifacts);
  if (keys) return { step: input.step.name, status: 'failed', exitCode: poll.exitCode ?? null, error: keys.name, cause: keys.message, logTail: tail, log: location };
  // The claim remembers it, for a re-run of the build's failed steps: by then this pod is gone.
  const claimName = buildClaimName(input.settings);
  if (!failed && claimName) await cluster.recordStepSucceeded(input.namespace, claimName, input.step.name, deps.now());
  const error = failed ? (poll.error ?? ErrorNames.StepFailed) : null;
  const timings = finalStepTimings(poll, seen);
  // For the check run's summary, which nothing else could tell once the Map has dropped its results.
  await deps.logs.putResult(input.build.id, {
    step: input.step.name,
    status: failed ? 'failed' : 'succeeded',
    exitCode: poll.exitCode ?? null,
    error,
    startedAt: poll.launchedAt,
    endedAt: deps.now().toISOString(),
    ...(timings ? { timings } : {}),
    ...(!failed && poll.pushed ? { pushed: poll.pushed } : {}),
    ...(tests ? { tests } : {}),
    ...(pod ? { pod } : {}),
    s3,
  });
  // Last, once all the step leaves is stored (the clone's key hashes above all): the steps that
  // need it start on this mark, not on the pod's success (step-finished.ts).
  if (keepPod && !failed && !(await cluster.markStepFinished(input.namespace, poll.podName, deps.now()))) {
    deps.log.warn(`Step "${input.step.name}" succeeded, but its pod ${poll.podName} was gone before it could say so: the steps that need it will not start`, { step: input.step.name });
  }
  const attempt = input.attempt ?? 0;
  const checkoutStep = input.step.name === input.settings.checkoutStep;
  const next = error ? nextAttempt(input.step, attempt, error, checkoutStep) : undefined;
  if (next !== undefined) deps.log.info(`Step "${input.step.name}" is tried again (${attemptWords(input.step, next, checkoutStep)}): ${error}`, { step: input.step.name });
  const serviceEnd = poll.service ? serviceLogs.get(poll.service)?.end : undefined;
  const cause = error
    ? finishedCause({
        step: input.step.name,
        error,
        ...(poll.cause != null ? { cause: mask(poll.cause) } : {}),
        ...(tail ? { logTail: causeLogTail(end) } : {}),
        ...(poll.service ? { service: { name: poll.service, ...(serviceEnd ? { logTail: causeLogTail(serviceEnd) } : {}) } } : {}),
        attempt: { words: attemptWords(input.step, attempt, checkoutStep), first: attempt === 0, retried: next !== undefined },
      })
    : null;
  const result: StepResult = {
    step: input.step.name,
    status: failed ? 'failed' : 'succeeded',
    exitCode: poll.exitCode ?? null,
    error,
    cause,
    logTail: tail,
    log: location,
    ...(services.length > 0 ? { services: serviceResults(services, poll, serviceLogs) } : {}),
    ...(artifacts ? { artifacts } : {}),
    ...(tests ? { tests } : {}),
    ...(!failed && poll.pushed ? { pushed: poll.pushed } : {}),
    ...(next !== undefined ? { nextAttempt: next } : {}),
    ...(pod ? { pod } : {}),
    s3,
  };
  writeStepMetrics(input, poll, result, timings, deps);
  return result;
}

/**
 * The pod and its events, read once before the pod is deleted (its events outlive it, its status
 * does not): when it was scheduled, pulled and ran (finalStepTimings), for the step's metrics and
 * the build's trace alike. A cluster that cannot answer now costs them the step's phases, never
 * the step.
 */
async function lastLook(input: StepInput, poll: PollState, deps: TaskDeps): Promise<[V1Pod | null, CoreV1Event[]] | undefined> {
  try {
    const { pod, events } = await deps.cluster.observePod(input.namespace, poll.podName);
    return [pod, events];
  } catch (error) {
    deps.log.warn(`When step "${input.step.name}" pulled and ran could not be read`, { reason: (error as Error).message });
    return undefined;
  }
}

/**
 * The clone printed a hash of each set of cache key files (cache-keys.ts): kept with the build for
 * the steps' LaunchStep. A pattern that matches no file of the commit is the pipeline's mistake,
 * refused as InvalidPipeline with its line, as it would have been had the file been read with the
 * checkout at hand.
 */
async function keepCacheKeys(input: StepInput, log: string, deps: TaskDeps): Promise<InvalidPipeline | undefined> {
  const sets = input.settings.cache?.keyFiles ?? [];
  if (sets.length === 0) return undefined;
  const { hashes, unmatched } = parseKeyHashes(log);
  if (unmatched.length > 0) {
    const lines = unmatched.map(({ id, pattern }) => {
      const named = sets.find((set) => set.id === id)?.named ?? [];
      return `${named[0] ?? 'cache.key.files'}: "${pattern}" matches no file in the checkout of ${input.build.commit ?? 'the commit'}${named.length > 1 ? ` (also named at ${named.slice(1).join('; ')})` : ''}`;
    });
    return new InvalidPipeline(`The cache's key files must be files of the repository: ${lines.join('; ')}`, { file: input.settings.cache!.file, field: 'cache.key.files' });
  }
  const missing = sets.filter((set) => hashes[set.id] === undefined);
  // Not the user's doing (a clone image without sha256sum, say): the steps then restore nothing and say why.
  if (missing.length > 0) deps.log.warn(`The clone printed no hash for the cache key files ${missing.map((set) => set.files.join(', ')).join('; ')}`);
  if (deps.cache) await deps.cache.putBuildKeys(input.build.id, hashes);
  return undefined;
}

/**
 * Each service's whole log, read before the pod goes and stored beside the step's
 * (serviceLogName), masked like it; for the service that failed the step, its run that failed
 * (failed-service-log.ts). A service that never started logged nothing: no location.
 */
async function keepServiceLogs(
  input: StepInput,
  poll: PollState,
  deps: TaskDeps,
  mask: (text: string) => string,
): Promise<Map<string, { location: string | null; end: string }>> {
  const kept = new Map<string, { location: string | null; end: string }>();
  const services = input.step.services ?? [];
  if (services.length === 0) return kept;
  for (const service of services) {
    // The one that failed the step: the run that failed, which the kubelet may have restarted since.
    const read = service.name === poll.service ? readFailedServiceLog(deps.cluster, input.namespace, poll.podName, service.name) : deps.cluster.readLog(input.namespace, poll.podName, service.name);
    const log = mask(await read);
    const location = log ? await deps.logs.put(input.build.id, serviceLogName(input.step.name, service.name), log) : null;
    kept.set(service.name, { location, end: log });
  }
  return kept;
}

function serviceResults(services: readonly Service[], poll: PollState, logs: Map<string, { location: string | null; end: string }>): ServiceResult[] {
  return services.map((service) => {
    const seen = poll.services?.find((s) => s.name === service.name);
    return {
      name: service.name,
      image: service.image,
      state: seen?.state ?? 'not-seen',
      exitCode: seen?.exitCode ?? null,
      ...(seen?.restarts ? { restarts: seen.restarts } : {}),
      logTail: logTail(logs.get(service.name)?.end ?? ''),
      log: logs.get(service.name)?.location ?? null,
    };
  });
}

/**
 * The whole log in the store, and its end (for the tail). When PollStep kept parts of it while
 * the step ran, only what came after them is read and added; otherwise it is read whole, now.
 * Either read sees only the newest of the kubelet's log files: after the parts, a rotation since
 * the last poll leaves its note in the log (rotationGapNote); read whole, a log rotated before
 * anything read it lacks its beginning without one, since nothing tells where that was.
 */
async function keepLog(
  input: StepInput,
  poll: PollState,
  deps: TaskDeps,
  mask: (text: string) => string,
  after = '',
): Promise<{ location: string | null; end: string; written: StepS3Usage }> {
  const { build, step, namespace } = input;
  const live = poll.log;
  if (live && live.parts > 0 && deps.readLogAfter) {
    const rest = await deps.readLogAfter(namespace, poll.podName, STEP_CONTAINER, live.position);
    const text = mask(rest.text) + after;
    if (text) await deps.logs.putPart(build.id, step.name, text, { part: live.parts + 1, offset: live.bytes });
    const parts = live.parts + (text ? 1 : 0);
    const { location, tail } = await deps.logs.complete(build.id, step.name, parts);
    // Each part (one PUT at least: it is rewritten as it grows), then the whole log from them.
    return { location, end: withoutEnd(tail, after), written: { puts: parts + 1, gets: parts + 1, bytes: live.bytes + Buffer.byteLength(text) } };
  }
  const checkout = input.settings.checkout;
  // A pod's own checkout (ephemeral workspace) comes first in its log, as it ran first.
  const checkoutLog = checkout && step.name !== input.settings.checkoutStep ? await deps.cluster.readLog(namespace, poll.podName, checkout.name) : '';
  const log = mask(checkoutLog + (await deps.cluster.readLog(namespace, poll.podName))) + after;
  return { location: log ? await deps.logs.put(build.id, step.name, log) : null, end: withoutEnd(log, after), written: { puts: log ? 1 : 0, gets: 0, bytes: Buffer.byteLength(log) } };
}

/** The log's end for the tail and the Cause: what the step printed, not the lines added after it (its reports'). */
function withoutEnd(log: string, after: string): string {
  return after && log.endsWith(after) ? log.slice(0, -after.length) : log;
}

/** A test's message may quote what the step printed, its secrets too: masked as its log is. */
function maskedTests(summary: TestSummary, mask: (text: string) => string): TestSummary {
  return { ...summary, failures: summary.failures.map((failure) => ({ ...failure, message: mask(failure.message) })) };
}

/**
 * What the step wrote to S3, for the build's cost: its log (above), each service's log and each
 * artifact (the pod's upload, a PUT to the bucket), and this record of it.
 */
function stepS3Usage(log: StepS3Usage, services: readonly { location: string | null; end: string }[], artifacts: readonly KeptArtifact[] | undefined): StepS3Usage {
  const kept = services.filter((service) => service.location);
  return {
    puts: log.puts + kept.length + (artifacts?.length ?? 0) + 1,
    gets: log.gets,
    bytes: log.bytes + kept.reduce((sum, service) => sum + Buffer.byteLength(service.end), 0) + (artifacts ?? []).reduce((sum, artifact) => sum + artifact.size, 0),
  };
}
