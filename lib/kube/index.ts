// The public face of lib/kube: connection, pod manifest and the step pod operations.
export * from './errors.js';
export * from './types.js';
export { stepPodName, stepAwsSecretName, stepRegistryLoginName, labelValue, workspaceClaimName, approvalTokenName, approvalWaitName } from './pod-name.js';
export { approvalTokenManifest, approvalWaitManifest, APPROVAL_TOKEN_KEY, AWAITS_ANNOTATION } from './approval-token.js';
export { stepScript, shellQuote } from './step-script.js';
export { identityServiceAccount, identityServiceAccountManifest } from './service-accounts.js';
export { pinsToWorkspaceNode, stepPodManifest, stepPlacement, SERVICE_CAPABILITIES, DO_NOT_DISRUPT_ANNOTATIONS, type PodPlacement, type PodWorkspace, type StepPodManifestInput } from './pod-manifest.js';
export { serviceContainerName, portGateContainerName, portGateOf, isServiceItself, portProbe, PORT_GATE_SCRIPT } from './service-containers.js';
export { kubeConfigForEks, EksConnectionCache, type EksConnectionOptions } from './connection.js';
export { kubeClients, type KubeClients, type WatchedPods } from './clients.js';
export { kubeStepCluster, type StepCluster, type BuildObjectKindName } from './step-cluster.js';
export { eksToken, type EksToken } from './eks-token.js';
export type { AwsCredentials, AwsCredentialsProvider } from '../contract/aws-credentials.js';
export { describeEksCluster, type EksClusterEndpoint } from './eks-cluster.js';
export { withKubeRetries, type KubeRetryOptions } from './retry.js';
export { launchStepPod, type LaunchResult } from './launch.js';
export { observeStep } from './observe.js';
export { readStepLog, readWholeStepLog, DEFAULT_STEP_LOG_TAIL, type StepLogOptions } from './logs.js';
export { finishedForDependants, markStepFinished } from './step-finished.js';
export { deleteStepPod, deleteBuildPods, deleteBuildObjects, buildSelector, BuildObjectKinds, type BuildObjectKind } from './cleanup.js';
export { deleteOrphanedBuildObjects, deleteOrphanedPods } from './orphans.js';
export { ensureGitCredentials, gitCredentialsManifest, gitTokenExpiry, renewGitCredentials, GIT_TOKEN_KEY, TOKEN_EXPIRES_ANNOTATION } from './git-credentials.js';
export {
  ensureWorkspaceClaim,
  workspaceClaimManifest,
  workspaceNode,
  WORKSPACE_PATH,
  SELECTED_NODE_ANNOTATION,
  type WorkspaceClaimSettings,
} from './workspace.js';
export { pullSecretsReader, readPullSecretConfigs, type PullSecretConfigs, type PullSecretsApi } from './pull-secrets.js';
export { readSecretValues, secretNeedles, maskSecrets, SECRET_MASK } from './secret-values.js';
export { classifyStep } from './classify.js';
export { finishedCause, type StepEnding } from './cause.js';
export { serviceStates, type ServiceState } from './classify-services.js';
export { failedServiceRun, sameServiceRuns, type ServiceRun } from './failed-service-run.js';
export { eventCount, eventFirstSeen, eventLastSeen } from './classify-events.js';
export { podProgress, sameProgress, isQuietPending, type PodProgress } from './pod-progress.js';
export { podRequests, type PodRequests } from './pod-requests.js';
export { INSTANCE_TYPE_LABEL, nodeInstanceType } from './node-instance-type.js';
export { secondsSince } from './time.js';
export { podTimings, mergePodTimings, type PodTimings } from './pod-timings.js';
export { watchPodUntil, watchPodsUntil, type WatchedPod } from './watch-pod.js';
export { followContainerLog, readLogAfter, type OnLines } from './follow-log.js';
export { linesAfter, rotationGapNote, sinceTimeOf, type LogPosition } from './log-position.js';
export { cacheSecretManifest, cacheSecretName, URL_SIGNING_ANNOTATION, CacheContainers, CACHE_SCRATCH, type PodCachePlan, type PodCacheEntry, type PodArtifact, type PodArtifacts, type PodReports, type UrlSigning } from './cache-containers.js';
export { parseReportBundle, type ReportRecord } from './report-scripts.js';
export { cacheSecretSigning, ensureCacheSecret, replaceCacheSecretUrls } from './cache-secret.js';
export { stepAwsSecretManifest } from './step-aws-secret.js';
export { STEP_READINESS_GATE, withSchedulingGate, isGated, gatesWithout } from './scheduling-gate.js';
export { POD_IDENTITY_AUDIENCE, POD_IDENTITY_TOKEN_SECONDS, podIdentityTokenRequest, type BoundPod } from './pod-identity-token.js';
export { registryLoginSecretManifest, DOCKER_CONFIG_KEY } from './registry-login-secret.js';
export { DEFAULT_CACHE_IMAGE } from './cache-containers.js';
export { disruptionCondition } from './classify-disruption.js';
export { isEvictedStatus } from './classify-pod.js';
export { ownLimitEviction } from './runtime-failures.js';
export { keepBuildObjects, keptDeadlineSeconds, recordStepSucceeded, succeededStepAnnotation, succeededSteps, SUCCEEDED_STEP_PREFIX, type KeptBuildObjects } from './workspace-record.js';
export { ociLabels, INSECURE_REGISTRIES_ENV } from './build-container.js';
