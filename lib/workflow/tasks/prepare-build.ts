import type { BuildInput } from '../../contract/index.js';
import { gitCredentialsManifest, workspaceClaimManifest, type PodPlacement } from '../../kube/index.js';
import { EXECUTION_TIME_LIMIT_SECONDS, CHECKOUT_STEP, DEFAULT_BUILDER_IMAGE, DEFAULT_SERVICE_START_GRACE_SECONDS, filtersPaths, InvalidPipeline, parseImageReference, parsePipeline } from '../../pipeline/index.js';
import { CHECKOUT_TIMEOUT_SECONDS, checkoutStep } from '../checkout-step.js';
import { historyBudgetProblem, withWorstWaits } from '../history-budget.js';
import { checkBuildImages, imageCheckNote, imageCheckSummaries, imageUses, missingImages, servicesNote } from '../image-check.js';
import { WorkspaceModes, type WorkflowSettings } from '../settings.js';
import type { CacheKeyFiles, PreparedBuild } from '../state-data.js';
import { planSteps } from '../step-plan.js';
import { askedSteps } from '../asked-steps.js';
import { skippedBuildDescription, undecidedPathsNote } from '../skipped-build.js';
import type { TaskDeps } from '../task-deps.js';
import { buildToken, type BuildCredentials } from '../build-credentials.js';
import { keyFileSets, keyFilesId } from '../cache-keys.js';
import type { Pipeline, Step } from '../../pipeline/index.js';
import { checkStepIdentities } from '../identities.js';
import { buildBases, type BuildBases } from '../build-bases.js';
import type { ImageVerdict } from '../../registry/index.js';
import { planBuildReuse, type PlanReuseInput } from '../build-reuse.js';
import { buildEnvironment } from '../build-environment.js';

/**
 * Past this a step's time before its timeout starts counting is over for sure: a pod pending for
 * its image, a node or its volume fails within its grace periods (2 min each at most by default).
 */
const STEP_START_ALLOWANCE_SECONDS = 10 * 60;

/**
 * How long the build may need its claim, written on it for the orphan sweep: every step's timeout
 * and start allowance, and never past the execution's own limit.
 */
function claimDeadlineSeconds(steps: readonly { timeoutSeconds: number }[]): number {
  const needed = steps.reduce((sum, step) => sum + step.timeoutSeconds + STEP_START_ALLOWANCE_SECONDS, 0);
  // No build outlives the execution's limit, nor should its claim (an approval's wait counts: the claim waits with it).
  return Math.min(needed, EXECUTION_TIME_LIMIT_SECONDS);
}

/**
 * Validates the pipeline again (the webhook did too, in its own invocation, but the execution input
 * is the authority and reaches this Lambda as text), unless the caller of this invocation has just
 * parsed it (the handler does, for superseding's `concurrency`); puts the checkout first when the
 * pipeline wants one, creates the build's workspace claim and fixes the build's namespace and
 * settings. Nothing is pulled here, but each image's registry is asked whether it exists, before
 * any object is created: a missing image fails the build now rather than after every step before
 * it has run. Anything short of "does not exist" is left to the kubelet, whose pull failures
 * surface from that step's first polls.
 */
export async function prepareBuild(
  input: BuildInput,
  settings: WorkflowSettings,
  deps: Pick<TaskDeps, 'cluster' | 'log' | 'checkImages' | 'sourceFiles' | 'reuseRegistry'>,
  credentials: BuildCredentials = {},
  parsed: Pipeline = parsePipeline(input.pipeline.text, input.pipeline.file),
): Promise<PreparedBuild> {
  const namespace = input.namespace ?? settings.namespace;
  const ephemeral = settings.workspaceMode === WorkspaceModes.ephemeral;
  // Decided now, from the delivery: a skipped step gets no iteration, its image is not asked about.
  const asked = askedSteps(parsed.steps, input);
  const filtered = filtersPaths(parsed.when) || asked.steps.some((step) => filtersPaths(step.when));
  const undecided = filtered ? undecidedPathsNote(input.changes) : undefined;
  if (undecided) deps.log.info(undecided);
  const paths = { changes: input.changes, pipeline: parsed.when };
  // Each pod of an ephemeral workspace clones for itself, so the clone is no step of its own;
  // but cache keys from files are hashed before any step's pod is made, so a build that has them
  // keeps the clone as its first step there too, to print them (its checkout is then thrown away).
  const hashesKeys = asked.steps.some((step) => step.cache?.some((cache) => cache.key.files.length > 0));
  const cloneStep = !ephemeral || hashesKeys;
  const plan = planSteps(asked.steps, input.build, parsed.checkout !== false && input.source !== undefined && cloneStep ? CHECKOUT_STEP : undefined, paths);
  const skipped = asked.skipped(plan.skipped);
  // No step runs (every one skipped by its `when`): nothing is checked out, made or started.
  const nothingRuns = plan.running.length === 0 && plan.afterFailure.length === 0;
  let checksOut = parsed.checkout !== false && input.source !== undefined && !nothingRuns;
  // A build step runs the deployment's builder (`builder-image`), whatever the file was parsed with.
  const builder = parseImageReference(settings.builderImage ?? DEFAULT_BUILDER_IMAGE);
  // A fork's pull request reads the layer cache and never writes it, as it saves no step cache: nothing a fork wrote is built on elsewhere.
  const fork = input.build.pullRequest?.fork === true;
  const withBuilder = (step: Step): Step =>
    step.build ? { ...step, image: builder.original, imageRef: builder, build: { ...step.build, ...(step.build.cache ? { cache: { ...step.build.cache, write: !fork } } : {}) } } : step;
  const pipeline = { ...parsed, steps: plan.running.map(withBuilder) };
  if (pipeline.checkout !== false && !input.source && input.withoutSource) {
    deps.log.warn(`No checkout: ${input.withoutSource}`);
  } else if (pipeline.checkout !== false && !input.source) {
    throw new InvalidPipeline(
      `${input.pipeline.file}: the pipeline checks out its source, but this build names no repository to clone; ` +
        'set "checkout: false" if it needs none',
      { file: input.pipeline.file, field: 'checkout' },
    );
  }
  // Refused before anything is asked or made: the clone, a step of its own unless each pod clones, counts too.
  // The steps that run after a failure count as if the failure came last.
  let afterFailure = plan.afterFailure.map(withBuilder);
  let everyStep = [...pipeline.steps, ...afterFailure];
  // An approval's wait makes no events until it ends: its few are fewer than those of a step that ends at once.
  const counted = everyStep.map((step) => (step.approval ? { ...step, timeoutSeconds: 1 } : step));
  const runs = checksOut && cloneStep ? [{ name: CHECKOUT_STEP, timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS }, ...counted] : counted;
  // A step with needs may wait as long as the steps it needs take, a look per watch while it does.
  const tooLong = historyBudgetProblem(input.pipeline.file, withWorstWaits(runs), {
    pendingWatchSeconds: settings.pendingWatchSeconds,
    runningWatchSeconds: settings.runningWatchSeconds,
    runningWatchUntilSeconds: settings.runningWatchUntilSeconds,
  });
  if (tooLong) throw tooLong;
  // Before any registry is asked or object made: the deployment's rules, not the file, decide who gets an identity.
  checkStepIdentities(everyStep, settings.identities ?? [], input.build, input.pipeline.file);
  // Each build step's Dockerfile, from the build's commit: its base images are asked about with the steps' images.
  const bases = await buildBases(everyStep, deps.sourceFiles?.(input));
  for (const note of bases.notes) deps.log.warn(`Build: ${note}`);
  // The kubelet pulls with the pod's own imagePullSecrets; the service account's count only when it has none.
  const pullSecrets = [...new Set([...(pipeline.pullSecrets ?? []), ...(settings.pullSecrets ?? [])])];
  const placement = deploymentPlacement(settings);
  // The deployment's clone image, parsed once for the image check and the checkout step.
  const cloneImage = checksOut ? parseImageReference(settings.cloneImage) : undefined;
  const uses = imageUses([...(cloneImage ? [{ name: CHECKOUT_STEP, imageRef: cloneImage }] : []), ...everyStep], bases.bases);
  const verdicts = await checkBuildImages(uses, namespace, settings.imageCheck, deps, pullSecrets);
  const missing = missingImages(uses, verdicts);
  if (missing) throw missing;
  // Each build step's inputs key (its bases' digests among them), and whether an image was pushed for it already (build-reuse.ts).
  const reuse = bases.steps.some((step) => step.build)
    ? await planBuildReuse({
        steps: bases.steps,
        source: deps.sourceFiles?.(input),
        buildEnv: buildEnvironment(input.build),
        builderImage: builder.original,
        ...(placement ? { placement } : {}),
        fork,
        namespace,
        pullSecrets,
        cluster: deps.cluster,
        bases: (name) => baseDigests(name, bases, verdicts),
        ...(deps.reuseRegistry ? { registry: deps.reuseRegistry } : {}),
      })
    : { steps: bases.steps, notes: [] };
  for (const note of reuse.notes) deps.log.info(`Build: ${note}`);
  const read = new Map(reuse.steps.map((step) => [step.name, step]));
  pipeline.steps = pipeline.steps.map((step) => read.get(step.name) ?? step);
  afterFailure = afterFailure.map((step) => read.get(step.name) ?? step);
  everyStep = [...pipeline.steps, ...afterFailure];
  // Every step tags an image pushed already: nothing reads the workspace, so nothing is checked out.
  const allReused = everyStep.length > 0 && everyStep.every((step) => step.build?.reuse !== undefined);
  if (allReused && checksOut) {
    checksOut = false;
    deps.log.info('No checkout: every step tags an image pushed for its inputs already');
    const withoutClone = (step: Step): Step => (step.needs ? { ...step, needs: step.needs.filter((need) => need !== CHECKOUT_STEP) } : step);
    pipeline.steps = pipeline.steps.map(withoutClone);
    afterFailure = afterFailure.map(withoutClone);
    everyStep = [...pipeline.steps, ...afterFailure];
  }
  // The clone's image is no image of the build once nothing is checked out.
  const images = imageCheckSummaries(checksOut ? uses : uses.filter((use) => use.bases !== undefined || use.steps.some((step) => step !== CHECKOUT_STEP)), verdicts);
  // The checkout's own timeout counts too: the credentials and the claim outlive it.
  const deadlineSeconds = claimDeadlineSeconds([{ timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS }, ...everyStep]);
  const wantsToken = checksOut && input.source?.credentials === 'github';
  const token = wantsToken ? await buildToken(credentials, input.build) : undefined;
  const credentialsSecret = token
    ? await deps.cluster.ensureGitCredentials(gitCredentialsManifest({ buildId: input.build.id, namespace, ...token, deadlineSeconds }))
    : undefined;
  // The cache keys that hash files are the clone's to compute: it alone has the commit before any step's pod is made.
  const keyFiles = keyFileSets(everyStep.flatMap((step) => step.cache ?? []));
  const checkout =
    cloneImage && checksOut && pipeline.checkout !== false && input.source
      ? withPipelinePendingTimeout(checkoutStep(input.source, pipeline.checkout, cloneImage, credentialsSecret, keyFiles), pipeline.pendingTimeoutSeconds)
      : undefined;
  // Ephemeral: each pod checks out for itself, so the checkout is no step of its own (unless it hashes cache keys).
  const steps = checkout && cloneStep ? [{ ...checkout, ...(plan.checkoutNeeded ? { needed: true as const } : {}) }, ...pipeline.steps] : pipeline.steps;
  const maxParallel = plan.parallel ? Math.min(pipeline.maxParallel ?? settings.maxParallelSteps, settings.maxParallelSteps) : 1;
  if (plan.parallel) {
    const capped = pipeline.maxParallel !== undefined && pipeline.maxParallel > settings.maxParallelSteps ? ` (the pipeline asks for ${pipeline.maxParallel}; the deployment allows ${settings.maxParallelSteps})` : '';
    deps.log.info(`Steps run side by side as their needs allow, at most ${maxParallel} at once${capped}`);
  }
  if (checkout && ephemeral) {
    deps.log.info(`Preparing checkout: image ${checkout.imageRef?.familiar}${imageCheckNote(images, checkout.image ?? '')}, in every step's pod`);
  }
  for (const step of skipped) deps.log.info(`Skipping step "${step.name}": ${step.reason}`, { step: step.name });
  for (const step of [...steps, ...afterFailure]) {
    const services = servicesNote(step, images);
    const when = afterFailure.includes(step) ? ', only if the build fails' : '';
    const identity = step.identity !== undefined ? `, as the identity "${step.identity}"` : '';
    // A build step says what it builds, and each base image with what its registry said.
    const builds = step.build ? `; builds ${step.build.dockerfile}${bases.bases.filter((base) => base.step === step.name).map((base) => `, FROM ${base.reference.familiar}${imageCheckNote(images, base.reference.original)}`).join('')}${step.build.reuse ? `, tags ${step.build.tags.join(', ')} with the image pushed for its inputs (${step.build.reuse.digest}), no build` : step.build.push ? `, pushes ${step.build.tags.join(', ')}` : ', pushes nothing'}` : '';
    const what = step.imageRef ? `image ${step.imageRef.familiar}${imageCheckNote(images, step.image ?? '')}${builds}` : 'waits for an approval';
    deps.log.info(`Preparing step "${step.name}"${when}: ${what}${services}${identity}`, { step: step.name });
  }
  if (pullSecrets.length > 0) deps.log.info(`Every pod pulls with the secrets ${pullSecrets.map((name) => `"${name}"`).join(', ')}`);
  if (nothingRuns) deps.log.info(`No step runs${parsed.checkout !== false && input.source ? ', so nothing is checked out' : ''}: the build ends here, reported as succeeded`);
  const workspace = nothingRuns ? undefined : ephemeral ? ({ ephemeral: true } as const) : await ensureClaim(input, namespace, settings, deadlineSeconds, deps);

  return {
    build: input.build,
    namespace,
    settings: {
      imagePullGraceSeconds: pipeline.imagePullGraceSeconds ?? settings.imagePullGraceSeconds,
      unschedulableGraceSeconds: settings.unschedulableGraceSeconds,
      pendingWatchSeconds: settings.pendingWatchSeconds,
      runningWatchSeconds: settings.runningWatchSeconds,
      runningWatchUntilSeconds: settings.runningWatchUntilSeconds,
      ...(workspace ? { workspace } : {}),
      ...(checkout && cloneStep ? { checkoutStep: checkout.name } : {}),
      ...(checkout && ephemeral ? { checkout } : {}),
      ...(settings.runAsUser !== undefined ? { runAsUser: settings.runAsUser } : {}),
      ...(pullSecrets.length > 0 ? { pullSecrets } : {}),
      ...(placement ? { placement } : {}),
      ...(settings.doNotDisrupt ? {} : { disruptible: true as const }),
      ...(plan.parallel ? { deadlineSeconds } : {}),
      ...([...steps, ...afterFailure].some((step) => step.approval) ? { approvals: true as const } : {}),
      ...(cached(everyStep) ? { cache: { image: settings.cacheImage, prefix: settings.cachePrefix, file: input.pipeline.file, keyFiles: keyFileLocations(input.pipeline.file, everyStep) } } : {}),
      ...([...steps, ...afterFailure].some((step) => step.services) ? { serviceStartGraceSeconds: pipeline.serviceStartGraceSeconds ?? DEFAULT_SERVICE_START_GRACE_SECONDS } : {}),
    },
    steps,
    maxParallel,
    pipelineFile: input.pipeline.file,
    ...(skipped.length > 0 ? { skipped } : {}),
    ...(afterFailure.length > 0 ? { afterFailure } : {}),
    images,
    ...(nothingRuns ? { skippedBuild: skippedBuildDescription(skipped) } : {}),
  };
}

/** A build step's FROM images with the digests the image check got; or why they are not all known. */
function baseDigests(step: string, bases: BuildBases, verdicts: ReadonlyMap<string, ImageVerdict>): ReturnType<PlanReuseInput['bases']> {
  if (bases.unchecked.has(step)) return { unknown: 'a FROM image of its Dockerfile was not asked about (unread, unresolved or image-check: false)' };
  return {
    images: bases.bases
      .filter((one) => one.step === step)
      .map((base) => {
        const verdict = verdicts.get(base.reference.original);
        return { reference: base.reference, ...(verdict?.kind === 'found' && verdict.digest !== undefined ? { digest: verdict.digest } : {}) };
      }),
  };
}

/** Whether a step caches, keeps artifacts or reads test reports: each needs the cache's image and store. */
function cached(steps: readonly Step[]): boolean {
  return steps.some((step) => (step.cache ?? []).length > 0 || (step.artifacts?.paths.length ?? 0) > 0 || (step.reports?.junit.length ?? 0) > 0);
}

/** Each key-file set the clone hashes, with the pipeline lines that name it. */
function keyFileLocations(file: string, steps: readonly Step[]): CacheKeyFiles[] {
  const sets = new Map<string, CacheKeyFiles>();
  for (const step of steps) {
    for (const cache of step.cache ?? []) {
      if (cache.key.files.length === 0) continue;
      const id = keyFilesId(cache.key.files);
      const set = sets.get(id) ?? { id, files: [...new Set(cache.key.files)].sort(), named: [] };
      const line = cache.filesLine ?? cache.line;
      const named = `${file}: ${line !== undefined ? `line ${line} ` : ''}(step "${step.name}", cache.key.files)`;
      if (!set.named.includes(named)) set.named.push(named);
      sets.set(id, set);
    }
  }
  return [...sets.values()];
}

/** The deployment's node selector and tolerations, when it has any. */
function deploymentPlacement(settings: WorkflowSettings): PodPlacement | undefined {
  const nodeSelector = settings.nodeSelector ?? {};
  const tolerations = settings.tolerations ?? [];
  if (Object.keys(nodeSelector).length === 0 && tolerations.length === 0) return undefined;
  return { ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}), ...(tolerations.length > 0 ? { tolerations } : {}) };
}

async function ensureClaim(
  input: BuildInput,
  namespace: string,
  settings: WorkflowSettings,
  deadlineSeconds: number,
  deps: Pick<TaskDeps, 'cluster' | 'log'>,
): Promise<{ claimName: string }> {
  const claim = workspaceClaimManifest({ buildId: input.build.id, namespace, settings: settings.workspace, deadlineSeconds });
  const { adopted } = await deps.cluster.ensureWorkspaceClaim(claim);
  const claimName = claim.metadata!.name!;
  deps.log.info(`${adopted ? 'Adopted' : 'Created'} workspace claim ${claimName}`, { claim: claimName });
  return { claimName };
}

/** The checkout's pod is bounded by the pipeline's `pending-timeout` as every step's is. */
function withPipelinePendingTimeout(step: Step, seconds: number | undefined): Step {
  return seconds === undefined ? step : { ...step, pendingTimeoutSeconds: seconds };
}
