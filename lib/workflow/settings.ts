/**
 * The settings a deployment gives every build, as values: lib/lambda reads them from the
 * function's environment, lib/local from the command line. Nothing here reads process.env.
 */
import { DEFAULT_CACHE_IMAGE, DEFAULT_CLASSIFY_OPTIONS, type WorkspaceClaimSettings } from '../kube/index.js';
import type { Toleration } from '../pipeline/index.js';
import type { Identity } from './identities.js';

export interface WorkflowSettings {
  /** Where step pods go unless the execution input names another namespace. */
  namespace: string;
  imagePullGraceSeconds: number;
  unschedulableGraceSeconds: number;
  /** How long one PollStep may watch a pending pod for its next change (0: plain polling only). */
  pendingWatchSeconds: number;
  /** How long one PollStep may watch a running pod for its end (0: polling on the schedule). */
  runningWatchSeconds: number;
  /** No running watch once a step has run this long: the schedule after (0: none at all). */
  runningWatchUntilSeconds: number;
  /** The image of the `clone` step: it needs git and a POSIX shell. */
  cloneImage: string;
  /** Where the workspace lives: see WorkspaceModes. */
  workspaceMode: WorkspaceMode;
  /** Every step's containers run as this non-root user (Pod Security `restricted`); absent: the images' users. */
  runAsUser?: number;
  /** The build's workspace claim (mode `volume`): one per build, shared by every step pod. */
  workspace: WorkspaceClaimSettings;
  /**
   * How long a failed build's claim is kept for a re-run of its failed steps (Redrive), before the
   * orphan sweep deletes it (FAILED_WORKSPACE_KEEP_SECONDS; 0: deleted at once, no re-run).
   */
  failedWorkspaceKeepSeconds: number;
  /** PrepareBuild asks each image's registry whether the image exists (IMAGE_CHECK). */
  imageCheck: boolean;
  /**
   * Secrets (kubernetes.io/dockerconfigjson) every step pod pulls with, after the pipeline's
   * `pull-secrets` (STEP_PULL_SECRETS); absent or empty: the pipeline's, else the service account's.
   */
  pullSecrets?: string[];
  /** Node labels every step pod needs; a step's `node-selector` overrides a key (STEP_NODE_SELECTOR). */
  nodeSelector?: Record<string, string>;
  /** Taints every step pod tolerates; a step's `tolerations` come after these (STEP_TOLERATIONS). */
  tolerations?: Toleration[];
  /**
   * Every step pod carries `karpenter.sh/do-not-disrupt: "true"` and
   * `cluster-autoscaler.kubernetes.io/safe-to-evict: "false"` (STEP_DO_NOT_DISRUPT, default on), so
   * that consolidation and scale-down leave its node until it ends (lib/kube/pod-manifest.ts
   * DO_NOT_DISRUPT_ANNOTATIONS). false: nodes may be taken from under running steps.
   */
  doNotDisrupt: boolean;
  /** The most steps of one build that run at once (MAX_PARALLEL_STEPS): a pipeline's `max-parallel` default and ceiling. */
  maxParallelSteps: number;
  /**
   * The image that restores and saves a step's cache (CACHE_IMAGE): it needs sh, curl, tar, gzip
   * and sha256sum, which a step's own image may lack.
   */
  cacheImage: string;
  /**
   * The image a build step's pod runs (`builder-image`, BUILDER_IMAGE): buildah and a POSIX shell
   * (lib/kube/build-container.ts). Absent: DEFAULT_BUILDER_IMAGE.
   */
  builderImage?: string;
  /** Where the cache's entries go in the deployment's bucket (CACHE_PREFIX); its lifecycle rule expires them. */
  cachePrefix: string;
  /**
   * The identities a step may ask for (`identity: NAME`), with the rules of which builds may use
   * each (STEP_IDENTITIES; locally `run --identity`). Absent or empty: a step naming one is refused.
   */
  identities?: Identity[];
}

/**
 * `volume`: one claim per build, shared by its pods, checked out once by the `clone` step.
 * `ephemeral`: no claim; each pod has an emptyDir and checks the source out itself, in an init
 * container, for clusters without dynamic provisioning (Fargate). Nothing a step writes reaches
 * the next one, and every step pays for a clone.
 */
export const WorkspaceModes = { volume: 'volume', ephemeral: 'ephemeral' } as const;
export type WorkspaceMode = (typeof WorkspaceModes)[keyof typeof WorkspaceModes];

/** A pinned, well-known git image (Alpine with git; its shell runs the checkout script). */
export const DEFAULT_CLONE_IMAGE = 'alpine/git:v2.54.0';

/** The cache containers' image unless the deployment names one (lib/kube/cache-containers.ts says why that one). */
export { DEFAULT_CACHE_IMAGE };

export const DEFAULT_CACHE_PREFIX = 'cache/';

/**
 * What a stock EKS cluster with the EBS CSI driver provisions: its `gp2` class binds when the
 * first pod is scheduled, so the volume is created in that pod's zone.
 */
export const DEFAULT_WORKSPACE: WorkspaceClaimSettings = { storageClass: 'gp2', size: '10Gi', accessMode: 'ReadWriteOnce' };

/**
 * While a pod is pending, a PollStep that holds a watch for up to this long answers the moment
 * the kubelet reports a change (a pull failure above all) and costs three state transitions per
 * watch instead of per second. Bounded well below the Lambda timeout.
 */
export const DEFAULT_PENDING_WATCH_SECONDS = 20;

/**
 * While a step runs, a PollStep holds a watch on its pod for up to this long, so the state machine
 * moves on within about a second of the container's exit instead of at the next scheduled poll
 * (up to a minute later). A longer watch costs fewer transitions and history events (one poll,
 * two transitions and 7 events, per watch), the same Lambda time; it must end well inside the function's timeout
 * (serverless.yml's pollStep, 300 s). bench/README.md compares the choices.
 */
export const DEFAULT_RUNNING_WATCH_SECONDS = 240;

/**
 * A step is watched for its first 15 minutes, then polled on the schedule (a minute apart): an
 * hour of watching holds a Lambda for the hour, which costs more than the schedule's polls
 * (bench/README.md). A step of up to 15 minutes is seen to end within a second; a longer one
 * within the minute it was before there was a watch, and its live log is read once a poll.
 */
export const DEFAULT_RUNNING_WATCH_UNTIL_SECONDS = 900;

/**
 * Steps whose needs are met run at the same time, up to this many per build unless the pipeline's
 * `max-parallel` asks for fewer: each is a pod the cluster must find room for, beside the other
 * builds'.
 */
export const DEFAULT_MAX_PARALLEL_STEPS = 10;

/**
 * A day: a failed build is looked at and re-run the same day, or not at all; a kept 10 GiB gp2
 * volume costs about $0.03 for it.
 */
export const DEFAULT_FAILED_WORKSPACE_KEEP_SECONDS = 86_400;

/** The documented defaults for what a deployment leaves unset; the namespace has none. */
export function workflowSettings(given: Pick<WorkflowSettings, 'namespace'> & Partial<WorkflowSettings>): WorkflowSettings {
  return {
    imagePullGraceSeconds: DEFAULT_CLASSIFY_OPTIONS.imagePullGraceSeconds,
    unschedulableGraceSeconds: DEFAULT_CLASSIFY_OPTIONS.unschedulableGraceSeconds,
    pendingWatchSeconds: DEFAULT_PENDING_WATCH_SECONDS,
    runningWatchSeconds: DEFAULT_RUNNING_WATCH_SECONDS,
    runningWatchUntilSeconds: DEFAULT_RUNNING_WATCH_UNTIL_SECONDS,
    cloneImage: DEFAULT_CLONE_IMAGE,
    workspaceMode: WorkspaceModes.volume,
    workspace: DEFAULT_WORKSPACE,
    failedWorkspaceKeepSeconds: DEFAULT_FAILED_WORKSPACE_KEEP_SECONDS,
    imageCheck: true,
    doNotDisrupt: true,
    maxParallelSteps: DEFAULT_MAX_PARALLEL_STEPS,
    cacheImage: DEFAULT_CACHE_IMAGE,
    cachePrefix: DEFAULT_CACHE_PREFIX,
    ...given,
  };
}
