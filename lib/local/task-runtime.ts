import type { IdentityCredentials } from '../contract/aws-credentials.js';
import type { CoreV1Api } from '@kubernetes/client-node';
import { kubeClients, pullSecretsReader } from '../kube/index.js';
import { imageChecker } from '../registry/index.js';
import { logger } from '../workflow/lambda-task.js';
import { DEFAULT_WORKSPACE, workflowSettings, type WorkflowSettings, type WorkspaceMode } from '../workflow/settings.js';
import type { TaskRuntime } from '../workflow/task-deps.js';
import type { CacheStore } from '../workflow/cache-store.js';
import type { Identity } from '../workflow/identities.js';
import { directoryLogStore } from './stores/directory-log-store.js';
import { imageRegistryOf } from './image-registry.js';
import { kubeConfigFromFile } from './kube-config-file.js';
import { logsDir, stateDir } from './stores/state-dir.js';
import { localSourceFiles } from './source/source-files.js';
import type { BuildTraceExport } from '../workflow/trace-export.js';

/** Where a local build runs: a cluster by kubeconfig (the embedded one's, or the user's own). */
export interface LocalTarget {
  kubeconfig: string;
  context?: string;
  /** Absent: the kubeconfig context's namespace, as kubectl takes it, else `default`. */
  namespace?: string;
  /** The folder step logs are kept in. */
  logsDir: string;
  /** Grace periods and the pending watch, where a caller wants other than the defaults. */
  settings?: Partial<WorkflowSettings>;
  /**
   * A cluster of the user's own (--kubeconfig): its workspace claims use the cluster's default
   * storage class (kind's, minikube's...), not EKS's gp2, which the embedded cluster has.
   */
  ownCluster?: boolean;
  /** Where the steps' caches are kept (local-cache-store.ts); absent: no step restores or saves one. */
  cache?: CacheStore;
  /** Credentials of a step's identity for what the tasks read as the step (its AWS secrets); `run --identity`. */
  identityCredentials?: IdentityCredentials;
  /** `--otlp-endpoint`: each build that ends sent as a trace (build-traces.ts); absent: none. */
  exportTrace?: BuildTraceExport;
}

/**
 * The local runtime, with the API client itself beside the tasks' cluster: lib/local's own
 * requests (the console's pod observer, `run --secret`) are no task's.
 */
export interface LocalTaskRuntime extends TaskRuntime {
  kube(): Promise<CoreV1Api>;
}

/**
 * The local counterpart of lib/lambda's runtime: the cluster through a kubeconfig file, logs in a
 * folder. Read once: a bad kubeconfig or context is refused before any build starts.
 */
export function localTaskRuntime(target: LocalTarget): LocalTaskRuntime {
  const kubeConfig = kubeConfigFromFile(target.kubeconfig, target.context);
  const { kube, ...clients } = kubeClients(async () => kubeConfig);
  const mirror = imageRegistryOf(target.kubeconfig, target.context);
  return {
    settings: workflowSettings({
      ...(target.ownCluster ? { workspace: { size: DEFAULT_WORKSPACE.size, accessMode: DEFAULT_WORKSPACE.accessMode } } : {}),
      ...target.settings,
      namespace: target.namespace ?? (kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace || 'default'),
    }),
    deps: {
      ...clients,
      // The embedded cluster's kubeconfig names its catalog registry; other clusters' nodes pull from the images' own.
      checkImages: imageChecker({ readPullSecrets: pullSecretsReader(kube), ...(mirror ? { mirror } : {}) }),
      logs: directoryLogStore(target.logsDir),
      // A build step's Dockerfile, from the snapshot the build checks out (the work tree as it is on disk).
      sourceFiles: localSourceFiles,
      ...(target.cache ? { cache: target.cache } : {}),
      ...(target.identityCredentials ? { identityCredentials: target.identityCredentials } : {}),
      ...(target.exportTrace ? { exportTrace: target.exportTrace } : {}),
      now: () => new Date(),
      log: logger,
    },
    kube,
  };
}

/**
 * The deployment's variable for the checkout's image (lib/lambda/settings.ts reads it as
 * EnvNames.cloneImage; lib/local may not import lib/lambda, so the name is repeated, and
 * task-runtime.test.ts holds the two together).
 */
export const CLONE_IMAGE_ENV = 'CLONE_IMAGE';

/** The deployment's variable for the cache containers' image (EnvNames.cacheImage, repeated as CLONE_IMAGE_ENV is). */
export const CACHE_IMAGE_ENV = 'CACHE_IMAGE';

/** The deployment's variable for a build step's builder image (EnvNames.builderImage, repeated as CLONE_IMAGE_ENV is). */
export const BUILDER_IMAGE_ENV = 'BUILDER_IMAGE';

/** The part of `run`'s and `serve`'s options that becomes build settings. */
export interface CommandSettingsOptions {
  workspaceMode?: WorkspaceMode;
  cloneImage?: string;
  cacheImage?: string;
  /** `run --identity`: the identities the steps may ask for. */
  identities?: Identity[];
}

/**
 * The settings `run` and `serve` give every build: `--workspace-mode`, `--clone-image` over
 * $CLONE_IMAGE and `--cache-image` over $CACHE_IMAGE, which a local run honours as the deployment
 * does (empty counts as unset there too).
 */
export function commandSettings(options: CommandSettingsOptions, env: NodeJS.ProcessEnv): Partial<WorkflowSettings> {
  const cloneImage = options.cloneImage ?? (env[CLONE_IMAGE_ENV] || undefined);
  const cacheImage = options.cacheImage ?? (env[CACHE_IMAGE_ENV] || undefined);
  const builderImage = env[BUILDER_IMAGE_ENV] || undefined;
  return {
    ...(builderImage ? { builderImage } : {}),
    ...(options.workspaceMode ? { workspaceMode: options.workspaceMode } : {}),
    ...(cloneImage ? { cloneImage } : {}),
    ...(cacheImage ? { cacheImage } : {}),
    ...(options.identities && options.identities.length > 0 ? { identities: options.identities } : {}),
  };
}

/**
 * The runtime of `run` and `serve`: the cluster they started or were given (`--kubeconfig`, then a
 * cluster of the user's own), `--context`, `--namespace` (default: the context's, else `default`), logs in
 * the state directory's `logs/` (`--state-dir`, else the XDG one: never the work tree being built),
 * `--workspace-mode` (default `volume`, as deployed by default), `--clone-image` and `--cache-image` (commandSettings);
 * `failedWorkspaceKeepSeconds`: how long a failed build's claim is kept (the deployment's default when absent; `run` keeps none).
 */
export function commandTaskRuntime(
  kubeconfig: string,
  options: CommandSettingsOptions & { kubeconfig?: string; context?: string; namespace?: string; stateDir?: string; cache?: CacheStore; failedWorkspaceKeepSeconds?: number; identityCredentials?: IdentityCredentials; exportTrace?: BuildTraceExport },
  env: NodeJS.ProcessEnv = process.env,
): LocalTaskRuntime {
  const settings = {
    ...commandSettings(options, env),
    ...(options.failedWorkspaceKeepSeconds !== undefined ? { failedWorkspaceKeepSeconds: options.failedWorkspaceKeepSeconds } : {}),
  };
  return localTaskRuntime({
    kubeconfig,
    ownCluster: options.kubeconfig !== undefined,
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
    ...(options.context ? { context: options.context } : {}),
    ...(options.namespace ? { namespace: options.namespace } : {}),
    logsDir: logsDir(stateDir(options.stateDir)),
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.identityCredentials ? { identityCredentials: options.identityCredentials } : {}),
    ...(options.exportTrace ? { exportTrace: options.exportTrace } : {}),
  });
}
