/**
 * The normal form of a pipeline the schema (schema.ts) and the rules (cross-step-rules.ts) have let
 * through: defaults filled in, YAML spellings turned into Step and Pipeline fields, the pipeline's
 * services and caches given to each step. Pure, and it cannot fail.
 */
import { normalService, stepServices } from './services.js';
import { normalArtifacts, normalCache, stepCache } from './cache.js';
import { normalRetry } from './retry.js';
import { normalConcurrency } from './concurrency.js';
import { normalInputs } from './inputs.js';
import { normalApproval } from './approval.js';
import { DEFAULT_BUILDER_IMAGE, normalBuild } from './build.js';
import { parseImageReference } from './image-reference.js';
import type { StepCondition } from './when.js';
import type { PathFilter } from './paths.js';
import type { PipelineInput, TolerationInput, WhenInput } from './schema.js';
import { isAwsSecret } from './aws-secrets.js';
import type { ExpandedStep } from './matrix-steps.js';
import { DEFAULT_CHECKOUT, DEFAULT_STEP_TIMEOUT_SECONDS, type AwsSecretEnv, type Pipeline, type SecretEnv, type Toleration } from './types.js';

const BUILDER_REFERENCE = parseImageReference(DEFAULT_BUILDER_IMAGE);

/** A validated pipeline before it is tied to a file (the loader adds `file` and each step's `line`). */
export type PipelineData = Omit<Pipeline, 'file'>;

/** What normalisePipeline takes: the schema's data, each step's `matrix` expanded (matrix-steps.ts). */
export type ExpandedInput = Omit<PipelineInput, 'steps'> & { steps: readonly ExpandedStep[] };

export function normalisePipeline(given: ExpandedInput): PipelineData {
  const { version, steps, 'image-pull-grace': grace, checkout: checkoutGiven, 'pull-secrets': secretsGiven, 'max-parallel': maxParallel } = given;
  const { services: sharedServices, 'service-start-grace': serviceGrace, when: pipelinePaths, concurrency: concurrencyGiven } = given;
  const pendingTimeout = given['pending-timeout'];
  const shared = sharedServices?.map(normalService);
  const sharedCache = given.cache?.map(normalCache);
  return {
    version,
    checkout: checkoutGiven === false ? false : { ...DEFAULT_CHECKOUT, ...withoutUndefined(checkoutGiven ?? {}) },
    steps: steps.map(({ input: step, matrix, imageFrom }) => (step.approval ? approvalStep(step, step.approval) : {
      name: step.name,
      // A build step's image is the builder's; an approval step (above) has none; every other step has both (the rules, build.ts and approval.ts, have said so).
      ...(step.build
        ? { image: DEFAULT_BUILDER_IMAGE, imageRef: BUILDER_REFERENCE, commands: [], build: normalBuild(step.build) }
        : { ...(step.image ? { image: step.image.original, imageRef: step.image } : {}), ...(imageFrom !== undefined ? { imageFrom } : {}), ...(step.commands ? { commands: step.commands } : {}) }),
      env: step.env ?? {},
      pull: step.pull ?? 'if-not-present',
      timeoutSeconds: step.timeout ?? DEFAULT_STEP_TIMEOUT_SECONDS,
      ...withPendingTimeout(step['pending-timeout'] ?? pendingTimeout),
      ...(step.resources ? { resources: withoutUndefined(step.resources) } : {}),
      ...withSecrets(step.secrets ?? []),
      ...(step['image-check'] === false ? { imageCheck: false as const } : {}),
      ...(step['node-selector'] && Object.keys(step['node-selector']).length > 0 ? { nodeSelector: step['node-selector'] } : {}),
      ...(step.tolerations && step.tolerations.length > 0 ? { tolerations: step.tolerations.map(asToleration) } : {}),
      ...(step.when && (step.when.branch || step.when.event || step.when.status?.includes('failure') || step.when.paths || step.when['paths-ignore']) ? { when: conditionOf(step.when) } : {}),
      ...(step.needs !== undefined ? { needs: [...step.needs] } : {}),
      // The pipeline's services and caches are for steps that run commands (build.ts says why).
      ...(step.build ? {} : withServices(stepServices(shared, step.services?.map(normalService)))),
      ...(step.build ? {} : withCache(stepCache(sharedCache, step.cache?.map(normalCache)))),
      ...(step.artifacts ? { artifacts: normalArtifacts(step.artifacts) } : {}),
      ...(step.reports ? { reports: { junit: [...step.reports.junit] } } : {}),
      retry: normalRetry(step.retry),
      ...withIdentity(step.identity ?? given.identity),
      ...(matrix ? { matrix } : {}),
    })),
    ...(pipelinePaths ? { when: pathFilterOf(pipelinePaths) } : {}),
    ...(grace !== undefined ? { imagePullGraceSeconds: grace } : {}),
    ...(secretsGiven && secretsGiven.length > 0 ? { pullSecrets: [...new Set(secretsGiven)] } : {}),
    ...(maxParallel !== undefined ? { maxParallel } : {}),
    ...(serviceGrace !== undefined ? { serviceStartGraceSeconds: serviceGrace } : {}),
    ...withPendingTimeout(pendingTimeout),
    ...(concurrencyGiven !== undefined ? { concurrency: normalConcurrency(concurrencyGiven) } : {}),
    ...withCache(stepCache(sharedCache, undefined)),
    ...withIdentity(given.identity),
    ...(given.inputs !== undefined ? { inputs: normalInputs(given.inputs) } : {}),
  };
}

/** The entries that name a Kubernetes Secret in `secrets`, AWS's apart in `awsSecrets`. */
function withSecrets(entries: (SecretEnv | AwsSecretEnv)[]): { secrets: SecretEnv[]; awsSecrets?: AwsSecretEnv[] } {
  const aws = entries.filter(isAwsSecret);
  return { secrets: entries.filter((entry): entry is SecretEnv => !isAwsSecret(entry)), ...(aws.length > 0 ? { awsSecrets: aws } : {}) };
}

type StepInput = PipelineInput['steps'][number];

/** An approval step: none of a pod's fields, not even the pipeline's services, caches or identity. */
function approvalStep(step: StepInput, given: NonNullable<StepInput['approval']>): PipelineData['steps'][number] {
  const approval = normalApproval(given);
  return {
    name: step.name,
    env: {},
    pull: 'if-not-present',
    // The wait's own bound, as a step's timeout bounds its run (the claim's deadline counts it).
    timeoutSeconds: approval.timeoutSeconds,
    secrets: [],
    ...(step.when && (step.when.branch || step.when.event || step.when.paths || step.when['paths-ignore']) ? { when: conditionOf(step.when) } : {}),
    ...(step.needs !== undefined ? { needs: [...step.needs] } : {}),
    approval,
  };
}

function withIdentity(name: string | undefined): { identity?: string } {
  return name !== undefined ? { identity: name } : {};
}

/** Only a `pending-timeout` the file says: the default bounds a stall, but not a capacity wait (lib/kube/classify-stall.ts). */
function withPendingTimeout(seconds: number | undefined): { pendingTimeoutSeconds?: number } {
  return seconds !== undefined ? { pendingTimeoutSeconds: seconds } : {};
}

function withCache(cache: ReturnType<typeof stepCache>): { cache?: NonNullable<ReturnType<typeof stepCache>> } {
  return cache ? { cache } : {};
}

function withServices(services: ReturnType<typeof stepServices>): { services?: NonNullable<ReturnType<typeof stepServices>> } {
  return services ? { services } : {};
}

/** `status: [success]` says what the default already does. */
function conditionOf(given: WhenInput): StepCondition {
  const { status, paths, 'paths-ignore': pathsIgnore, ...rest } = withoutUndefined(given);
  return { ...rest, ...pathFilterOf({ paths, 'paths-ignore': pathsIgnore }), ...(status?.includes('failure') ? { status: ['failure'] } : {}) };
}

function pathFilterOf(given: { paths?: string[] | undefined; 'paths-ignore'?: string[] | undefined }): PathFilter {
  return { ...(given.paths ? { paths: given.paths } : {}), ...(given['paths-ignore'] ? { pathsIgnore: given['paths-ignore'] } : {}) };
}

export function asToleration(given: TolerationInput): Toleration {
  const operator = given.operator ?? 'Equal';
  return {
    ...(given.key !== undefined ? { key: given.key } : {}),
    operator,
    ...(operator === 'Equal' && given.value !== undefined ? { value: given.value } : {}),
    ...(given.effect !== undefined ? { effect: given.effect } : {}),
    ...(given['toleration-seconds'] !== undefined ? { tolerationSeconds: given['toleration-seconds'] } : {}),
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
