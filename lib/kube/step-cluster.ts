import type { CoreV1Api, V1PersistentVolumeClaim, V1Pod, V1Secret } from '@kubernetes/client-node';
import type { SecretEnv } from '../pipeline/types.js';
import type { UrlSigning } from './cache-containers.js';
import { cacheSecretSigning, ensureCacheSecret, replaceCacheSecretUrls } from './cache-secret.js';
import { ensureStepAwsSecret } from './step-aws-secret.js';
import { removeSchedulingGate } from './scheduling-gate.js';
import { requestPodIdentityToken, type BoundPod } from './pod-identity-token.js';
import { ensureRegistryLoginSecret } from './registry-login-secret.js';
import { BuildObjectKinds, deleteBuildObjects, deleteBuildPods, deleteStepPod } from './cleanup.js';
import { ensureGitCredentials, gitTokenExpiry, renewGitCredentials } from './git-credentials.js';
import { listBuildSecrets, markApprovalGiven, readApprovalToken, storeApprovalToken } from './approval-token.js';
import { launchStepPod, type LaunchResult } from './launch.js';
import { readWholeStepLog } from './logs.js';
import { observeStep, type ObserveOptions } from './observe.js';
import { deleteOrphanedBuildObjects, deleteOrphanedPods } from './orphans.js';
import { readSecretValues } from './secret-values.js';
import { markStepFinished } from './step-finished.js';
import type { Observation } from './types.js';
import { ensureWorkspaceClaim, workspaceNode } from './workspace.js';
import { nodeInstanceType } from './node-instance-type.js';
import { keepBuildObjects, recordStepSucceeded, type KeptBuildObjects } from './workspace-record.js';

/** What the runner makes once per build besides its pods (BuildObjectKinds). */
export type BuildObjectKindName = keyof typeof BuildObjectKinds;

/**
 * Everything lib/workflow's tasks ask of a cluster, one request of theirs a method: the step's pod
 * (made or adopted, observed, its log read, deleted), the build's workspace claim and its Secrets
 * (clone credentials, a step's cache URLs), and the sweeps that end a build or its orphans. Two
 * implementations: kubeStepCluster, the client-node one over HTTP (what runs on Lambda and
 * locally, tested against the embedded cluster), and fakeStepCluster (fake-cluster.ts), an
 * in-memory one for the workflow's unit tests. The watches and the log follow stay functions of
 * TaskDeps (clients.ts): they are already narrow, and each caller bounds them with its own signal.
 *
 * A method's failures are the adapter's: KubernetesUnavailable once retries are spent, the named
 * refusals (PodConfigError, WorkspaceUnavailable) where the API refuses what is asked.
 */
export interface StepCluster {
  /** LaunchStep: creates the step's pod, or adopts the one an earlier LaunchStep of the same step made (launch.ts). */
  launchPod(manifest: V1Pod): Promise<LaunchResult>;
  /** PollStep: the pod (null once gone) and the events about it, and its claim's while it waits for its volume (observe.ts). */
  observePod(namespace: string, podName: string, options?: Pick<ObserveOptions, 'now' | 'knownPod' | 'claimName'>): Promise<Observation>;
  /** WaitForNeeds: the pods a label selector picks, as they stand. */
  listPods(namespace: string, labelSelector: string): Promise<V1Pod[]>;
  /**
   * FinishStep: a container's whole log (the step's when none is named), or with `previous` its run
   * before the kubelet restarted it; empty when there is none to read (logs.ts).
   */
  readLog(namespace: string, podName: string, container?: string, options?: { previous?: boolean }): Promise<string>;
  /** LaunchStep: removes the runner's scheduling gate from the step's pod, once what it reads exists (scheduling-gate.ts); false when the pod is gone. */
  ungatePod(namespace: string, podName: string): Promise<boolean>;
  /**
   * LaunchStep: a token of the identity's service account bound to the step's (gated) pod, for EKS
   * Pod Identity (pod-identity-token.ts); the API server's refusal passed on.
   */
  podIdentityToken(namespace: string, serviceAccount: string, pod: BoundPod): Promise<string>;
  /** FinishStep: deletes the step's pod; false when it was already gone. */
  deletePod(namespace: string, podName: string): Promise<boolean>;
  /** FinishStep: marks a kept pod's step ended for the steps that need it, once its results are stored (step-finished.ts); false when it is gone. */
  markStepFinished(namespace: string, podName: string, now: Date): Promise<boolean>;
  /** CleanupBuild: deletes every pod of the build; how many. */
  deleteBuildPods(namespace: string, buildId: string): Promise<number>;
  /** CleanupBuild: deletes the build's claims or Secrets; how many. */
  deleteBuildObjects(kind: BuildObjectKindName, namespace: string, buildId: string): Promise<number>;
  /** CleanupOrphans: deletes the runner's pods long past their build's deadline; their names (orphans.ts). */
  deleteOrphanedPods(namespace: string, options: { now: () => Date; marginSeconds: number }): Promise<string[]>;
  /** CleanupOrphans: the same for claims or Secrets. */
  deleteOrphanedBuildObjects(kind: BuildObjectKindName, namespace: string, options: { now: () => Date; marginSeconds: number }): Promise<string[]>;

  /** PollStep, FinishStep: the values of the Secret keys a step references, to mask them (secret-values.ts). */
  readSecretValues(namespace: string, refs: readonly SecretEnv[]): Promise<string[]>;
  /** PrepareBuild: stores the clone's credentials, or keeps the Secret a retried PrepareBuild stored; its name (git-credentials.ts). */
  ensureGitCredentials(manifest: V1Secret): Promise<string>;
  /** LaunchStep: when the clone's token expires (ms since the epoch); undefined for one that does not, or no Secret. */
  gitTokenExpiry(namespace: string, secretName: string): Promise<number | undefined>;
  /** LaunchStep: puts a renewed token into the clone's Secret. */
  renewGitCredentials(namespace: string, secretName: string, token: { token: string; expiresAt?: string | undefined }): Promise<void>;
  /** AwaitApproval: keeps an approval step's task token in its Secret (approval-token.ts); its name. */
  storeApprovalToken(manifest: V1Secret): Promise<string>;
  /** Approve or reject: the token a waiting approval step stored; undefined when there is none. */
  readApprovalToken(namespace: string, secretName: string): Promise<string | undefined>;
  /** FinishApproval: marks an approval step's Secret given and drops its token (approval-token.ts); false when it is gone. */
  markApprovalGiven(namespace: string, secretName: string, now: Date): Promise<boolean>;
  /** FinishApproval, AwaitApprovedNeeds: the build's Secrets, the approvals' and the steps' waiting for them among them. */
  listBuildSecrets(namespace: string, buildId: string): Promise<V1Secret[]>;
  /** LaunchStep: the step's cache Secret, made or its URLs replaced; its name (cache-secret.ts). */
  ensureCacheSecret(manifest: V1Secret): Promise<string>;
  /** LaunchStep: the Secret of the step's AWS secrets, made or its values replaced; its name (step-aws-secret.ts). */
  ensureStepAwsSecret(manifest: V1Secret): Promise<string>;
  /** LaunchStep: a build step's registry login Secret, made or replaced; its name (registry-login-secret.ts). */
  ensureRegistryLoginSecret(manifest: V1Secret): Promise<string>;
  /** PollStep: how the step's cache URLs are signed; undefined once the Secret is gone. */
  cacheSecretSigning(namespace: string, secretName: string): Promise<Record<string, UrlSigning> | undefined>;
  /** PollStep: puts freshly signed URLs into the step's cache Secret; false when it is gone. */
  replaceCacheSecretUrls(namespace: string, secretName: string, urls: Record<string, string>): Promise<boolean>;

  /** PrepareBuild: creates the build's workspace claim, or adopts the one a retried PrepareBuild made (workspace.ts). */
  ensureWorkspaceClaim(manifest: V1PersistentVolumeClaim): Promise<{ claim: V1PersistentVolumeClaim; adopted: boolean }>;
  /** LaunchStep: the node the build's volume went to with its first pod; undefined before that. */
  workspaceNode(namespace: string, claimName: string): Promise<string | undefined>;
  /** PollStep: the instance type of the node a step's pod runs on, for its cost; null: unknown or not readable (node-instance-type.ts). */
  nodeInstanceType(nodeName: string): Promise<string | null>;
  /** FinishStep: marks the step succeeded on the build's claim, for a re-run (workspace-record.ts). */
  recordStepSucceeded(namespace: string, claimName: string, step: string, now: Date): Promise<void>;
  /** CleanupBuild: keeps a failed build's claim and Secrets `keep.seconds` more. */
  keepBuildObjects(namespace: string, buildId: string, claimName: string, keep: { now: Date; seconds: number }): Promise<KeptBuildObjects>;
}

/**
 * The client-node StepCluster: each method is the lib/kube operation of the same name, with its
 * retries and named errors, on the API client `kube` answers (asked on every call: an EKS
 * connection renews its token, kubeClients in clients.ts).
 */
export function kubeStepCluster(kube: () => Promise<CoreV1Api>): StepCluster {
  return {
    launchPod: async (manifest) => launchStepPod(await kube(), manifest),
    observePod: async (namespace, podName, options) => observeStep(await kube(), namespace, podName, options),
    // One plain request, as WaitForNeeds has always made it (its next look is its retry).
    listPods: async (namespace, labelSelector) => (await (await kube()).listNamespacedPod({ namespace, labelSelector })).items,
    readLog: async (namespace, podName, container, options) => readWholeStepLog(await kube(), namespace, podName, undefined, container, options),
    ungatePod: async (namespace, podName) => removeSchedulingGate(await kube(), namespace, podName),
    podIdentityToken: async (namespace, serviceAccount, pod) => requestPodIdentityToken(await kube(), { namespace, serviceAccount, pod }),
    deletePod: async (namespace, podName) => deleteStepPod(await kube(), namespace, podName),
    markStepFinished: async (namespace, podName, now) => markStepFinished(await kube(), namespace, podName, now),
    deleteBuildPods: async (namespace, buildId) => deleteBuildPods(await kube(), namespace, buildId),
    deleteBuildObjects: async (kind, namespace, buildId) => deleteBuildObjects(await kube(), BuildObjectKinds[kind], namespace, buildId),
    deleteOrphanedPods: async (namespace, options) => deleteOrphanedPods(await kube(), namespace, options),
    deleteOrphanedBuildObjects: async (kind, namespace, options) => deleteOrphanedBuildObjects(await kube(), BuildObjectKinds[kind], namespace, options),
    readSecretValues: async (namespace, refs) => readSecretValues(await kube(), namespace, refs),
    ensureGitCredentials: async (manifest) => ensureGitCredentials(await kube(), manifest),
    gitTokenExpiry: async (namespace, secretName) => gitTokenExpiry(await kube(), namespace, secretName),
    renewGitCredentials: async (namespace, secretName, token) => renewGitCredentials(await kube(), namespace, secretName, token),
    storeApprovalToken: async (manifest) => storeApprovalToken(await kube(), manifest),
    readApprovalToken: async (namespace, secretName) => readApprovalToken(await kube(), namespace, secretName),
    markApprovalGiven: async (namespace, secretName, now) => markApprovalGiven(await kube(), namespace, secretName, now),
    listBuildSecrets: async (namespace, buildId) => listBuildSecrets(await kube(), namespace, buildId),
    ensureCacheSecret: async (manifest) => ensureCacheSecret(await kube(), manifest),
    ensureStepAwsSecret: async (manifest) => ensureStepAwsSecret(await kube(), manifest),
    ensureRegistryLoginSecret: async (manifest) => ensureRegistryLoginSecret(await kube(), manifest),
    cacheSecretSigning: async (namespace, secretName) => cacheSecretSigning(await kube(), namespace, secretName),
    replaceCacheSecretUrls: async (namespace, secretName, urls) => replaceCacheSecretUrls(await kube(), namespace, secretName, urls),
    ensureWorkspaceClaim: async (manifest) => ensureWorkspaceClaim(await kube(), manifest),
    workspaceNode: async (namespace, claimName) => workspaceNode(await kube(), namespace, claimName),
    nodeInstanceType: async (nodeName) => nodeInstanceType(await kube(), nodeName),
    recordStepSucceeded: async (namespace, claimName, step, now) => recordStepSucceeded(await kube(), namespace, claimName, step, now),
    keepBuildObjects: async (namespace, buildId, claimName, keep) => keepBuildObjects(await kube(), namespace, buildId, claimName, keep),
  };
}
