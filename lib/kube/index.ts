// The public face of lib/kube: connection, pod manifest and the step pod operations.
export * from './types.js';
export { stepPodName, labelValue } from './pod-name.js';
export { stepScript } from './step-script.js';
export { stepPodManifest, type StepPodManifestInput } from './pod-manifest.js';
export {
  kubeConfigFromFile,
  kubeConfigForEks,
  KubeConfigError,
  EksConnectionCache,
  type EksConnectionOptions,
} from './connection.js';
export { eksToken, type AwsCredentials, type AwsCredentialsProvider, type EksToken } from './eks-token.js';
export { describeEksCluster, type EksClusterEndpoint } from './eks-cluster.js';
export { withKubeRetries, type KubeRetryOptions } from './retry.js';
export { launchStepPod, type LaunchResult } from './launch.js';
export { observeStep } from './observe.js';
export { readStepLog, readWholeStepLog, DEFAULT_STEP_LOG_TAIL, type StepLogOptions } from './logs.js';
export { deleteStepPod, deleteBuildPods } from './cleanup.js';
export { readSecretValues, secretNeedles, maskSecrets, SECRET_MASK } from './secret-values.js';
export { classifyStep } from './classify.js';
export { podProgress } from './pod-progress.js';
export { watchPodUntil, type WatchedPod } from './watch-pod.js';
