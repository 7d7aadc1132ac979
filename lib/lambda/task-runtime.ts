import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { kubeClients, kubeConfigForEks, pullSecretsReader } from '../kube/index.js';
import { ecrCheck, imageChecker } from '../registry/index.js';
import { logger } from '../workflow/lambda-task.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import type { Prices } from '../workflow/cost-model.js';
import { s3LogStore } from './s3-log-store.js';
import { s3CacheStore } from '../workflow/s3-cache-store.js';
import { deploymentPrices, EnvNames, runnerSettings } from './settings.js';
import { s3ConcurrencyStore } from '../workflow/s3-concurrency-store.js';
import { CONCURRENCY_PREFIX } from '../workflow/concurrency-store.js';
import { sfnExecutionStopper } from './execution-stopper.js';
import { sfnTaskCallbacks } from './task-callbacks.js';
import { clusterRoleCredentials } from './cluster-credentials.js';
import { podIdentityCredentials } from './pod-identity-credentials.js';
import { emfMetricsSink } from './emf-metrics.js';

/**
 * The runtime of a deployed task function: the EKS cluster through IAM, logs in S3. Built once per
 * cold start, so a missing setting fails the start; a warm function keeps its clients, and the EKS
 * token inside is renewed as it ages (kubeConfigForEks).
 */
export function lambdaTaskRuntime(env: NodeJS.ProcessEnv = process.env): TaskRuntime {
  const { cluster, workflow, logs } = runnerSettings(env);
  // The cluster knows the role its access entry maps, which the function assumes; its own role
  // keeps the rest (S3, ECR, secrets).
  const { roleArn, ...eks } = cluster;
  const credentials = roleArn ? clusterRoleCredentials({ roleArn, region: cluster.region, sessionName: env.AWS_LAMBDA_FUNCTION_NAME }) : undefined;
  const { kube, ...clients } = kubeClients(() => kubeConfigForEks({ ...eks, ...(credentials ? { credentials } : {}) }));
  return {
    settings: workflow,
    deps: {
      ...clients,
      // Built once per cold start, so its verdict cache lasts as long as the warm function.
      checkImages: imageChecker({ readPullSecrets: pullSecretsReader(kube), ecr: ecrCheck({ credentials: fromNodeProviderChain() }) }),
      logs: s3LogStore(logs.bucket, logs.prefix),
      // The cache's entries in the same bucket, under the deployment's cache prefix (its own
      // lifecycle rule); the clone's key hashes beside the build's logs.
      cache: s3CacheStore(logs.bucket, logs.prefix),
      // Each concurrency group's current build, beside them: read and written conditionally.
      superseding: { store: s3ConcurrencyStore(logs.bucket, env[EnvNames.concurrencyPrefix] || CONCURRENCY_PREFIX), executions: sfnExecutionStopper() },
      // A step's identity, as EKS Pod Identity gives it to the step's pod: what its AWS secrets are read with.
      ...(workflow.identities && workflow.identities.length > 0
        ? { identityCredentials: podIdentityCredentials({ clusterName: eks.clusterName, region: eks.region, credentials: fromNodeProviderChain(), env }) }
        : {}),
      // Each step's and each ended build's metric record, as an EMF line in the function's log.
      metrics: emfMetricsSink(env),
      // What a step's StepCost prices its pod at: the prices the build's cost is worked out at.
      ...stepPrices(env),
      // The steps waiting for an approval, answered once it is given (approvalWaits' role allows it).
      callbacks: sfnTaskCallbacks(),
      now: () => new Date(),
      log: logger,
    },
  };
}

/**
 * The deployment's prices (COST_PRICES, which FinishStep is given as ReportStatus is); a wrong
 * table costs the steps their StepCost, never the function its start, and the log says why.
 */
function stepPrices(env: NodeJS.ProcessEnv): { prices?: Prices } {
  try {
    return { prices: deploymentPrices(env) };
  } catch (error) {
    logger.warn("No step's StepCost is written: the deployment's COST_PRICES is wrong", { reason: (error as Error).message });
    return {};
  }
}
