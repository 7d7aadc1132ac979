import type { V1Pod } from '@kubernetes/client-node';
import type { KubeClients, StepCluster, WatchedPod } from '../kube/index.js';
import type { ImageChecker } from '../registry/index.js';
import type { LookupSources } from '../forge/deferred-lookup.js';
import type { StepLogStore } from './step-log-store.js';
import type { CacheStore } from './cache-store.js';
import type { WorkflowSettings } from './settings.js';
import type { SupersedingDeps } from './superseding.js';
import type { TaskLog } from './task-log.js';
import type { IdentityCredentials } from '../contract/aws-credentials.js';
import type { AwsSecretReaderFor } from './aws-secrets.js';
import type { SourceFiles } from './build-bases.js';
import type { ReuseRegistry } from './build-reuse.js';
import type { BuildInput } from '../contract/index.js';
import type { MetricsSink } from './metric-records.js';
import type { Prices } from './cost-model.js';
import type { BuildTraceExport } from './trace-export.js';

/**
 * The I/O a task needs, injected so the same task code runs on Lambda (lib/lambda), locally
 * (lib/local) and in tests: the caller chooses the cluster connection and the log store.
 */
export interface TaskDeps {
  /**
   * What the tasks ask of the cluster (lib/kube/step-cluster.ts): kubeStepCluster over HTTP on
   * Lambda and locally, fakeStepCluster (lib/kube/fake-cluster.ts) in the workflow's unit tests.
   */
  cluster: StepCluster;
  /**
   * Watches one pod until `until(pod)` holds or the time is up (lib/kube/watch-pod.ts); resolves
   * undefined when the watch saw nothing. Without it, PollStep polls plainly.
   */
  watchPod?(
    namespace: string,
    podName: string,
    until: (pod: V1Pod | null) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
    fromResourceVersion?: string,
  ): Promise<WatchedPod | undefined>;
  /**
   * Watches the pods a label selector picks until `until(pods)` holds or the time is up; resolves
   * undefined when no watch could be opened. Without it, WaitForNeeds looks every few seconds.
   */
  watchPods?: KubeClients['watchPods'];
  /**
   * Follows a container's log while PollStep watches the running pod, so the log store keeps it as
   * it grows (live-log.ts); with readLogAfter, FinishStep adds the rest. Without them, a step's log
   * is read once, when it ends.
   */
  followLog?: KubeClients['followLog'];
  readLogAfter?: KubeClients['readLogAfter'];
  /**
   * Asks each image's registry whether it exists (lib/registry), never throwing. Without it,
   * PrepareBuild leaves every image to the kubelet.
   */
  checkImages?: ImageChecker;
  /**
   * The build's files at its commit, for PrepareBuild's read of each build step's Dockerfile
   * (build-bases.ts): locally the work tree's snapshot. Without it (or when it answers undefined
   * for a build), the base images are left to the builder, and PrepareBuild says so.
   */
  sourceFiles?(input: BuildInput): SourceFiles | undefined;
  /**
   * How a build step's inputs tag is looked up and its image tagged again (build-reuse.ts); default:
   * the registries' HTTP API (lib/registry/manifest-copy.ts). Tests hand in their own.
   */
  reuseRegistry?: ReuseRegistry;
  logs: StepLogStore;
  /**
   * Where the steps' cache entries are kept (cache-store.ts): S3 on AWS, the local stack's own S3
   * locally. Without it, no step restores or saves a cache, and LaunchStep says so.
   */
  cache?: CacheStore;
  /**
   * Where PrepareBuild records its concurrency group's current build, and how it stops the older
   * one (superseding.ts). Without it, no build is superseded, and PrepareBuild says so.
   */
  superseding?: SupersedingDeps;
  now(): Date;
  log: TaskLog;
  /**
   * Where PrepareBuild asks GitHub what the webhook left to the build (DeferredLookup), when the
   * handler is given no per-invocation sources (lib/lambda builds them from the invocation's
   * credentials). Without either, such a build fails as GitHubUnavailable.
   */
  lookup?: LookupSources;
  /**
   * Credentials of a step's identity, as EKS Pod Identity gives its pod: what LaunchStep reads the
   * step's AWS secrets with (aws-secrets.ts). lib/lambda: EKS Auth's AssumeRoleForPodIdentity;
   * locally, the embedded cluster's Pod Identity agent. Without it, a step with AWS secrets fails
   * SecretUnavailable, saying so.
   */
  identityCredentials?: IdentityCredentials;
  /** What reads an AWS secret with those credentials; default: the AWS SDK (aws-secret-reader.ts). */
  awsSecretReader?: AwsSecretReaderFor;
  /** Where a step's and a build's metric records go (metrics-writer.ts): EMF on Lambda; without it, none is made. */
  metrics?: MetricsSink;
  /**
   * The deployment's price table (cost-model.ts): what a step's StepCost prices its pod at, as the
   * build's cost does. lib/lambda: COST_PRICES over the defaults. Without it, no StepCost.
   */
  prices?: Prices;
  /**
   * Sends each build that ends as a trace (trace-export.ts): ReportStatus's, on AWS from the
   * deployment's OTLP settings, locally from `--otlp-endpoint`. Without it, no trace.
   */
  exportTrace?: BuildTraceExport;
  /**
   * SendTaskSuccess on a task token of the build's execution: how FinishApproval lets the steps
   * waiting for an approval go on (approval-release.ts). lib/lambda: the Step Functions API;
   * locally, the executor's task tokens. Without it, a step waiting for an approval waits for ever,
   * so AwaitApprovedNeeds refuses to start.
   */
  callbacks?: TaskCallbacks;
}

/** The callback pattern's answer, as the Step Functions API names it. */
export interface TaskCallbacks {
  /** Rejects with an error named TaskTimedOut when the task is closed already (answered, or its execution ended). */
  sendTaskSuccess(taskToken: string, output: string): Promise<void>;
}

export type { TaskLog } from './task-log.js';

/** Everything a task handler is built from: the deployment's settings and its I/O. */
export interface TaskRuntime {
  settings: WorkflowSettings;
  deps: TaskDeps;
}
