/**
 * The embedded cluster: a Kubernetes API on loopback that @kubernetes/client-node and kubectl use
 * as they use EKS, with a kubelet whose containers run through Docker (in their images) or, on
 * machines without it, as local processes (runtime/).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { createApiServer } from './api-server.js';
import { DEFAULT_SCALE_UP_DELAY_MS, startAutoscaler, type AutoscalerOptions } from './autoscaler.js';
import { startClaimProtection } from './claim-protection.js';
import { systemClock, type Clock } from './clock.js';
import { EventRecorder } from './events.js';
import type { FaultInjector, NodeFaults } from './faults.js';
import { buildCatalog, parseCatalogDocument, type CatalogEntry } from './image-catalog.js';
import { ImagePuller } from './runtime/process/image-puller.js';
import { createProcessRuntime } from './runtime/process/process-runtime.js';
import type { ContainerRuntime } from './runtime/container-runtime.js';
import { kubeConfigFor, kubeconfigYaml } from './kubeconfig.js';
import { startCatalogRegistry, type CatalogRegistry } from './catalog-registry.js';
import { Kubelet, NODE_CAPACITY, NODE_NAME } from './kubelet.js';
import { defaultNodeLabels, kubernetesArch } from './node-labels.js';
import { DEFAULT_LOG_LIMIT_BYTES } from './log-buffer.js';
import { NodeDirs } from './node-dirs.js';
import { startPodGc } from './pod-gc.js';
import { startPersistentVolumeController } from './pv-controller.js';
import { createObject, type ApiContext } from './resource-handlers.js';
import { RESOURCES } from './resources.js';
import { STORAGE_CLASSES } from './storage-classes.js';
import { ObjectStore } from './store.js';
import { DEFAULT_TIMINGS, type KubeletTimings } from './timings.js';
import { VolumeProvisioner } from './volume-provisioner.js';
import { TokenIssuer } from './service-account-token.js';
import { startPodIdentityAgent, type PodIdentityAgent, type PodIdentityCredentials, type PodIdentityOptions } from './pod-identity-agent.js';
import { injectPodIdentity } from './pod-identity-webhook.js';

export type { Clock } from './clock.js';
export type { CatalogEntry } from './image-catalog.js';
export type { Fault, FaultInjector, FaultRequest, NodeFaults } from './faults.js';
export { DEFAULT_TIMINGS, FAST_TIMINGS, type KubeletTimings } from './timings.js';
export { NODE_NAME } from './kubelet.js';
export { kubernetesArch } from './node-labels.js';
export { IMAGE_REGISTRY_EXTENSION } from './kubeconfig.js';
export type { CatalogRegistry } from './catalog-registry.js';
export type { AutoscalerOptions } from './autoscaler.js';
export type { PodIdentityAssociation, PodIdentityCredentials, PodIdentityCredentialsRequest, PodIdentityOptions } from './pod-identity-agent.js';
export { FULL_URI_ENV, TOKEN_FILE_ENV, PodIdentity } from './pod-identity-webhook.js';

/**
 * What runs the containers. `docker`: the daemon at `socketPath`, pods in their images, each in a
 * sandbox container on `network` (default: the daemon's `bridge`, else a `step-runner` bridge it
 * makes) made of `sandboxImage` (default registry.k8s.io/pause). `process`: local processes.
 */
export type ClusterRuntime = { kind: 'process' } | { kind: 'docker'; socketPath: string; sandboxImage?: string; network?: string; helperImage?: string };

export interface EmbeddedClusterOptions {
  /** Default: local processes; the commands choose Docker when a daemon answers (runtime/runtime-choice.ts). */
  runtime?: ClusterRuntime;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Process runtime: working directory of a container that names none; default process.cwd(). */
  workspace?: string;
  /** Extra image catalog JSON files (same format as lib/emulators/kubernetes/images/catalog.json). */
  catalogFiles?: string[];
  /** Extra catalog entries given in code (tests). */
  images?: CatalogEntry[];
  /** How fast the simulated kubelet moves (tests make it fast: see FAST_TIMINGS). */
  timings?: Partial<KubeletTimings>;
  /** Namespaces created at start; 'default' always exists. */
  namespaces?: string[];
  /** Fault injection at the HTTP layer: answer a request with an error Status, or drop it. */
  faults?: FaultInjector;
  /** Faults past the HTTP layer (faults.ts NodeFaults): a mutating admission webhook's, a kubelet that says nothing. */
  nodeFaults?: NodeFaults;
  /**
   * The size at which a container's log file is rotated, as the kubelet's containerLogMaxSize
   * (default 10 MiB): reads without `follow` see only the current file (log-rotation.ts).
   */
  logLimitBytes?: number;
  /** Where every timestamp and reported duration comes from; default the system clock. Timers stay real. */
  now?: Clock;
  /**
   * Labels of the node (there is one, `embedded-node`), over the EKS-like defaults of
   * node-labels.ts (`kubernetes.io/os: linux`, this machine's `kubernetes.io/arch`, a zone, a
   * region, an instance type): e.g. `{'kubernetes.io/arch': 'arm64'}` or a node group's label.
   */
  nodeLabels?: Record<string, string>;
  /**
   * Play a node autoscaler (autoscaler.ts): the node is not registered at start, and joins
   * `scaleUpDelayMs` after a pod that fits it cannot be placed (cluster-autoscaler's
   * TriggeredScaleUp on the pod), again after it was deleted; a pod it could never take gets
   * NotTriggerScaleUp. Without it the node is there from the start and for good.
   */
  autoscaler?: AutoscalerOptions;
  /**
   * Play EKS Pod Identity (pod-identity-webhook.ts, pod-identity-agent.ts): a pod of an associated
   * service account gets AWS_CONTAINER_CREDENTIALS_FULL_URI, AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE
   * and its token, and the agent answers it with `credentials` of the association's role.
   */
  podIdentity?: PodIdentityOptions;
}

export interface EmbeddedCluster {
  /** http://127.0.0.1:PORT */
  url: string;
  /** The temporary folder holding volumes and the containers' own directories; stop() removes it. */
  stateDir: string;
  kubeConfig(): KubeConfig;
  /** A kubeconfig file's content, usable by kubectl; its cluster names the catalog registry. */
  kubeconfigYaml(): string;
  /** The image catalog as a registry on loopback (catalog-registry.ts). */
  registry: CatalogRegistry;
  /** What runs the containers: `docker` or `process`. */
  runtime: ContainerRuntime['kind'];
  /** This machine's address as the pods reach it (ContainerRuntime.hostAddress). */
  hostAddress: string;
  /**
   * With `podIdentity`: EKS Auth's AssumeRoleForPodIdentity as the cluster's agent asks it (pod-identity-agent.ts),
   * for a caller holding a pod-bound token of its own (TokenRequest); rejects with the refusal's code as its name.
   */
  assumeRoleForPodIdentity?: (token: string) => Promise<PodIdentityCredentials>;
  /** Kills step processes, ends watches, closes the server and removes the state folder. */
  stop(): Promise<void>;
}

const DEFAULT_CATALOG = new URL('./images/catalog.json', import.meta.url);

/**
 * What a step process inherits from the host in process mode; everything else comes from the pod's env. Not HOME
 * (each container gets a home of its own: runtime/process/process-runtime.ts), nor the user's name.
 */
const INHERITED_ENV = ['PATH', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'SHELL', 'TZ'];

async function loadCatalogFile(file: string | URL): Promise<CatalogEntry[]> {
  const name = file instanceof URL ? file.pathname : file;
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`${name}: cannot read image catalog: ${(error as Error).message}`);
  }
  return parseCatalogDocument(json, name);
}

export async function startEmbeddedCluster(options: EmbeddedClusterOptions = {}): Promise<EmbeddedCluster> {
  const entries = [
    ...(await loadCatalogFile(DEFAULT_CATALOG)),
    ...(await Promise.all((options.catalogFiles ?? []).map((f) => loadCatalogFile(f)))).flat(),
    ...(options.images ? parseCatalogDocument({ images: options.images }, 'options.images') : []),
  ];
  const now = options.now ?? systemClock;
  const store = new ObjectStore(now);
  const context: ApiContext = { store, now, ...(options.nodeFaults?.mutatePod ? { mutatePod: options.nodeFaults.mutatePod } : {}) };
  for (const namespace of new Set(['default', ...(options.namespaces ?? [])])) {
    createObject(context, RESOURCES.namespaces!, undefined, { metadata: { name: namespace } });
  }
  for (const storageClass of STORAGE_CLASSES) createObject(context, RESOURCES.storageclasses!, undefined, storageClass);
  const stateDir = await mkdtemp(join(tmpdir(), 'step-runner-cluster-'));
  const dirs = new NodeDirs(stateDir);
  const timings = { ...DEFAULT_TIMINGS, ...options.timings };
  const events = new EventRecorder(store, NODE_NAME, now);

  const host = options.host ?? '127.0.0.1';
  const baseEnv: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value !== undefined) baseEnv[name] = value;
  }
  const catalog = buildCatalog(entries);
  const registry = await startCatalogRegistry(catalog, host);
  const architecture = kubernetesArch(process.arch);
  const nodeIP = '127.0.0.1';
  const choice = options.runtime ?? { kind: 'process' };
  let runtime: ContainerRuntime;
  try {
    runtime =
      choice.kind === 'docker'
        ? // Loaded only when asked for: the Docker client is the larger part of a start in process mode.
          await (
            await import('./runtime/docker/docker-runtime.js')
          ).createDockerRuntime({
            socketPath: choice.socketPath,
            ...(choice.sandboxImage ? { sandboxImage: choice.sandboxImage } : {}),
            ...(choice.network ? { network: choice.network } : {}),
            ...(choice.helperImage ? { helperImage: choice.helperImage } : {}),
          })
        : createProcessRuntime({ puller: new ImagePuller(catalog), workspace: options.workspace ?? process.cwd(), baseEnv, nodeIP, timings });
  } catch (error) {
    await registry.stop();
    await rm(stateDir, { recursive: true, force: true });
    throw error;
  }
  try {
    // A cluster killed before its stop() left containers behind; they carry its labels.
    await runtime.removeLeftovers();
  } catch (error) {
    // The runtime holds connections (Docker's event stream) that would keep this process alive.
    await runtime.close();
    await registry.stop();
    await rm(stateDir, { recursive: true, force: true });
    throw error;
  }
  // The apiserver's service account token issuer (what a projected serviceAccountToken holds).
  const tokens = new TokenIssuer('https://kubernetes.default.svc');
  context.tokens = tokens;
  let agent: PodIdentityAgent | undefined;
  if (options.podIdentity) {
    try {
      // Where the pods reach this machine: loopback for processes, the network's gateway under Docker,
      // whose pods call 169.254.170.23 as on EKS (the runtime forwards it).
      agent = await startPodIdentityAgent(options.podIdentity, { store, tokens, now }, runtime.hostAddress, runtime.kind === 'docker');
    } catch (error) {
      await runtime.close();
      await registry.stop();
      await rm(stateDir, { recursive: true, force: true });
      throw error;
    }
    const webhookAgent = agent;
    context.podIdentityWebhook = (pod, namespace) => {
      if (webhookAgent.associated(namespace, pod.spec.serviceAccountName || 'default')) injectPodIdentity(pod, webhookAgent.uri);
    };
  }
  const removeTree = (path: string) => runtime.removeNodeTree(path);
  const controllers = [
    startPersistentVolumeController({ store, events }, new VolumeProvisioner({ store, events, dirs, timings, nodeName: NODE_NAME, removeTree })),
    startClaimProtection(store),
    startPodGc({ store, now, quarantineMs: timings.podGcQuarantineMs }),
  ];
  const labels = { ...defaultNodeLabels(NODE_NAME, architecture), ...options.nodeLabels };
  const kubelet = new Kubelet({
    store,
    events,
    runtime,
    timings,
    nodeName: NODE_NAME,
    nodeIP,
    labels,
    architecture,
    capacity: NODE_CAPACITY,
    dirs,
    logLimitBytes: options.logLimitBytes ?? DEFAULT_LOG_LIMIT_BYTES,
    now,
    ...(options.nodeFaults?.holdCreating ? { holdCreating: options.nodeFaults.holdCreating } : {}),
    tokens,
    ...(agent ? { podIdentityAgent: { host: agent.host, port: agent.port } } : {}),
  });
  if (options.autoscaler) {
    controllers.push(
      startAutoscaler({
        store,
        events,
        now,
        template: { name: NODE_NAME, labels, capacity: NODE_CAPACITY },
        registerNode: () => kubelet.registerNode(),
        scaleUpDelayMs: options.autoscaler.scaleUpDelayMs ?? DEFAULT_SCALE_UP_DELAY_MS,
      }),
    );
  }
  kubelet.start({ registerNode: !options.autoscaler });

  const api = createApiServer({ context, logs: kubelet.logs, exec: kubelet.exec, faults: options.faults });
  await new Promise<void>((resolve, reject) => {
    api.server.once('error', reject);
    api.server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = api.server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let stopping: Promise<void> | undefined;
  return {
    url,
    stateDir,
    kubeConfig: () => kubeConfigFor(url),
    // Only the process runner pulls from the catalog; a Docker node pulls from the images' own registries.
    kubeconfigYaml: () => kubeconfigYaml(url, runtime.kind === 'process' ? registry.url : undefined),
    registry,
    ...(agent ? { assumeRoleForPodIdentity: agent.assumeRoleForPodIdentity } : {}),
    runtime: runtime.kind,
    hostAddress: runtime.hostAddress,
    stop: () => {
      stopping ??= (async () => {
        await kubelet.stop();
        await Promise.all(controllers.map((c) => c.stop()));
        events.stop();
        api.closeStreams();
        const closed = new Promise<void>((resolve) => api.server.close(() => resolve()));
        api.server.closeAllConnections();
        await closed;
        await registry.stop();
        await agent?.close();
        await runtime.removeNodeTree(stateDir);
        await runtime.close();
      })();
      return stopping;
    },
  };
}
