import { finishedCause, maskSecrets, secretNeedles, STEP_CONTAINER } from '../../kube/index.js';
import { ErrorNames } from '../../contract/index.js';
import { causeLogTail, logTail } from '../log-tail.js';
import { buildClaimName, type KeptArtifact, type PollState, type ServiceResult, type StepInput, type StepResult } from '../state-data.js';
import type { StepS3Usage } from '../cost-model.js';
import type { Service } from '../../pipeline/types.js';
import { serviceLogName } from '../step-log-store.js';
import type { TaskDeps } from '../task-deps.js';
import { InvalidPipeline } from '../../pipeline/index.js';
import { parseKeyHashes } from '../cache-keys.js';
import { attemptWords, nextAttempt } from '../step-retry.js';
import { keptArtifacts } from '../kept-artifacts.js';
import { stepSecretRefs } from '../aws-secrets.js';
import { podUsage } from '../pod-usage.js';

/**
 * Keeps the step's log and deletes its pod (unless other steps need it and it succeeded). For a failed step the result
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
  const { location, end, written } = await keepLog(input, poll, deps, mask);
  const serviceLogs = await keepServiceLogs(input, poll, deps, mask);
  const failed = poll.phase === 'failed';
  // What the pod reserved on its node and for how long: the build's cost prices it (cost-model.ts).
  const pod = podUsage(input.step.name, poll.placed, deps.now());
  // A step that others need says by its succeeded pod, once marked finished below, that they may
  // start (WaitForNeeds); the build's cleanup deletes it.
  const keepPod = !failed && input.step.needed === true;
  if (!keepPod) await cluster.deletePod(input.namespace, poll.podName);
  const tail = end ? logTail(end) : '';
  deps.log.info(`Step "${input.step.name}" ${failed ? 'failed' : 'succeeded'}; pod ${poll.podName} ${keepPod ? 'kept for the steps that need it' : 'deleted'}`, {
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
  // For the check run's summary, which nothing else could tell once the Map has dropped its results.
  await deps.logs.putResult(input.build.id, {
    step: input.step.name,
    status: failed ? 'failed' : 'succeeded',
    exitCode: poll.exitCode ?? null,
    error,
    startedAt: poll.launchedAt,
    endedAt: deps.now().toISOString(),
    ...(pod ? { pod } : {}),
    s3,
  });
  // Last, once all the step leaves is stored (the clone's key hashes above all): the steps that
  // need it start on this mark, not on the pod's success (step-finished.ts).
  if (keepPod && !(await cluster.markStepFinished(input.namespace, poll.podName, deps.now()))) {
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
  return {
    step: input.step.name,
    status: failed ? 'failed' : 'succeeded',
    exitCode: poll.exitCode ?? null,
    error,
    cause,
    logTail: tail,
    log: location,
    ...(services.length > 0 ? { services: serviceResults(services, poll, serviceLogs) } : {}),
    ...(artifacts ? { artifacts } : {}),
    ...(!failed && poll.pushed ? { pushed: poll.pushed } : {}),
    ...(next !== undefined ? { nextAttempt: next } : {}),
    ...(pod ? { pod } : {}),
    s3,
  };
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
 * (serviceLogName), masked like it. A service that never started logged nothing: no location.
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
    const log = mask(await deps.cluster.readLog(input.namespace, poll.podName, service.name));
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
): Promise<{ location: string | null; end: string; written: StepS3Usage }> {
  const { build, step, namespace } = input;
  const live = poll.log;
  if (live && live.parts > 0 && deps.readLogAfter) {
    const rest = await deps.readLogAfter(namespace, poll.podName, STEP_CONTAINER, live.position);
    const text = mask(rest.text);
    if (text) await deps.logs.putPart(build.id, step.name, text, { part: live.parts + 1, offset: live.bytes });
    const parts = live.parts + (text ? 1 : 0);
    const { location, tail } = await deps.logs.complete(build.id, step.name, parts);
    // Each part (one PUT at least: it is rewritten as it grows), then the whole log from them.
    return { location, end: tail, written: { puts: parts + 1, gets: parts + 1, bytes: live.bytes + Buffer.byteLength(text) } };
  }
  const checkout = input.settings.checkout;
  // A pod's own checkout (ephemeral workspace) comes first in its log, as it ran first.
  const checkoutLog = checkout && step.name !== input.settings.checkoutStep ? await deps.cluster.readLog(namespace, poll.podName, checkout.name) : '';
  const log = mask(checkoutLog + (await deps.cluster.readLog(namespace, poll.podName)));
  return { location: log ? await deps.logs.put(build.id, step.name, log) : null, end: log, written: { puts: log ? 1 : 0, gets: 0, bytes: Buffer.byteLength(log) } };
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
