/**
 * The JSON that flows between the states of state-machine.asl.yml. Field names here are read by
 * JSONPaths in the definition ($.poll.phase, $.poll.nextPollSeconds, $.result.error, ...), so a
 * rename must be made in both places; test/state-machine-definition.test.ts checks the paths.
 */
import type { Step } from '../pipeline/types.js';
import type { BuildRef, ErrorName } from '../contract/index.js';
import type { PodPlacement, PodProgress } from '../kube/index.js';
import type { ImageCheckSummary } from './image-check.js';
import type { LiveLogState } from './live-log.js';

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
  /** Every pod's imagePullSecrets: the pipeline's `pull-secrets` and the deployment's; absent: none. */
  pullSecrets?: string[];
  /** The deployment's node selector and tolerations, under each step's own; absent: none. */
  placement?: PodPlacement;
}

/** PrepareBuild's output, the input of RunSteps. */
export interface PreparedBuild {
  build: BuildRef;
  namespace: string;
  settings: BuildSettings;
  /** The steps that run, one Map iteration each: iteration i is steps[i]. */
  steps: Step[];
  /** The pipeline's steps whose `when` does not hold for this build; absent: none. */
  skipped?: SkippedStep[];
  /** What the registries said of each image at PrepareBuild (digests, or why unchecked). */
  images?: ImageCheckSummary[];
}

/** A step left out of the build by its `when`: no iteration, no pod. */
export interface SkippedStep {
  name: string;
  /** Its place among the pipeline file's steps (0-based; the checkout is none of them). */
  index: number;
  /** Why, e.g. `branch feature/x is not main, release/*`. */
  reason: string;
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
  error?: ErrorName;
  cause?: string;
  exitCode?: number;
  /** How far the log store's copy of the step's log has got (live-log.ts); set by LaunchStep. */
  log?: LiveLogState;
}

/** One Map iteration's input (ItemSelector), plus $.poll once launched. */
export interface StepInput {
  build: BuildRef;
  namespace: string;
  settings: BuildSettings;
  step: Step;
  index: number;
  poll?: PollState;
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
}

export interface CleanupResult {
  deletedPods: number;
  deletedClaims: number;
  deletedSecrets: number;
}

/** The build's workspace claim, when its workspace is one (mode `volume`). */
export function buildClaimName(settings: BuildSettings): string | undefined {
  return settings.workspace && 'claimName' in settings.workspace ? settings.workspace.claimName : undefined;
}

/** A step of the build as the views list it: one that runs (its Map iteration) or one skipped by its `when`. */
export type ListedStep = { name: string; iteration: number; skipped?: undefined } | { name: string; iteration?: undefined; skipped: SkippedStep };

/**
 * Every step of the build in the pipeline file's order (the checkout first): the ones that run,
 * each with its Map iteration (iteration i is `steps[i]`), and the skipped ones between them.
 */
export function listedSteps(prepared: Pick<PreparedBuild, 'steps' | 'skipped' | 'settings'>): ListedStep[] {
  const skipped = new Map((prepared.skipped ?? []).map((s) => [s.index, s]));
  const checkout = prepared.settings?.checkoutStep !== undefined && prepared.steps[0]?.name === prepared.settings.checkoutStep ? 1 : 0;
  const listed: ListedStep[] = prepared.steps.slice(0, checkout).map((step, iteration) => ({ name: step.name, iteration }));
  let iteration = checkout;
  const total = prepared.steps.length - checkout + skipped.size;
  for (let index = 0; index < total; index++) {
    const skip = skipped.get(index);
    if (skip) listed.push({ name: skip.name, skipped: skip });
    else if (iteration < prepared.steps.length) listed.push({ name: prepared.steps[iteration]!.name, iteration: iteration++ });
  }
  return listed;
}
