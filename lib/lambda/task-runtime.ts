import { kubeClients, kubeConfigForEks } from '../kube/index.js';
import { logger } from '../workflow/lambda-task.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import { s3LogStore } from './s3-log-store.js';
import { runnerSettings } from './settings.js';

/**
 * The runtime of a deployed task function: the EKS cluster through IAM, logs in S3. Built once per
 * cold start, so a missing setting fails the start; a warm function keeps its clients, and the EKS
 * token inside is renewed as it ages (kubeConfigForEks).
 */
export function lambdaTaskRuntime(env: NodeJS.ProcessEnv = process.env): TaskRuntime {
  const { cluster, workflow, logs } = runnerSettings(env);
  return {
    settings: workflow,
    deps: {
      ...kubeClients(() => kubeConfigForEks(cluster)),
      logs: s3LogStore(logs.bucket, logs.prefix),
      now: () => new Date(),
      log: logger,
    },
  };
}
