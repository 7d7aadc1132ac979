import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import type { ErrorName } from '../contract/index.js';

/** Labels that tie a pod to the runner, its build and its step (cleanup and adoption select on them). */
export const Labels = {
  managedBy: 'app.kubernetes.io/managed-by',
  build: 'step-runner.dev/build',
  step: 'step-runner.dev/step',
  /**
   * The build's workspace claim, on every pod that mounts it: what the pods' required pod affinity
   * selects on to keep them on one node (pod-manifest.ts workspaceAffinity). A claim name is a
   * DNS-1123 label of at most 63 characters, so it is a valid label value as it is.
   */
  workspace: 'step-runner.dev/workspace',
  /**
   * On a combination of a step's `matrix:`, the step of the file it is one of (a DNS-1123 label, as
   * every step's name): `kubectl get pods -l step-runner.dev/matrix=test` lists a matrix's pods.
   */
  matrix: 'step-runner.dev/matrix',
  /**
   * The build's repository (`owner/name` made a label value: `owner-name`), beside the build and
   * the step: what OpenCost and Kubecost aggregate a pod's cost by (docs/cost.md), the exact name
   * in the annotation of the same key's `-name`.
   */
  repository: 'step-runner.dev/repository',
} as const;
export const MANAGED_BY = 'serverless-step-runner';

/** The exact build id and step name, which labels can only carry sanitised (see pod-name.ts). */
export const Annotations = {
  build: 'step-runner.dev/build-id',
  step: 'step-runner.dev/step-name',
  repository: 'step-runner.dev/repository-name',
  /** Which attempt of its step the pod is (1, 2, ...), on a retry's pod only. */
  attempt: 'step-runner.dev/attempt',
  /**
   * How many more attempts the step may get after this pod's (its `retry.max` left): a step waiting
   * for it does not take its failure, or its going, for the step's, while one may follow.
   */
  attemptsLeft: 'step-runner.dev/attempts-left',
  /** The Errors its step's retry covers, comma-separated, beside attemptsLeft. */
  retryOn: 'step-runner.dev/retry-on',
  /**
   * On a succeeded pod that other steps need, once its FinishStep has stored what the step left
   * (its log, the clone's cache key hashes): when, as ISO time. The steps that need it start on
   * this, not on the pod's phase (step-finished.ts).
   */
  finished: 'step-runner.dev/finished',
  /**
   * On a build step's pod (`build:`): where each instruction of its Dockerfile is, as JSON
   * (build-result.ts DockerfileLines), `{}` when PrepareBuild could not read the file. The
   * classifier reads the builder's termination message on such a pod only.
   */
  dockerfile: 'step-runner.dev/dockerfile',
} as const;

/**
 * On a build's claim and Secret: how long the build may need them (its longest possible run). The
 * orphan sweep deletes them past this and its margin, as it deletes a pod past its deadline.
 */
export const BUILD_DEADLINE_ANNOTATION = 'step-runner.dev/active-deadline-seconds';

/** The single container of a step pod. */
export const STEP_CONTAINER = 'step';

/** What one poll read from the cluster: the step's pod (null once it is gone) and its events. */
export interface Observation {
  pod: V1Pod | null;
  events: CoreV1Event[];
  /**
   * The workspace claim's events (the provisioner reports on the claim, not the pod); read only
   * while the pod waits for a node, since provisioning is over once it has one.
   */
  claimEvents?: CoreV1Event[];
  /** When the poll read it; grace periods are measured against this, never the wall clock. */
  observedAt: Date;
}

/** Which step an observation is about, for the Cause. */
export interface StepIdentity {
  step: string;
  image: string;
  /** The build's checkout (`clone`) step: a non-zero exit is CheckoutFailed, not StepFailed. */
  checkout?: boolean;
}

export interface ClassifyOptions {
  /** Transient pull errors (rate limits, timeouts, DNS) may last this long. Default 60 s. */
  imagePullGraceSeconds: number;
  /** A pod the scheduler cannot place may wait this long (cluster autoscaler). Default 120 s. */
  unschedulableGraceSeconds: number;
  /**
   * Transient workspace failures (the previous step's node still detaching the volume, attach or
   * mount timeouts) may last this long from the first one. Default 120 s: EBS usually detaches
   * within a minute of the previous pod's end.
   */
  workspaceGraceSeconds: number;
  /**
   * How long a service may run without opening its ports (its startup probe failing) before the
   * step fails with ServiceFailed, counted from its first start. Default 120 s.
   */
  serviceStartGraceSeconds: number;
  /**
   * How long the kubelet may fail to make the pod's sandbox (FailedCreatePodSandBox: the VPC CNI out
   * of IP addresses, a container runtime that stopped answering) before the pod counts as lost.
   * Default 120 s: the CNI frees the addresses of pods that ended within a minute or two.
   */
  sandboxGraceSeconds: number;
  /**
   * How long the container runtime may fail to create a container in time (CreateContainerError
   * "context deadline exceeded", containerd's "name … is reserved" while it still works on the call
   * that timed out) before the step fails with ContainerRuntimeTimeout. Default 300 s: the kubelet
   * gives each CRI call 2 min (--runtime-request-timeout), so this lets it retry after one that
   * timed out, and a runtime under load catch up.
   */
  containerRuntimeGraceSeconds: number;
  /**
   * The step's `pending-timeout`, when the pipeline sets one: how long its pod may go without any
   * event or status change before it is PodStalled, and the most a capacity wait may last (counted
   * from the pod's creation) before it is Unschedulable. Absent: DEFAULT_PENDING_TIMEOUT_SECONDS for
   * the first, and only the step's timeout for the second (classify-stall.ts).
   */
  pendingTimeoutSeconds?: number;
}

/** `pending-timeout` when the pipeline says none: 5 minutes without any word about the pod. */
export const DEFAULT_PENDING_TIMEOUT_SECONDS = 5 * 60;

export const DEFAULT_CLASSIFY_OPTIONS: ClassifyOptions = {
  imagePullGraceSeconds: 60,
  unschedulableGraceSeconds: 120,
  workspaceGraceSeconds: 120,
  serviceStartGraceSeconds: 120,
  sandboxGraceSeconds: 120,
  containerRuntimeGraceSeconds: 300,
};

export const StepPhases = {
  Pending: 'pending',
  Running: 'running',
  Succeeded: 'succeeded',
  Failed: 'failed',
} as const;

/**
 * The classified state of a step after one poll. `reason` is a short machine word (e.g.
 * "ImagePullBackOff", "ContainerCreating") that the poll schedule and the console use.
 */
export type StepStatus =
  | { phase: typeof StepPhases.Pending; reason: string; message?: string }
  | { phase: typeof StepPhases.Running; reason: string; message?: string }
  | {
      phase: typeof StepPhases.Succeeded;
      reason: string;
      exitCode: 0;
      /** A build step's push (`steps[].pushed` in run --json): the digest the registry gave, and the tags. */
      pushed?: { digest: string; tags: string[] };
    }
  | {
      phase: typeof StepPhases.Failed;
      reason: string;
      error: ErrorName;
      /** One readable paragraph: step, image, reason, and the kubelet's or registry's own words. */
      cause: string;
      exitCode?: number;
      /** The service (sidecar container) that failed: FinishStep adds its log's last lines to the Cause. */
      service?: string;
    };
