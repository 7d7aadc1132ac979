import type { ErrorName } from '../contract/index.js';
/** The validated, normalised form of a pipeline file (the YAML contract: docs/contracts.md#pipeline-file). */
import type { StepCondition } from './when.js';
import type { PathFilter } from './paths.js';
import type { ConcurrencySetting } from './concurrency.js';
import type { PipelineInput } from './inputs.js';
import type { ImageReference } from './image-reference.js';

/** YAML spelling -> Kubernetes imagePullPolicy. */
export const PullPolicies = {
  always: 'Always',
  'if-not-present': 'IfNotPresent',
  never: 'Never',
} as const;
export type PullPolicy = keyof typeof PullPolicies;

export interface SecretEnv {
  /** Environment variable the step sees. */
  env: string;
  /** Kubernetes Secret in the build namespace. */
  secret: string;
  key: string;
}

/**
 * A variable read from AWS with the step's identity (aws-secrets.ts): a Secrets Manager secret,
 * its whole string or one key of its JSON, or an SSM parameter (a SecureString decrypted).
 */
export type AwsSecretEnv = { env: string; awsSecret: string; key?: string } | { env: string; ssmParameter: string };

/** A taint's effect, as Kubernetes spells it. */
export const TaintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
export type TaintEffect = (typeof TaintEffects)[number];

export const TolerationOperators = ['Equal', 'Exists'] as const;
export type TolerationOperator = (typeof TolerationOperators)[number];

/** A pod toleration in Kubernetes' own shape (`toleration-seconds` in the file is `tolerationSeconds`). */
export interface Toleration {
  /** Absent: with operator Exists, every taint. */
  key?: string;
  operator: TolerationOperator;
  /** Only with operator Equal. */
  value?: string;
  /** Absent: every effect. */
  effect?: TaintEffect;
  /** Only with effect NoExecute: how long the pod stays once such a taint appears. */
  tolerationSeconds?: number;
}

export interface StepResources {
  cpu?: string;
  memory?: string;
}

/**
 * A service (`services:`): a container that runs beside a step for as long as the step does, in
 * the step's pod (a native sidecar), reachable at localhost and at its name.
 */
export interface Service {
  /** A DNS-1123 label, unique among the step's services. */
  name: string;
  /** As written: what people are shown and what goes into the pod spec. */
  image: string;
  /** `image` parsed once, when the file is: code that needs its registry or repository reads them here. */
  imageRef: ImageReference;
  /** `entrypoint`: the container's `command`, replacing the image's ENTRYPOINT (and its CMD unless `command` is given). */
  entrypoint?: string[];
  /** `command`: the container's `args`, replacing the image's CMD. */
  command?: string[];
  env: Record<string, string>;
  /** TCP ports the step waits for (each must accept connections before the step starts); may be empty. */
  ports: number[];
  secrets: SecretEnv[];
  pull: PullPolicy;
  /** 1-based line of the service in its file, for messages raised after parsing. */
  line?: number;
}

export interface Step {
  name: string;
  /** As written: what people are shown and what goes into the pod spec. Absent only for an approval step, which has no pod. */
  image?: string;
  /** `image` parsed once, when the file is: code that needs its registry or repository reads them here. */
  imageRef?: ImageReference;
  /**
   * `image: REPOSITORY@${{ steps.NAME.digest }}`: the build step whose pushed digest LaunchStep writes
   * into `image` (lib/workflow/step-image.ts); until then `imageRef` holds a placeholder digest and
   * PrepareBuild asks no registry about it. Absent: the image is as written.
   */
  imageFrom?: string;
  /** Absent only for an approval step. */
  commands?: string[];
  /**
   * `approval:`: the step runs nothing and waits for a person (approval.ts); the definition sends it
   * to AwaitApproval instead of LaunchStep. Absent: a step with a pod.
   */
  approval?: Approval;
  /**
   * What the step's log shows for a command instead of the command itself, by its index: the
   * runner's own plumbing in the clone (waiting for an uploaded source, hashing the cache's key
   * files) reads as what it does. A pipeline file cannot set it; its commands are shown whole.
   */
  shownAs?: Record<number, string>;
  env: Record<string, string>;
  pull: PullPolicy;
  /** From `timeout` (e.g. "10m"); DEFAULT_STEP_TIMEOUT_SECONDS when absent. */
  timeoutSeconds: number;
  /**
   * `pending-timeout`, the step's or else the pipeline's, when the file says one: how long the
   * step's pod may go with no event or status change before it is PodStalled, and the most it may
   * wait for room on a cluster with no node autoscaler. Absent: 5 minutes for the first, the
   * step's timeout for the second (lib/kube/classify-stall.ts).
   */
  pendingTimeoutSeconds?: number;
  resources?: StepResources;
  /** The `secrets` entries that name a Kubernetes Secret. */
  secrets: SecretEnv[];
  /**
   * The `secrets` entries that name AWS, read with the step's identity by LaunchStep into a Secret
   * of the step's own (lib/workflow/aws-secrets.ts). Absent: none.
   */
  awsSecrets?: AwsSecretEnv[];
  /** `image-check: false`: PrepareBuild does not ask the registry about this step's image. */
  imageCheck?: false;
  /** Node labels the step's node must have (`node-selector`), over the deployment's. */
  nodeSelector?: Record<string, string>;
  /** Taints the step's pod tolerates, after the deployment's. */
  tolerations?: Toleration[];
  /** `when`: the branches and events the step runs for; PrepareBuild skips it for any other build. */
  when?: StepCondition;
  /**
   * The steps this one starts after (`needs`, else the step above it), by name; PrepareBuild
   * resolves it for every step of a build that runs steps side by side. Absent: one at a time.
   */
  needs?: string[];
  /**
   * Another step of the build needs this one: FinishStep leaves its succeeded pod (which
   * WaitForNeeds reads), marked once its results are stored, to the build's cleanup instead of
   * deleting it.
   */
  needed?: true;
  /**
   * The approval steps it needs, directly or through the steps it needs (PrepareBuild, side by side
   * only): the step waits for them in a callback Task of its own (AwaitApprovedNeeds) before
   * WaitForNeeds looks for its other needs, so that a wait of days costs it nothing either. Absent:
   * none.
   */
  awaits?: string[];
  /** The services that run beside this step: the pipeline's own, then the step's. Absent: none. */
  services?: Service[];
  /**
   * What the step restores before its commands and saves after them (`cache:`): its own list, else
   * the pipeline's; `cache: []` on a step turns the pipeline's off for it. Absent or empty: none.
   */
  cache?: Cache[];
  /** What the step keeps after it ends (`artifacts:`). Absent: nothing. */
  artifacts?: Artifacts;
  /** The JUnit XML files its commands write (`reports:`), read once they end. Absent: none. */
  reports?: Reports;
  /**
   * When a failed attempt is tried again, in a fresh pod on the same workspace (`retry:`): up to
   * `max` more attempts, for the Errors in `on`. Absent: the default, StepInterrupted twice.
   */
  retry?: StepRetry;
  /**
   * `identity`, the step's or else the pipeline's: the deployment's identity whose service account
   * the step's pod runs as (and so whose AWS role EKS Pod Identity gives it). PrepareBuild refuses a
   * name the deployment does not declare, and a build the identity's rules do not allow.
   */
  identity?: string;
  /** 1-based line of the `identity` that named it (the step's or the pipeline's). */
  identityLine?: number;
  /**
   * The step is one combination of a `matrix:` (matrix-steps.ts): the step of the file it came
   * from, and its values (also in `env`). Its siblings run side by side, after what the step of the
   * file would have run after, and a step after it waits for all of them (needs.ts).
   */
  matrix?: MatrixOf;
  /**
   * then the builder's (DEFAULT_BUILDER_IMAGE until PrepareBuild puts the deployment's) and its
   * `commands` are empty.
   */
  build?: StepBuild;
  /** 1-based line of the step in its file, for messages raised after parsing. */
  line?: number;
}

/** Which `matrix:` a step is a combination of. */
export interface MatrixOf {
  /** The name of the step in the file. */
  of: string;
  /** Each variable's value: the axes', then what `include` entries added. */
  values: Record<string, string>;
  /**
   * `fail-fast: false`: a failing combination ends its iteration without stopping anything, and the
   * build fails with its Error once every step has ended (the definition's CombinationFailed). Absent: it stops them.
   */
  failFast?: false;
}

/** A step with a pod: every step but an approval. */
export type PodStep = Step & { image: string; imageRef: ImageReference; commands: string[] };

/** Whether the step runs a pod (an approval step does not). */
export function isPodStep(step: Step): step is PodStep {
  return step.approval === undefined && step.image !== undefined && step.imageRef !== undefined && step.commands !== undefined;
}

/** The least repository permission an approver needs, as GitHub's collaborators API names roles. */
export type ApprovalPermission = 'write' | 'maintain' | 'admin';

/** A step's `approval:` in its normal form. */
export interface Approval {
  /** What the approver is shown. */
  message?: string;
  /** Who may approve; absent: whoever may stop the build (locally, the local user). */
  approvers?: { users: string[]; teams: string[]; permission?: ApprovalPermission };
  /** `self-approval`: whether the person who pushed may approve their own change (default true, as GitHub environments). */
  selfApproval: boolean;
  /** How long the build waits before it ends ApprovalTimedOut (default 24 h, at most 7 days). */
  timeoutSeconds: number;
}

/** A step's `build:` in its normal form (build.ts). */
export interface StepBuild {
  /** The build context, relative to the workspace; `.` for the whole of it. */
  context: string;
  /** The Dockerfile, relative to the workspace (`build.dockerfile` is relative to the context). */
  dockerfile: string;
  /** The stage to build; absent: the last. */
  target?: string;
  /** `--build-arg NAME=value`, as written; they are no place for secrets (the step's `secrets` are build secrets). */
  buildArgs: Record<string, string>;
  /** The references pushed, as written; may be empty only when `push` is false. */
  tags: string[];
  /** false: build only (a pull request's check). */
  push: boolean;
  /**
   * `cache`: the repository the builder reads its layers from and writes them to (one tag per
   * layer); `write` false for a build whose cache must not be trusted (a fork's pull request:
   * PrepareBuild decides). Absent: no cache between builds.
   */
  cache?: { repository: string; write: boolean };
  /** Labels over the OCI ones the runner sets (revision, source). */
  labels: Record<string, string>;
  /** 1-based line of `build.dockerfile` (or of `build` when it is the default), for PrepareBuild's refusals. */
  line?: number;
  /**
   * Per stage of the Dockerfile, the line of each instruction (its FROM first): PrepareBuild's
   * read of the file, so that a failed instruction is named with its line. Absent: not read.
   */
  instructionLines?: number[][];
  /**
   * PrepareBuild's: the key of the build's inputs (build-inputs.ts), the tag that records it, and
   * whether this build may push that tag after it built (not a fork's pull request). Absent: the
   * key could not be made, or the build is never skipped (`notes` in PrepareBuild's log say why).
   */
  inputs?: { key: string; tag: string; write: boolean };
  /**
   * PrepareBuild found `inputs.tag` in its registry: the digest it names. The step tags that image
   * with its tags instead of building (LaunchStep copies the manifest), and reports that digest.
   */
  reuse?: { digest: string };
  /** Why the builder runs though a key was made or asked for (not found, could not tell), for the step's log. */
  builds?: string;
}

/** A step's `retry:`. */
export interface StepRetry {
  /** Attempts after the first; 0 retries nothing. */
  max: number;
  /** The Errors that are retried; only those a fresh pod can fix. */
  on: ErrorName[];
}

export const CachePolicies = { pull: 'pull', push: 'push', pullPush: 'pull-push' } as const;
export type CachePolicy = (typeof CachePolicies)[keyof typeof CachePolicies];

/** One entry of a `cache:` list. */
export interface Cache {
  /** At least one of the two: `files` (hashed by the clone) and a `prefix`. */
  key: { files: string[]; prefix?: string };
  /** Relative to the workspace, never outside it, each once and without a trailing `/`; at least one. */
  paths: string[];
  /** `fallback-keys`: key prefixes tried in order, newest entry first, when the exact key misses. */
  fallbackKeys: string[];
  policy: CachePolicy;
  /** 1-based line of the entry in its file, for messages raised after parsing. */
  line?: number;
  /** 1-based line of `key.files`, for a pattern that turns out to match nothing in the checkout. */
  filesLine?: number;
}

/** A step's `artifacts:`. */
export interface Artifacts {
  /** Files or folders (a trailing `/` allowed), relative to the workspace; at least one. */
  paths: string[];
  /** `expire-in`, in days: how long the store keeps them (the lifecycle classes round it up). */
  expireInDays: number;
  line?: number;
}

/** A step's `reports:`. */
export interface Reports {
  /** Globs of JUnit XML files, relative to the workspace; at least one. */
  junit: string[];
}

/** How the build checks its source out into the workspace (`checkout:`). */
export interface CheckoutSettings {
  /** Commits of history to fetch; 0: all of it. */
  depth: number;
  /** Check out the repository's submodules too (recursively). */
  submodules: boolean;
}

export const DEFAULT_CHECKOUT: CheckoutSettings = { depth: 1, submodules: false };

/** The build's first step when it checks its source out: no pipeline step may take the name. */
export const CHECKOUT_STEP = 'clone';

export interface Pipeline {
  version: 1;
  /** `checkout: false`: the workspace starts empty and there is no `clone` step. */
  checkout: CheckoutSettings | false;
  /** The file it came from, as given by the caller (for messages). */
  file: string;
  steps: Step[];
  /** How long a transient image pull error may last before the step fails (`image-pull-grace`). */
  imagePullGraceSeconds?: number;
  /**
   * The pipeline's own `when`: `paths` or `paths-ignore` only, which every step is subject to (the
   * checkout too: a build none of whose steps runs clones nothing). Absent: no filter.
   */
  when?: PathFilter;
  /** `pull-secrets`: Secrets (kubernetes.io/dockerconfigjson) every pod of the build pulls with. */
  pullSecrets?: string[];
  /** `max-parallel`: the most steps that run at once (the deployment's cap is the default and the ceiling). */
  maxParallel?: number;
  /**
   * `service-start-grace`: how long a service's ports may take to accept connections (services.ts
   * has the default). The services themselves are in each step's `services`.
   */
  serviceStartGraceSeconds?: number;
  /** The pipeline's `pending-timeout`, already in every step that has none of its own; the checkout's too. */
  pendingTimeoutSeconds?: number;
  /** The pipeline's `cache:`, already copied into every step that has no list of its own. */
  cache?: Cache[];
  /**
   * `concurrency:` (concurrency.ts): the group whose newer build stops this one, or false for
   * none. Absent: the default (a pull request's builds are one group per pull request).
   */
  concurrency?: ConcurrencySetting | false;
  /** The pipeline's `identity`, already in every step that names none of its own. */
  identity?: string;
  /** `inputs:` (inputs.ts): what a manual run or a schedule may give the build; absent: none. */
  inputs?: PipelineInput[];
}

export const DEFAULT_STEP_TIMEOUT_SECONDS = 60 * 60;

/**
 * The longest a build may run: the state machine's TimeoutSeconds, past which Step Functions ends
 * the execution TIMED_OUT. A pipeline whose step timeouts add up to more is refused when read.
 */
export const BUILD_TIME_LIMIT_SECONDS = 24 * 60 * 60;
