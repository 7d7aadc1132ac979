import {
  cacheSecretManifest,
  GIT_TOKEN_KEY,
  pinsToWorkspaceNode,
  podProgress,
  stepPodManifest,
  stepAwsSecretManifest,
  stepPodName,
  stepRegistryLoginName,
  type BoundPod,
  type StepCluster,
  type PodCachePlan,
  type PodWorkspace,
} from '../../kube/index.js';
import { CacheKeyHashMissing, planStepCache, type StepCachePlan } from '../step-cache.js';
import { planStepArtifacts } from '../step-artifacts.js';
import { planStepReports } from '../step-reports.js';
import { attemptsLeft, attemptWords, retryOf } from '../step-retry.js';
import type { CacheStore } from '../cache-store.js';
import { buildEnvironment } from '../build-environment.js';
import { tagReusedImage } from '../build-reuse.js';
import { firstPollSeconds } from '../poll-schedule.js';
import { buildClaimName, type PollState, type StepInput } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';
import { buildToken, type BuildCredentials } from '../build-credentials.js';
import { signingClock } from '../step-urls.js';
import { awsSecretRefs, readStepAwsSecrets } from '../aws-secrets.js';
import { sdkAwsSecretReader } from '../aws-secret-reader.js';
import { awsSecretWords } from '../../pipeline/index.js';
import { ecrLoginRegistries, stepRegistryLogin } from '../registry-login.js';
import { launchGated, readsAsIdentity, type IdentityReads } from '../gated-launch.js';
import { withPushedImage } from '../step-image.js';

/**
 * The step's AWS secrets, read with its identity (aws-secrets.ts) into the step's own Secret, while
 * its pod waits gated (gated-launch.ts): the Secret keys its env reads them from. SecretUnavailable,
 * thrown, ends the build with AWS's words before any container of the step starts.
 */
async function stepAwsSecrets(input: StepInput, deps: TaskDeps, pod: BoundPod, podToken: () => Promise<string>): Promise<void> {
  const entries = input.step.awsSecrets ?? [];
  if (entries.length === 0) return;
  const values = await readStepAwsSecrets({
    step: input.step,
    namespace: input.namespace,
    pod,
    podToken,
    identityCredentials: deps.identityCredentials,
    readerFor: deps.awsSecretReader ?? sdkAwsSecretReader,
  });
  const secret = await deps.cluster.ensureStepAwsSecret(stepAwsSecretManifest({ buildId: input.build.id, namespace: input.namespace, step: input.step.name, values }));
  // Names only: the values stay in the Secret.
  deps.log.info(`Step "${input.step.name}": read ${entries.map((entry) => `${entry.env} from the ${awsSecretWords(entry)}`).join(', ')} as the identity "${input.step.identity}", into secret ${secret}`, { step: input.step.name });
}

/**
 * A token that expires (a GitHub App's, an hour after PrepareBuild) is renewed when it has less
 * than this left: enough for the pod to be scheduled, pull its images and start its clone.
 */
export const TOKEN_RENEW_MARGIN_MS = 20 * 60 * 1000;

/** Creates the step's pod (or adopts the one a previous attempt created) and schedules the first poll. */
export async function launchStep(input: StepInput, deps: TaskDeps, credentials: BuildCredentials = {}): Promise<PollState> {
  const cluster = deps.cluster;
  // An image named by a build step's digest (step-image.ts), written in now that it is pushed: before anything is made for the pod.
  const step = input.step.imageFrom !== undefined ? withPushedImage(input.step, await deps.logs.results(input.build.id)) : input.step;
  if (step !== input.step) deps.log.info(`Step "${step.name}": image ${step.image}, the digest step "${input.step.imageFrom}" pushed`, { step: step.name });
  await renewCheckoutToken(input, cluster, credentials, deps);
  const claimName = buildClaimName(input.settings);
  // Every pod of the build keeps to the node of the others still running (pod affinity, in the
  // manifest); in the build's first run, a WaitForFirstConsumer volume, once its first pod has put
  // it on a node, pins them there too. A re-run's or a retry's pod is not pinned: that node may be gone.
  const pinned = claimName && pinsToWorkspaceNode({ attempt: input.attempt ?? 0, redrive: input.redrive ?? 0 });
  const node = pinned ? await cluster.workspaceNode(input.namespace, claimName) : undefined;
  const workspace: PodWorkspace | undefined = claimName
    ? { claimName, ...(node ? { node } : {}) }
    : input.settings.workspace && 'ephemeral' in input.settings.workspace
      ? { ephemeral: true }
      : undefined;
  const attempt = input.attempt ?? 0;
  const checkoutStep = input.step.name === input.settings.checkoutStep;
  const without: string[] = [];
  const { cache, urlsValidUntil } = (await stepCache(input, cluster, deps, attempt, (why) => without.push(`cache: this step runs without its cache: ${why}`))) ?? {};
  // A step whose identity reads AWS first (its AWS secrets, its ECR login) has its pod made gated, and
  // those read with a token bound to it, before the gate is removed (gated-launch.ts). The Secrets'
  // names are known before: the pod's env and volumes name them.
  const gated = readsAsIdentity(input.step);
  const awsRefs = awsSecretRefs(input.build.id, input.step);
  const registryLogin = ecrLoginRegistries(input.step).length > 0 ? stepRegistryLoginName(input.build.id, input.step.name) : undefined;
  // A build whose inputs were pushed already: its tags put on that image now, before its pod reports it (build-reuse.ts).
  const tagReused = async (loginSecret: string | undefined) => {
    if (!step.build?.reuse) return;
    await tagReusedImage({ step, namespace: input.namespace, loginSecret, cluster, ...(deps.reuseRegistry ? { registry: deps.reuseRegistry } : {}) });
    deps.log.info(`Step "${step.name}": tagged ${step.build.tags.join(', ')} with ${step.build.reuse.digest}, pushed for its inputs (key ${step.build.inputs?.key}); no build`, { step: step.name });
  };
  if (!gated) await tagReused(input.settings.pullSecrets?.[0]);
  const manifest = stepPodManifest({
    buildId: input.build.id,
    step: awsRefs.length > 0 ? { ...step, secrets: [...step.secrets, ...awsRefs] } : step,
    namespace: input.namespace,
    ...(input.build.repository ? { repository: input.build.repository } : {}),
    buildEnv: buildEnvironment(input.build, input.failure),
    ...(workspace ? { workspace } : {}),
    // The clone step itself (kept in an ephemeral workspace to hash cache keys) checks out as its own container.
    // A build that tags an image pushed already reads nothing of the workspace.
    ...(input.settings.checkout && input.step.name !== input.settings.checkoutStep && !step.build?.reuse ? { checkout: input.settings.checkout } : {}),
    ...(input.settings.runAsUser !== undefined ? { runAsUser: input.settings.runAsUser } : {}),
    ...(input.settings.pullSecrets ? { pullSecrets: input.settings.pullSecrets } : {}),
    ...(registryLogin ? { registryLogin } : {}),
    ...(input.settings.placement ? { placement: input.settings.placement } : {}),
    ...(input.settings.disruptible ? { disruptible: true } : {}),
    ...(input.settings.serviceStartGraceSeconds !== undefined ? { serviceStartGraceSeconds: input.settings.serviceStartGraceSeconds } : {}),
    ...(input.step.needed && input.settings.deadlineSeconds !== undefined ? { keepForSeconds: input.settings.deadlineSeconds } : {}),
    ...(cache ? { cache } : {}),
    ...(without.length > 0 ? { notes: without } : {}),
    ...(attempt > 0 ? { attempt } : {}),
    ...(input.redrive ? { redrive: input.redrive } : {}),
    retry: { left: attemptsLeft(input.step, attempt, checkoutStep), on: retryOf(input.step, checkoutStep).on },
  });
  const reads: IdentityReads = async (pod, podToken) => {
    await stepAwsSecrets(input, deps, pod, podToken);
    // A build step pushing to ECR as its identity logs in with a token got now (registry-login.ts).
    const login = await stepRegistryLogin({
      step: input.step,
      buildId: input.build.id,
      namespace: input.namespace,
      pod,
      podToken,
      pullSecrets: input.settings.pullSecrets ?? [],
      identityCredentials: deps.identityCredentials,
      cluster,
      log: deps.log,
    });
    await tagReused(login ?? input.settings.pullSecrets?.[0]);
  };
  const { pod, adopted } = gated ? await launchGated({ cluster, manifest, step: input.step, reads, log: deps.log }) : await cluster.launchPod(manifest);
  const podName = pod.metadata?.name ?? manifest.metadata!.name!;
  // An adopted pod keeps its own creation time, so the step's deadline and grace periods do not restart.
  const launchedAt = pod.metadata?.creationTimestamp ?? deps.now();
  const which = attempt > 0 ? ` (${attemptWords(input.step, attempt)})` : '';
  deps.log.info(`${adopted ? 'Adopted' : 'Created'} pod ${podName} for step "${input.step.name}"${which}`, { pod: podName });
  return {
    podName,
    launchedAt: new Date(launchedAt).toISOString(),
    runningSince: null,
    phase: 'pending',
    // Visible in the execution history: a retried LaunchStep says it found its pod, not made one.
    reason: adopted ? 'PodAdopted' : 'PodCreated',
    nextPollSeconds: firstPollSeconds(input.settings.pendingWatchSeconds ?? 0),
    polls: 0,
    progress: podProgress(pod),
    ...(pod.metadata?.resourceVersion ? { resourceVersion: pod.metadata.resourceVersion } : {}),
    log: { location: deps.logs.liveLocation(input.build.id, input.step.name), parts: 0, bytes: 0 },
    ...(urlsValidUntil ? { urls: { validUntil: urlsValidUntil } } : {}),
  };
}

/**
 * The step's cache and artifacts, planned now (step-cache.ts, step-artifacts.ts) and handed to its
 * pod as presigned URLs in a Secret of its own, made before the pod that reads it, with when they
 * stop working (PollStep signs them again before, step-urls.ts). A cache that cannot be planned
 * costs the step its cache, never the step: it runs cold, and `without` says why, for the step's
 * own log (where people read the cache's other lines), not only the task's.
 */
async function stepCache(
  input: StepInput,
  cluster: StepCluster,
  deps: Pick<TaskDeps, 'cache' | 'log' | 'now'>,
  attempt: number,
  without: (why: string) => void,
): Promise<{ cache: PodCachePlan; urlsValidUntil: string | undefined } | undefined> {
  const settings = input.settings.cache;
  const caches = input.step.cache ?? [];
  const keeps = (input.step.artifacts?.paths.length ?? 0) > 0;
  const reads = (input.step.reports?.junit.length ?? 0) > 0;
  if (!settings || (caches.length === 0 && !keeps && !reads)) return undefined;
  const name = input.step.name;
  if (!deps.cache) {
    const what = [caches.length > 0 ? 'a cache' : '', keeps ? 'artifacts' : '', reads ? 'test reports' : ''].filter(Boolean).join(' and ');
    const lost = [caches.length > 0 ? 'its cache is neither restored nor saved' : '', keeps ? 'its artifacts are not kept' : '', reads ? 'its test reports are not read' : ''].filter(Boolean).join('; ');
    deps.log.warn(`Step "${name}" has ${what}, but this deployment has no store for them: ${lost}`, { step: name });
    if (caches.length > 0) without('this deployment has no store for caches');
    return undefined;
  }
  const validUntil = await signingClock(deps.cache, deps.now());
  const plan = caches.length > 0 ? await cachePlan(input, deps.cache, settings.prefix, deps, without) : undefined;
  const artifacts = keeps ? await planStepArtifacts({ step: input.step, build: input.build, store: deps.cache }) : undefined;
  const reports = reads ? await planStepReports({ step: input.step, build: input.build, attempt, redrive: input.redrive }, deps.cache) : undefined;
  if (!plan && !artifacts && !reports) return undefined;
  for (const note of plan?.notes ?? []) deps.log.info(`Step "${name}": ${note}`, { step: name });
  if (artifacts) deps.log.info(`Step "${name}": ${artifacts.note}`, { step: name });
  if (reports) deps.log.info(`Step "${name}": ${reports.note}`, { step: name });
  const podName = stepPodName(input.build.id, name, attempt, input.redrive ?? 0);
  const deadline = input.settings.deadlineSeconds;
  const urls = { ...plan?.urls, ...artifacts?.urls, ...reports?.urls };
  const signing = { ...plan?.signing, ...artifacts?.signing, ...reports?.signing };
  const secret = await cluster.ensureCacheSecret(
    cacheSecretManifest({ buildId: input.build.id, namespace: input.namespace, podName, urls, signing, ...(deadline !== undefined ? { deadlineSeconds: deadline } : {}) }),
  );
  return {
    cache: { image: settings.image, secret, entries: plan?.entries ?? [], ...(artifacts ? { artifacts: artifacts.artifacts } : {}), ...(reports ? { reports: reports.reports } : {}) },
    urlsValidUntil: validUntil(signing),
  };
}

async function cachePlan(input: StepInput, store: CacheStore, prefix: string, deps: Pick<TaskDeps, 'log'>, without: (why: string) => void): Promise<StepCachePlan | undefined> {
  const caches = input.step.cache ?? [];
  const keyHashes = caches.some((cache) => cache.key.files.length > 0) ? await store.buildKeys(input.build.id) : {};
  try {
    return await planStepCache({ step: input.step, build: input.build, keyHashes, store, prefix });
  } catch (error) {
    if (!(error instanceof CacheKeyHashMissing)) throw error;
    deps.log.warn(`Step "${input.step.name}" runs without its cache: ${error.message}`, { step: input.step.name });
    without(error.message);
    return undefined;
  }
}

/**
 * With an ephemeral workspace every step's pod clones, with the token PrepareBuild stored in the
 * build's Secret; a step that starts after that token's hour would fail its checkout.
 */
async function renewCheckoutToken(input: StepInput, cluster: StepCluster, credentials: BuildCredentials, deps: Pick<TaskDeps, 'now' | 'log'>): Promise<void> {
  const secret = input.settings.checkout?.secrets.find((ref) => ref.key === GIT_TOKEN_KEY)?.secret;
  if (!secret || !credentials.githubToken) return;
  const expiry = await cluster.gitTokenExpiry(input.namespace, secret);
  if (expiry === undefined || expiry - deps.now().getTime() > TOKEN_RENEW_MARGIN_MS) return;
  const token = await buildToken(credentials, input.build);
  if (!token) return;
  await cluster.renewGitCredentials(input.namespace, secret, token);
  deps.log.info(`Renewed the clone's token in secret ${secret}: the one PrepareBuild got expires at ${new Date(expiry).toISOString()}`);
}
