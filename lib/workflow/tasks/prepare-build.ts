import type { BuildInput } from '../../contract/index.js';
import { ensureGitCredentials, ensureWorkspaceClaim, gitCredentialsManifest, workspaceClaimManifest, type PodPlacement } from '../../kube/index.js';
import { BUILD_TIME_LIMIT_SECONDS, CHECKOUT_STEP, InvalidPipeline, parseImageReference, parsePipeline, skipReason, type Step } from '../../pipeline/index.js';
import { CHECKOUT_TIMEOUT_SECONDS, checkoutStep } from '../checkout-step.js';
import { historyBudgetProblem } from '../history-budget.js';
import { checkBuildImages, imageCheckNote, imageCheckSummaries, imageUses, missingImages } from '../image-check.js';
import { WorkspaceModes, type WorkflowSettings } from '../settings.js';
import type { PreparedBuild, SkippedStep } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';
import { buildToken, type BuildCredentials } from '../build-credentials.js';

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
  // No build outlives the execution's limit, nor should its claim.
  return Math.min(needed, BUILD_TIME_LIMIT_SECONDS);
}

/**
 * Validates the pipeline again (the webhook did too, but the execution input is the authority),
 * puts the checkout first when the pipeline wants one, creates the build's workspace claim and
 * fixes the build's namespace and settings. Nothing is pulled here, but each image's registry is
 * asked whether it exists, before any object is created: a missing image fails the build now
 * rather than after every step before it has run. Anything short of "does not exist" is left to
 * the kubelet, whose pull failures surface from that step's first polls.
 */
export async function prepareBuild(
  input: BuildInput,
  settings: WorkflowSettings,
  deps: Pick<TaskDeps, 'kube' | 'log' | 'checkImages'>,
  credentials: BuildCredentials = {},
): Promise<PreparedBuild> {
  const parsed = parsePipeline(input.pipeline.text, input.pipeline.file);
  // Decided now, from the delivery: a skipped step gets no iteration, its image is not asked about.
  const { running, skipped } = splitByCondition(parsed.steps, input.build);
  const pipeline = { ...parsed, steps: running };
  if (pipeline.checkout !== false && !input.source && input.withoutSource) {
    deps.log.warn(`No checkout: ${input.withoutSource}`);
  } else if (pipeline.checkout !== false && !input.source) {
    throw new InvalidPipeline(
      `${input.pipeline.file}: the pipeline checks out its source, but this build names no repository to clone; ` +
        'set "checkout: false" if it needs none',
      { file: input.pipeline.file, field: 'checkout' },
    );
  }
  const namespace = input.namespace ?? settings.namespace;
  const checksOut = pipeline.checkout !== false && input.source !== undefined;
  const ephemeral = settings.workspaceMode === WorkspaceModes.ephemeral;
  // Refused before anything is asked or made: the clone, a step of its own unless each pod clones, counts too.
  const runs = checksOut && !ephemeral ? [{ name: CHECKOUT_STEP, timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS }, ...pipeline.steps] : pipeline.steps;
  const tooLong = historyBudgetProblem(input.pipeline.file, runs, {
    pendingWatchSeconds: settings.pendingWatchSeconds,
    runningWatchSeconds: settings.runningWatchSeconds,
  });
  if (tooLong) throw tooLong;
  // The kubelet pulls with the pod's own imagePullSecrets; the service account's count only when it has none.
  const pullSecrets = [...new Set([...(pipeline.pullSecrets ?? []), ...(settings.pullSecrets ?? [])])];
  const placement = deploymentPlacement(settings);
  const uses = imageUses([...(checksOut ? [{ name: CHECKOUT_STEP, image: settings.cloneImage }] : []), ...pipeline.steps]);
  const verdicts = await checkBuildImages(uses, namespace, settings.imageCheck, deps, pullSecrets);
  const missing = missingImages(uses, verdicts);
  if (missing) throw missing;
  const images = imageCheckSummaries(uses, verdicts);
  const api = await deps.kube();
  // The checkout's own timeout counts too: the credentials and the claim outlive it.
  const deadlineSeconds = claimDeadlineSeconds([{ timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS }, ...pipeline.steps]);
  const wantsToken = pipeline.checkout !== false && input.source?.credentials === 'github';
  const token = wantsToken ? await buildToken(credentials, input.build) : undefined;
  const credentialsSecret = token
    ? await ensureGitCredentials(api, gitCredentialsManifest({ buildId: input.build.id, namespace, ...token, deadlineSeconds }))
    : undefined;
  const checkout =
    pipeline.checkout !== false && input.source ? checkoutStep(input.source, pipeline.checkout, settings.cloneImage, credentialsSecret) : undefined;
  // Ephemeral: each pod checks out for itself, so the checkout is no step of its own.
  const steps = checkout && !ephemeral ? [checkout, ...pipeline.steps] : pipeline.steps;
  if (checkout && ephemeral) {
    deps.log.info(`Preparing checkout: image ${parseImageReference(checkout.image).familiar}${imageCheckNote(images, checkout.image)}, in every step's pod`);
  }
  for (const step of skipped) deps.log.info(`Skipping step "${step.name}": ${step.reason}`, { step: step.name });
  for (const step of steps) {
    deps.log.info(`Preparing step "${step.name}": image ${parseImageReference(step.image).familiar}${imageCheckNote(images, step.image)}`, { step: step.name });
  }
  if (pullSecrets.length > 0) deps.log.info(`Every pod pulls with the secrets ${pullSecrets.map((name) => `"${name}"`).join(', ')}`);
  const workspace = ephemeral ? ({ ephemeral: true } as const) : await ensureClaim(input, namespace, settings, deadlineSeconds, deps);

  return {
    build: input.build,
    namespace,
    settings: {
      imagePullGraceSeconds: pipeline.imagePullGraceSeconds ?? settings.imagePullGraceSeconds,
      unschedulableGraceSeconds: settings.unschedulableGraceSeconds,
      pendingWatchSeconds: settings.pendingWatchSeconds,
      runningWatchSeconds: settings.runningWatchSeconds,
      workspace,
      ...(checkout && !ephemeral ? { checkoutStep: checkout.name } : {}),
      ...(checkout && ephemeral ? { checkout } : {}),
      ...(settings.runAsUser !== undefined ? { runAsUser: settings.runAsUser } : {}),
      ...(pullSecrets.length > 0 ? { pullSecrets } : {}),
      ...(placement ? { placement } : {}),
    },
    steps,
    ...(skipped.length > 0 ? { skipped } : {}),
    images,
  };
}

/** The steps whose `when` holds (without it: the state data stays small), and the others with why. */
function splitByCondition(steps: readonly Step[], build: BuildInput['build']): { running: Step[]; skipped: SkippedStep[] } {
  const running: Step[] = [];
  const skipped: SkippedStep[] = [];
  steps.forEach((step, index) => {
    const { when, ...rest } = step;
    const reason = skipReason(when, build);
    if (reason === undefined) running.push(rest);
    else skipped.push({ name: step.name, index, reason });
  });
  return { running, skipped };
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
  deps: Pick<TaskDeps, 'kube' | 'log'>,
): Promise<{ claimName: string }> {
  const claim = workspaceClaimManifest({ buildId: input.build.id, namespace, settings: settings.workspace, deadlineSeconds });
  const { adopted } = await ensureWorkspaceClaim(await deps.kube(), claim);
  const claimName = claim.metadata!.name!;
  deps.log.info(`${adopted ? 'Adopted' : 'Created'} workspace claim ${claimName}`, { claim: claimName });
  return { claimName };
}
