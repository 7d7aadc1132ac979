import { CoreV1Api } from '@kubernetes/client-node';
import { S3Client } from '@aws-sdk/client-s3';
import { kubeConfigForEks, kubeConfigFromFile } from '../kube/index.js';
import { deploymentConfig, type ClusterTarget, type DeploymentConfig } from './deployment-config.js';
import { directoryLogStore, s3LogStore, type StepLogStore } from './step-log-store.js';
import type { TaskDeps, TaskLog } from './task-deps.js';

/**
 * The task dependencies for this process's environment, built once per distinct environment: a
 * warm Lambda reuses its connection and cached EKS token; the local runner, which may switch
 * clusters between builds, gets a fresh one when the settings change.
 */
let cached: { key: string; config: DeploymentConfig; kube: () => Promise<CoreV1Api>; logs: StepLogStore } | undefined;

export function taskRuntime(log: TaskLog, env: NodeJS.ProcessEnv = process.env): { config: DeploymentConfig; deps: TaskDeps } {
  const config = deploymentConfig(env);
  const key = JSON.stringify(config);
  if (cached?.key !== key) {
    cached = { key, config, kube: coreApiFor(config.cluster), logs: logStoreFor(config) };
  }
  return { config, deps: { kube: cached.kube, logs: cached.logs, now: () => new Date(), log } };
}

function coreApiFor(target: ClusterTarget): () => Promise<CoreV1Api> {
  if (target.kind === 'kubeconfig') {
    let api: CoreV1Api | undefined;
    return async () => (api ??= kubeConfigFromFile(target.path, target.context).makeApiClient(CoreV1Api));
  }
  // The EKS token expires: kubeConfigForEks caches it and renews it, so ask it on every call.
  return async () =>
    (await kubeConfigForEks({ clusterName: target.clusterName, region: target.region })).makeApiClient(CoreV1Api);
}

function logStoreFor(config: DeploymentConfig): StepLogStore {
  return config.logs.kind === 's3'
    ? s3LogStore(new S3Client({}), config.logs.bucket, config.logs.prefix)
    : directoryLogStore(config.logs.path);
}
