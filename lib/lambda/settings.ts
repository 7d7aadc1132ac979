/**
 * A deployed function's settings, read from the environment serverless.yml gives it. A missing
 * one stops the function at start, with its name: on AWS there is no sensible stand-in for a
 * cluster, a namespace or a log bucket, and a quiet fallback would only fail later, elsewhere.
 */
import { DEFAULT_ORPHAN_MARGIN_SECONDS } from '../kube/orphans.js';
import { MAX_PARALLEL_LIMIT, checkNodeSelector, checkPullSecrets, checkTolerations, quantityProblem, type SettingCheck } from '../pipeline/index.js';
import { DEFAULT_WORKSPACE, WorkspaceModes, workflowSettings, type WorkflowSettings } from '../workflow/settings.js';
import { checkIdentities } from '../workflow/identities.js';
import { pricesWith, type Prices } from '../workflow/cost-model.js';

export const EnvNames = {
  clusterName: 'EKS_CLUSTER_NAME',
  /** The role a function assumes to talk to the cluster (serverless.yml EksClusterRole); unset: its own. */
  clusterRoleArn: 'EKS_CLUSTER_ROLE_ARN',
  region: 'AWS_REGION',
  namespace: 'STEP_RUNNER_NAMESPACE',
  imagePullGrace: 'IMAGE_PULL_GRACE_SECONDS',
  unschedulableGrace: 'UNSCHEDULABLE_GRACE_SECONDS',
  pendingWatch: 'PENDING_WATCH_SECONDS',
  runningWatch: 'RUNNING_WATCH_SECONDS',
  runningWatchUntil: 'RUNNING_WATCH_UNTIL_SECONDS',
  logsBucket: 'STEP_LOGS_BUCKET',
  logsPrefix: 'STEP_LOGS_PREFIX',
  /** The functions' memory and architecture, JSON (lib/deploy/function-sizes.cjs), for the build's cost. */
  costFunctions: 'COST_FUNCTIONS',
  /** The deployment's price table over the defaults, JSON (cost-model.ts pricesWith); '' for the defaults. */
  costPrices: 'COST_PRICES',
  orphanMargin: 'ORPHAN_MARGIN_SECONDS',
  cloneImage: 'CLONE_IMAGE',
  cacheImage: 'CACHE_IMAGE',
  /** A build step's image (`builder-image`): lib/kube/build-container.ts says what it must provide. */
  builderImage: 'BUILDER_IMAGE',
  cachePrefix: 'CACHE_PREFIX',
  /** Where PrepareBuild records each concurrency group's current build, in the logs' bucket. */
  concurrencyPrefix: 'CONCURRENCY_PREFIX',
  workspaceMode: 'WORKSPACE_MODE',
  stepRunAsUser: 'STEP_RUN_AS_USER',
  workspaceStorageClass: 'WORKSPACE_STORAGE_CLASS',
  workspaceSize: 'WORKSPACE_SIZE',
  workspaceAccessMode: 'WORKSPACE_ACCESS_MODE',
  failedWorkspaceKeep: 'FAILED_WORKSPACE_KEEP_SECONDS',
  imageCheck: 'IMAGE_CHECK',
  stepPullSecrets: 'STEP_PULL_SECRETS',
  stepNodeSelector: 'STEP_NODE_SELECTOR',
  stepTolerations: 'STEP_TOLERATIONS',
  stepDoNotDisrupt: 'STEP_DO_NOT_DISRUPT',
  maxParallelSteps: 'MAX_PARALLEL_STEPS',
  /** The identities a step may ask for, as the file params.identitiesFile names declares them (JSON). */
  identities: 'STEP_IDENTITIES',
  stateMachineArn: 'STATE_MACHINE_ARN',
  githubWebhookSecretId: 'GITHUB_WEBHOOK_SECRET_ID',
  genericWebhookSecretId: 'GENERIC_WEBHOOK_SECRET_ID',
  githubTokenSecretId: 'GITHUB_TOKEN_SECRET_ID',
  githubAppId: 'GITHUB_APP_ID',
  githubAppPrivateKeySecretId: 'GITHUB_APP_PRIVATE_KEY_SECRET_ID',
  githubApiUrl: 'GITHUB_API_URL',
  buildForkPullRequests: 'BUILD_FORK_PULL_REQUESTS',
  /** Where ReportStatus sends each build's trace (OTLP/HTTP); absent or empty: no trace. */
  otlpEndpoint: 'OTLP_ENDPOINT',
  /** The Secrets Manager secret holding the headers the OTLP endpoint wants (an API key); absent or empty: none. */
  otlpHeadersSecretId: 'OTLP_HEADERS_SECRET_ID',
} as const;

/** The function cannot run as deployed; the message names every setting that is wrong. */
export class DeploymentSettingsError extends Error {
  override readonly name = 'DeploymentSettingsError';
}

/** What the functions that run builds need: the cluster, where pods go and where logs go. */
export interface RunnerSettings {
  /** `roleArn`: the role whose identity the cluster knows (the EKS access entry's), assumed for DescribeCluster and the token. */
  cluster: { clusterName: string; region: string; roleArn?: string };
  workflow: WorkflowSettings;
  logs: { bucket: string; prefix: string };
}

export function runnerSettings(env: NodeJS.ProcessEnv): RunnerSettings {
  const read = reader(env);
  // Set but empty: the cluster's default storage class.
  const storageClass = env[EnvNames.workspaceStorageClass] ?? DEFAULT_WORKSPACE.storageClass;
  const settings: RunnerSettings = {
    cluster: {
      clusterName: read.required(EnvNames.clusterName),
      region: read.required(EnvNames.region),
      ...(env[EnvNames.clusterRoleArn]?.trim() ? { roleArn: env[EnvNames.clusterRoleArn]!.trim() } : {}),
    },
    workflow: workflowSettings({
      namespace: read.required(EnvNames.namespace),
      ...read.seconds('imagePullGraceSeconds', EnvNames.imagePullGrace),
      ...read.seconds('unschedulableGraceSeconds', EnvNames.unschedulableGrace),
      ...read.seconds('pendingWatchSeconds', EnvNames.pendingWatch),
      ...read.seconds('runningWatchSeconds', EnvNames.runningWatch),
      ...read.seconds('runningWatchUntilSeconds', EnvNames.runningWatchUntil),
      ...read.seconds('failedWorkspaceKeepSeconds', EnvNames.failedWorkspaceKeep),
      ...(env[EnvNames.cloneImage] ? { cloneImage: env[EnvNames.cloneImage] } : {}),
      ...(env[EnvNames.cacheImage] ? { cacheImage: env[EnvNames.cacheImage] } : {}),
      ...(env[EnvNames.builderImage] ? { builderImage: env[EnvNames.builderImage] } : {}),
      ...(env[EnvNames.cachePrefix] ? { cachePrefix: env[EnvNames.cachePrefix] } : {}),
      workspaceMode: read.oneOf(EnvNames.workspaceMode, WORKSPACE_MODES) ?? WorkspaceModes.volume,
      ...read.userId('runAsUser', EnvNames.stepRunAsUser),
      workspace: {
        ...(storageClass ? { storageClass } : {}),
        size: read.quantity(EnvNames.workspaceSize) ?? DEFAULT_WORKSPACE.size,
        accessMode: read.oneOf(EnvNames.workspaceAccessMode, ACCESS_MODES) ?? DEFAULT_WORKSPACE.accessMode,
      },
      imageCheck: read.oneOf(EnvNames.imageCheck, ['on', 'off'] as const) !== 'off',
      doNotDisrupt: read.oneOf(EnvNames.stepDoNotDisrupt, ['on', 'off'] as const) !== 'off',
      ...read.podSetting('pullSecrets', EnvNames.stepPullSecrets, 'a comma-separated list of Secret names', (raw) =>
        checkPullSecrets(raw.split(',').map((name) => name.trim()).filter((name) => name !== '')),
      ),
      ...read.podSetting('nodeSelector', EnvNames.stepNodeSelector, 'a JSON map of node label to value', (raw) => json(raw, checkNodeSelector)),
      ...read.podSetting('tolerations', EnvNames.stepTolerations, 'a JSON list of tolerations', (raw) => json(raw, checkTolerations)),
      ...read.count('maxParallelSteps', EnvNames.maxParallelSteps, 1, MAX_PARALLEL_LIMIT),
      ...read.podSetting('identities', EnvNames.identities, 'a JSON map of identity name to {role, repositories, refs, events, forks}', (raw) => json(raw, checkIdentities)),
    }),
    logs: { bucket: read.required(EnvNames.logsBucket), prefix: env[EnvNames.logsPrefix] ?? 'builds/' },
  };
  read.check();
  return settings;
}

/** The orphan sweep's margin past a pod's deadline (serverless.yml sets it). */
export function orphanMarginSeconds(env: NodeJS.ProcessEnv): number {
  const read = reader(env);
  const { margin = DEFAULT_ORPHAN_MARGIN_SECONDS } = read.seconds('margin', EnvNames.orphanMargin);
  read.check();
  return margin;
}

/**
 * The deployment's price table (COST_PRICES over the defaults; unset or '': AWS's list prices),
 * for the build's cost (ReportStatus) and each step's StepCost (FinishStep) alike. A wrong one
 * throws InvalidPrices, naming what is wrong: its callers then go without a cost, never stop.
 */
export function deploymentPrices(env: NodeJS.ProcessEnv): Prices {
  return pricesWith(env[EnvNames.costPrices]);
}

const ACCESS_MODES = ['ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteMany'] as const;

function json<T>(raw: string, check: (value: unknown) => SettingCheck<T>): SettingCheck<T> {
  try {
    return check(JSON.parse(raw));
  } catch (error) {
    return { ok: false, problems: [`not JSON (${error instanceof Error ? error.message : String(error)})`] };
  }
}

/** The deployment's GitHub App: its id, and where its private key is kept. */
export interface GitHubAppSettings {
  appId: string;
  privateKeySecretId: string;
}

// The App's id (digits), or its client id (GitHub's recommended JWT issuer since 2024).
const APP_ID = /^(?:[1-9]\d{0,14}|Iv[0-9A-Za-z.]{4,40})$/;
const WORKSPACE_MODES = Object.values(WorkspaceModes);

/** Each problem is collected, so one failed start names them all. */
export function reader(env: NodeJS.ProcessEnv) {
  const problems: string[] = [];
  return {
    required(name: string): string {
      const value = env[name];
      if (value) return value;
      problems.push(`${name} is not set`);
      return '';
    },
    /** One of two settings that can each do the job, e.g. a token or an App. */
    requiredUnless(name: string, instead: string, why: string): void {
      if (env[name] || env[instead]?.trim()) return;
      problems.push(`${name} is not set, nor ${instead}: ${why}`);
    },
    seconds<K extends string>(key: K, name: string): Partial<Record<K, number>> {
      const raw = env[name];
      if (raw === undefined || raw === '') return {};
      const value = Number(raw);
      if (Number.isInteger(value) && value >= 0) return { [key]: value } as Record<K, number>;
      problems.push(`${name} must be a whole number of seconds, got "${raw}"`);
      return {};
    },
    count<K extends string>(key: K, name: string, min: number, max: number): Partial<Record<K, number>> {
      const raw = env[name];
      if (raw === undefined || raw === '') return {};
      const value = Number(raw);
      if (Number.isInteger(value) && value >= min && value <= max) return { [key]: value } as Record<K, number>;
      problems.push(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return {};
    },
    /** A numeric user id other than root's (Pod Security `restricted` forbids 0, and a name is not an id). */
    userId<K extends string>(key: K, name: string): Partial<Record<K, number>> {
      const raw = env[name];
      if (raw === undefined || raw === '') return {};
      const value = Number(raw);
      if (/^\d+$/.test(raw) && value >= 1 && value <= 2147483647) return { [key]: value } as Record<K, number>;
      problems.push(`${name} must be a numeric user id from 1 to 2147483647 (not root), got "${raw}"`);
      return {};
    },
    /** A storage size such as 10Gi: a bad one would fail every build's claim instead. */
    quantity(name: string): string | undefined {
      const raw = env[name];
      if (raw === undefined || raw === '') return undefined;
      const problem = quantityProblem(raw, 'memory');
      if (!problem) return raw;
      problems.push(`${name}: ${problem}`);
      return undefined;
    },
    /**
     * The GitHub App, when GITHUB_APP_ID is set (serverless.yml always sets the key's secret id, so
     * that alone configures nothing).
     */
    gitHubApp(): GitHubAppSettings | undefined {
      const raw = env[EnvNames.githubAppId]?.trim();
      if (!raw) return undefined;
      const privateKeySecretId = env[EnvNames.githubAppPrivateKeySecretId]?.trim();
      if (!APP_ID.test(raw)) {
        // Never echo what may be a pasted key or token.
        const shown = /^[\x21-\x7e]{1,40}$/.test(raw) && !/key|token|secret|^gh[a-z]_|^github_pat_/i.test(raw) ? `"${raw}"` : `a value of ${raw.length} characters`;
        problems.push(`${EnvNames.githubAppId} must be the GitHub App's id (digits, e.g. 123456) or its client id (Iv...), got ${shown}`);
      }
      if (!privateKeySecretId) {
        problems.push(`${EnvNames.githubAppPrivateKeySecretId} is not set: with ${EnvNames.githubAppId} set, the App needs its private key (the Secrets Manager id of its .pem)`);
      }
      return APP_ID.test(raw) && privateKeySecretId ? { appId: raw, privateKeySecretId } : undefined;
    },
    /** A pod setting every build gets (pull secrets, node selector, tolerations), by the pipeline file's rules. */
    podSetting<K extends string, T>(key: K, name: string, what: string, check: (raw: string) => SettingCheck<T>): Partial<Record<K, T>> {
      const raw = env[name];
      if (raw === undefined || raw.trim() === '') return {};
      const result = check(raw.trim());
      if (result.ok) return { [key]: result.value } as Record<K, T>;
      problems.push(`${name} must be ${what}: ${result.problems.join('; ')}`);
      return {};
    },
    oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
      const raw = env[name];
      if (raw === undefined || raw === '') return undefined;
      if ((allowed as readonly string[]).includes(raw)) return raw as T;
      problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
      return undefined;
    },
    check(): void {
      if (problems.length === 0) return;
      throw new DeploymentSettingsError(
        `This function cannot start: ${problems.join('; ')}. serverless.yml sets these for every function; check the deployment.`,
      );
    },
  };
}
