import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { kubeConfigForEks, kubeConfigFromFile, watchPodUntil } from '../kube/index.js';
import { deploymentConfig, type ClusterTarget, type DeploymentConfig } from './deployment-config.js';
import { directoryLogStore, s3LogStore, type StepLogStore } from './step-log-store.js';
import type { TaskDeps, TaskLog } from './task-deps.js';

/**
 * The task dependencies for this process's environment, built once per distinct environment: a
 * warm Lambda reuses its connection and cached EKS token; the local runner, which may switch
 * clusters between builds, gets a fresh one when the settings change.
 */
let cached:
  | { key: string; config: DeploymentConfig; kubeConfig: () => Promise<KubeConfig>; kube: () => Promise<CoreV1Api>; logs: StepLogStore }
  | undefined;

export function taskRuntime(log: TaskLog, env: NodeJS.ProcessEnv = process.env): { config: DeploymentConfig; deps: TaskDeps } {
  const config = deploymentConfig(env);
  const key = JSON.stringify(config);
  if (cached?.key !== key) {
    const kubeConfig = kubeConfigFor(config.cluster);
    cached = { key, config, kubeConfig, kube: coreApiFrom(kubeConfig), logs: logStoreFor(config) };
  }
  const { kube, kubeConfig, logs } = cached;
  const watchPod: TaskDeps['watchPod'] = async (namespace, podName, until, timeoutMs) =>
    watchPodUntil(await kubeConfig(), namespace, podName, until, timeoutMs);
  return { config, deps: { kube, watchPod, logs, now: () => new Date(), log } };
}

function kubeConfigFor(target: ClusterTarget): () => Promise<KubeConfig> {
  if (target.kind === 'kubeconfig') {
    let kubeConfig: KubeConfig | undefined;
    return async () => (kubeConfig ??= kubeConfigFromFile(target.path, target.context));
  }
  // The EKS token expires: kubeConfigForEks caches it and renews it, so ask it on every call.
  return () => kubeConfigForEks({ clusterName: target.clusterName, region: target.region });
}

/** One API client per KubeConfig: the same one while the file's config or the EKS token lasts. */
function coreApiFrom(kubeConfig: () => Promise<KubeConfig>): () => Promise<CoreV1Api> {
  let last: { config: KubeConfig; api: CoreV1Api } | undefined;
  return async () => {
    const config = await kubeConfig();
    if (last?.config !== config) last = { config, api: config.makeApiClient(CoreV1Api) };
    return last.api;
  };
}

function logStoreFor(config: DeploymentConfig): StepLogStore {
  return config.logs.kind === 's3'
    ? s3LogStore(config.logs.bucket, config.logs.prefix)
    : directoryLogStore(config.logs.path);
}
