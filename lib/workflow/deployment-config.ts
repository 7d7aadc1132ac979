/**
 * Settings that belong to a deployment rather than to a pipeline, read from the environment the
 * way Lambda passes them (serverless.yml sets them; the local runner sets them for its process).
 */
import { DEFAULT_CLASSIFY_OPTIONS } from '../kube/types.js';

export type ClusterTarget =
  | { kind: 'eks'; clusterName: string; region: string }
  | { kind: 'kubeconfig'; path?: string; context?: string };

export interface DeploymentConfig {
  cluster: ClusterTarget;
  namespace: string;
  imagePullGraceSeconds: number;
  unschedulableGraceSeconds: number;
  /** How long one PollStep may watch a pending pod for its next change (0: plain polling only). */
  pendingWatchSeconds: number;
  logs: { kind: 's3'; bucket: string; prefix: string } | { kind: 'directory'; path: string };
}

/**
 * While a pod is pending, a PollStep that holds a watch for up to this long answers the moment
 * the kubelet reports a change (a pull failure above all) and costs three state transitions per
 * watch instead of per second. Bounded well below the Lambda timeout.
 */
export const DEFAULT_PENDING_WATCH_SECONDS = 20;

export const EnvNames = {
  clusterName: 'EKS_CLUSTER_NAME',
  region: 'AWS_REGION',
  kubeconfig: 'STEP_RUNNER_KUBECONFIG',
  context: 'STEP_RUNNER_CONTEXT',
  namespace: 'STEP_RUNNER_NAMESPACE',
  imagePullGrace: 'IMAGE_PULL_GRACE_SECONDS',
  unschedulableGrace: 'UNSCHEDULABLE_GRACE_SECONDS',
  pendingWatch: 'PENDING_WATCH_SECONDS',
  logsBucket: 'STEP_LOGS_BUCKET',
  logsPrefix: 'STEP_LOGS_PREFIX',
  logsDir: 'STEP_LOGS_DIR',
} as const;

export function deploymentConfig(env: NodeJS.ProcessEnv = process.env): DeploymentConfig {
  const clusterName = env[EnvNames.clusterName];
  const cluster: ClusterTarget = clusterName
    ? { kind: 'eks', clusterName, region: required(env, EnvNames.region) }
    : { kind: 'kubeconfig', path: env[EnvNames.kubeconfig] || env.KUBECONFIG || undefined, context: env[EnvNames.context] || undefined };
  const bucket = env[EnvNames.logsBucket];
  return {
    cluster,
    namespace: env[EnvNames.namespace] || 'default',
    imagePullGraceSeconds: seconds(env, EnvNames.imagePullGrace, DEFAULT_CLASSIFY_OPTIONS.imagePullGraceSeconds),
    unschedulableGraceSeconds: seconds(env, EnvNames.unschedulableGrace, DEFAULT_CLASSIFY_OPTIONS.unschedulableGraceSeconds),
    pendingWatchSeconds: seconds(env, EnvNames.pendingWatch, DEFAULT_PENDING_WATCH_SECONDS),
    logs: bucket
      ? { kind: 's3', bucket, prefix: env[EnvNames.logsPrefix] ?? 'builds/' }
      : { kind: 'directory', path: env[EnvNames.logsDir] || '.step-runner/logs' },
  };
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} must be set when ${EnvNames.clusterName} is`);
  return value;
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number of seconds, got "${raw}"`);
  return value;
}
