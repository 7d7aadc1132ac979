/**
 * The JSON that flows between the states of state-machine.asl.yml. Field names here are read by
 * JSONPaths in the definition ($.poll.phase, $.poll.nextPollSeconds, $.result.error, ...), so a
 * rename must be made in both places; test/state-machine-definition.test.ts checks the paths.
 */
import type { TestSummary } from '../contract/test-summary.js';
import type { Step } from '../pipeline/types.js';
import type { BuildRef, ErrorName } from '../contract/index.js';
import type { PodPlacement, PodProgress, PodTimings, ServiceState } from '../kube/index.js';
import type { ImageCheckSummary } from './image-check.js';
import type { LiveLogState } from './live-log.js';
import type { PodUsage, StepS3Usage } from './cost-model.js';

export interface BuildSettings {
  imagePullGraceSeconds: number;
  unschedulableGraceSeconds: number;
  /** How long a workspace volume may fail to attach or mount (transient words) before the step fails. */
  workspaceGraceSeconds?: number;
  /**
   * Mounted at /workspace by every step pod: the build's claim, or (`ephemeral`) an emptyDir of
   * each pod's own; absent: no workspace (executions started before there was one).
   */
  workspace?: { claimName: string } | { ephemeral: true };
  /** The name of the step that checks the source out (`clone`); absent: no checkout step. */
  checkoutStep?: string;
  /** With an ephemeral workspace: the checkout every step pod runs first, as an init container. */
  checkout?: Step;
  /** The deployment's non-root user for every container (see WorkflowSettings.runAsUser). */
  runAsUser?: number;
  /** See DEFAULT_PENDING_WATCH_SECONDS; absent or 0: plain polling. */
  pendingWatchSeconds?: number;
  /** See DEFAULT_RUNNING_WATCH_SECONDS; absent or 0: polling on the schedule while the step runs. */
  runningWatchSeconds?: number;
  /** See DEFAULT_RUNNING_WATCH_UNTIL_SECONDS; absent: the watch lasts the whole run (executions started before the limit). */
  runningWatchUntilSeconds?: number;
  /** Every pod's imagePullSecrets: the pipeline's `pull-secrets` and the deployment's; absent: none. */
  pullSecrets?: string[];
  /** The deployment's node selector and tolerations, under each step's own; absent: none. */
  placement?: PodPlacement;
  /** true: pods go without the do-not-disrupt annotations (the deployment's STEP_DO_NOT_DISRUPT off); absent: protected. */
  disruptible?: true;
  /**
   * true: a step of the build is an approval step, so a step's end (ReportProgress, which passes the
   * settings) reads which of them wait, for the check run's buttons; absent: none is, nothing read.
   */
  approvals?: true;
  /** How long the build may need its objects (its claim's deadline); a pod kept for the steps that need it carries it. */
  deadlineSeconds?: number;
  /**
   * How long a step's services may take to open their ports (`service-start-grace`, default 2 min):
   * their startup probes give up after it. Absent: no step of the build has services.
   */
  serviceStartGraceSeconds?: number;
  /**
   * The cache, when a step of the build has one: the image its containers run (the deployment's
   * CACHE_IMAGE), where its entries go in the store, and the key-file sets the clone hashes, each
   * with where the pipeline names it (for a pattern that matches nothing). Absent: no step caches.
   */
  cache?: { image: string; prefix: string; file: string; keyFiles: CacheKeyFiles[] };
}

/** One set of key files (keyFilesId), and the lines of the pipeline that name it. */
export interface CacheKeyFiles {
  id: string;
  files: string[];
  /** e.g. `.step-runner.yml: line 7 (step "test", cache.key.files)` */
  named: string[];
}

/** PrepareBuild's output, the input of RunSteps. */
export interface PreparedBuild {
  build: BuildRef;
  namespace: string;
  settings: BuildSettings;
  /**
   * The steps that run, one Map iteration each: iteration i is steps[i]. With `needs`, every step
   * comes after the steps it needs, and each says what it needs (Step.needs).
   */
  steps: Step[];
  /** How many iterations RunSteps runs at once (its MaxConcurrencyPath): 1 unless the pipeline uses `needs`. */
  maxParallel: number;
  /** The pipeline file's path in the repository, where a check run's annotation points; absent: executions started before it was kept. */
  pipelineFile?: string;
  /**
   * The steps that run only once the build has failed (`when: {status: [failure]}`): RunAfterFailure's
   * iterations, one at a time; absent: none.
   */
  afterFailure?: Step[];
  /** The pipeline's steps whose `when` does not hold for this build; absent: none. */
  skipped?: SkippedStep[];
  /** What the registries said of each image at PrepareBuild (digests, or why unchecked). */
  images?: ImageCheckSummary[];
  /**
   * Set when no step runs (every one skipped by its `when`, by `when.paths` above all): the
   * definition goes straight to ReportSkipped, which hands it to ReportStatus as `skipped`, the
   * status's description (skipped-build.ts). `steps` is then empty: no checkout, claim or pod.
   */
  skippedBuild?: string;
}

/**
 * PrepareBuild's output when the build has nothing to build, found by the lookups the webhook
 * left to it (DeferredLookup): no pipeline file at the commit, or a head commit asking for no
 * build. The definition ends the execution at once (NotBuilt): no step, no claim, no status.
 */
export interface NotBuilt {
  build: BuildRef;
  notBuilt: string;
}

/** A step left out of the build by its `when`: no iteration, no pod. */
export interface SkippedStep {
  name: string;
  /** Its place among the pipeline file's steps (0-based; the checkout is none of them). */
  index: number;
  /** Why, e.g. `branch feature/x is not main, release/*`. */
  reason: string;
}

/** The image a build step pushed (`steps[].pushed`). */
export interface PushedImage {
  digest: string;
  tags: string[];
}

/** What LaunchStep and every PollStep leave at $.poll: the step's pod and how it was last seen. */
export interface PollState {
  podName: string;
  launchedAt: string;
  /** When the step was first seen running; null while pending. */
  runningSince: string | null;
  phase: 'pending' | 'running' | 'succeeded' | 'failed';
  reason: string;
  message?: string;
  nextPollSeconds: number;
  polls: number;
  /** podProgress() of the pod as last seen: a watch waits for it to change. */
  progress?: PodProgress;
  /**
   * The pod's resourceVersion as last seen: the next poll's watch resumes from it, so a change in
   * between (an eviction whose pod is gone by then) reaches it. Absent: the watch starts afresh.
   */
  resourceVersion?: string;
  error?: ErrorName;
  cause?: string;
  exitCode?: number;
  /** The service whose failure failed the step (ServiceFailed): FinishStep adds its log tail to the Cause. */
  service?: string;
  /** A build step's push, once it succeeded (lib/kube/build-result.ts): the registry's digest and the tags. */
  pushed?: PushedImage;
  /** How the step's services stood at this poll (serviceStates); absent: the step has none. */
  services?: ServiceState[];
  /** How far the log store's copy of the step's log has got (live-log.ts); set by LaunchStep. */
  log?: LiveLogState;
  /**
   * When the presigned URLs in the step's Secret stop working (step-urls.ts): PollStep signs them
   * again before. Absent: the step has no such Secret.
   */
  urls?: { validUntil: string };
  /** When the pod was created, scheduled, started and finished, and its pulls' seconds, as the polls saw them (the step's metrics). */
  timings?: PodTimings;
  /**
   * The node the pod was placed on and what it reserved there, for the build's cost
   * (pod-usage.ts): set by the first poll that sees it on a node, `until` once it has ended.
   */
  placed?: PodOnNode;
}

/** A step pod's node, its instance type (null: unknown), its effective requests (cores, bytes) and when it held them. */
export interface PodOnNode {
  node: string;
  instanceType: string | null;
  cpu: number;
  memoryBytes: number;
  /** The kubelet's acceptance of the pod (status.startTime), before its images were pulled. */
  since: string;
  /** Its last container's end, once the pod has ended. */
  until?: string;
}

/** What WaitForNeeds leaves at $.needs: whether the step may start, and what it still waits for. */
export interface NeedsState {
  met: boolean;
  /** The needed steps seen succeeded so far (kept across waits: a need's pod may go later). */
  done: string[];
  /** The needed steps not seen succeeded yet. */
  waitingFor: string[];
  /** The needed steps seen with a pod that had not succeeded: one gone by the next look has failed. */
  launched?: string[];
  /** Of those, the ones whose pod a retry's may follow (its step's retry covers its going): not failed when gone. */
  retrying?: string[];
  /**
   * Set once the needs can never be met (a step of the build failed: needs-verdict.ts), and kept:
   * the iteration then only waits, without a watch, for the failing Map to stop it.
   */
  unmet?: { step: string; reason: string };
  nextPollSeconds: number;
  /** How many times WaitForNeeds has looked. */
  checks: number;
}

/** One Map iteration's input (ItemSelector), plus $.needs while it waits and $.poll once launched. */
export interface StepInput {
  build: BuildRef;
  namespace: string;
  settings: BuildSettings;
  step: Step;
  index: number;
  needs?: NeedsState;
  poll?: PollState;
  /** RunAfterFailure's iterations: the build's failure, which the step sees in its environment. */
  failure?: { Error: string; Cause?: string };
  /** Which attempt of the step this is (PrepareRetry sets it from `$.result.nextAttempt`); absent: the first (0). */
  attempt?: number;
  /** `$$.Execution.RedriveCount`: 0, or how many times the build's failed steps were re-run; absent: 0. */
  redrive?: number;
}

/** FinishStep's result: the iteration's output, or $.result before StepFailed. */
export interface StepResult {
  step: string;
  status: 'succeeded' | 'failed';
  exitCode: number | null;
  error: ErrorName | null;
  cause: string | null;
  /** The last lines of the step's log. */
  logTail: string;
  /** Where the whole log was stored (s3://... or a file path). */
  log: string | null;
  /** The step's services, in the order they started; absent: it has none. */
  services?: ServiceResult[];
  /**
   * What the step kept of its `artifacts:` once its commands ended (after a failure too), as its
   * pod's manifest lists them; `[]` when it kept none (no path existed, or the pod never got that
   * far). Absent: the step has no artifacts.
   */
  artifacts?: KeptArtifact[];
  /** A build step's push: the digest the registry gave and the tags (`steps[].pushed` in run --json); absent: no push. */
  pushed?: PushedImage;
  /**
   * What its `reports:` said of its tests (`steps[].tests` in run --json), read after its
   * commands ended, succeeded or failed; at most MAX_FAILURES failures listed. Absent: no reports.
   */
  tests?: TestSummary;
  /**
   * Set on a failed attempt that is tried again (the step's `retry`): the next attempt's number,
   * which the definition's RetryStep choice sees and PrepareRetry hands LaunchStep.
   */
  nextAttempt?: number;
  /** What its pod reserved, where and for how long (pod-usage.ts): the build's cost prices it. Absent: never placed on a node. */
  pod?: PodUsage;
  /** What the step wrote to the bucket (its logs, artifacts and record), for the build's cost. */
  s3?: StepS3Usage;
}


/** One artifact a step kept: a file as is, a folder as a tar.gz of it. */
export interface KeptArtifact {
  /** As the pipeline names it (`dist/`, `coverage/lcov.info`). */
  path: string;
  /** Bytes of the object (the tar.gz for a folder). */
  size: number;
  /** Hex sha256 of the object's bytes, computed in the pod before the upload. */
  sha256: string;
  /** `s3://bucket/key`. */
  location: string;
}

/** A service of a step as its result shows it: how it stood at the step's last poll, and its log. */
export interface ServiceResult {
  name: string;
  image: string;
  /** waiting, starting, running or terminated (ServiceState); `not-seen` when no poll saw its container. */
  state: ServiceState['state'] | 'not-seen';
  /** Its last exit code, when it ended (or was restarted); else null. */
  exitCode: number | null;
  /** Times the kubelet restarted it; absent: none. */
  restarts?: number;
  /** The last lines of its log (a few KiB at most; FinishStep's own output only, not the Map's). */
  logTail: string;
  /** Where its whole log was stored (beside the step's: serviceLogName), or null when it logged nothing. */
  log: string | null;
}

export interface CleanupResult {
  deletedPods: number;
  deletedClaims: number;
  deletedSecrets: number;
  /**
   * A failed build whose claim was kept: the steps a re-run runs (rerun-plan.ts; RerunSteps puts
   * them in $.steps), and for how long the claim is kept. Absent: nothing to re-run.
   */
  rerun?: { steps: Step[]; keptSeconds: number };
}

/** The build's workspace claim, when its workspace is one (mode `volume`). */
export function buildClaimName(settings: BuildSettings): string | undefined {
  return settings.workspace && 'claimName' in settings.workspace ? settings.workspace.claimName : undefined;
}

/**
 * A step of the build as the views list it: one that runs (its Map iteration), one that runs only
 * after a failure (RunAfterFailure's iteration, numbered after RunSteps' in the local history), or
 * one skipped by its `when`.
 */
export type ListedStep =
  | { name: string; iteration: number; afterFailure?: true; skipped?: undefined }
  | { name: string; iteration?: undefined; afterFailure?: undefined; skipped: SkippedStep };

/**
 * Every step of the build in the pipeline file's order (the checkout first): the ones that run,
 * each with its Map iteration (iteration i is `steps[i]`), the skipped ones between them, and last
 * the ones that run only after a failure (iteration `steps.length + i` is `afterFailure[i]`).
 */
export function listedSteps(prepared: Pick<PreparedBuild, 'steps' | 'skipped' | 'settings' | 'afterFailure'>): ListedStep[] {
  const skipped = new Map((prepared.skipped ?? []).map((s) => [s.index, s]));
  const checkout = prepared.settings?.checkoutStep !== undefined && prepared.steps[0]?.name === prepared.settings.checkoutStep ? 1 : 0;
  const listed: ListedStep[] = prepared.steps.slice(0, checkout).map((step, iteration) => ({ name: step.name, iteration }));
  let iteration = checkout;
  let placed = 0;
  for (let index = 0; iteration < prepared.steps.length || placed < skipped.size; index++) {
    const skip = skipped.get(index);
    if (skip) {
      listed.push({ name: skip.name, skipped: skip });
      placed++;
    } else if (iteration < prepared.steps.length) listed.push({ name: prepared.steps[iteration]!.name, iteration: iteration++ });
  }
  (prepared.afterFailure ?? []).forEach((step, i) => listed.push({ name: step.name, iteration: prepared.steps.length + i, afterFailure: true }));
  return listed;
}
