/**
 * The embedded cluster: a Kubernetes API on loopback that @kubernetes/client-node and kubectl use
 * as they use EKS, with a simulated kubelet whose containers are local processes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { createApiServer } from './api-server.js';
import { startClaimProtection } from './claim-protection.js';
import { systemClock, type Clock } from './clock.js';
import { EventRecorder } from './events.js';
import type { FaultInjector } from './faults.js';
import { buildCatalog, parseCatalogDocument, type CatalogEntry } from './image-catalog.js';
import { ImagePuller } from './image-puller.js';
import { kubeConfigFor, kubeconfigYaml } from './kubeconfig.js';
import { startCatalogRegistry, type CatalogRegistry } from './catalog-registry.js';
import { Kubelet, NODE_CAPACITY, NODE_NAME } from './kubelet.js';
import { defaultNodeLabels, kubernetesArch } from './node-labels.js';
import { DEFAULT_LOG_LIMIT_BYTES } from './log-buffer.js';
import { NodeDirs } from './node-dirs.js';
import { startPersistentVolumeController } from './pv-controller.js';
import { createObject, type ApiContext } from './resource-handlers.js';
import { RESOURCES } from './resources.js';
import { STORAGE_CLASSES } from './storage-classes.js';
import { ObjectStore } from './store.js';
import { DEFAULT_TIMINGS, type KubeletTimings } from './timings.js';
import { VolumeProvisioner } from './volume-provisioner.js';

export type { Clock } from './clock.js';
export type { CatalogEntry } from './image-catalog.js';
export type { Fault, FaultInjector, FaultRequest } from './faults.js';
export { DEFAULT_TIMINGS, FAST_TIMINGS, type KubeletTimings } from './timings.js';
export { NODE_NAME } from './kubelet.js';
export { kubernetesArch } from './node-labels.js';
export { IMAGE_REGISTRY_EXTENSION } from './kubeconfig.js';
export type { CatalogRegistry } from './catalog-registry.js';

export interface EmbeddedClusterOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Working directory of step processes; default process.cwd(). */
  workspace?: string;
  /** Extra image catalog JSON files (same format as lib/local/images/catalog.json). */
  catalogFiles?: string[];
  /** Extra catalog entries given in code (tests). */
  images?: CatalogEntry[];
  /** How fast the simulated kubelet moves (tests make it fast: see FAST_TIMINGS). */
  timings?: Partial<KubeletTimings>;
  /** Namespaces created at start; 'default' always exists. */
  namespaces?: string[];
  /** Fault injection at the HTTP layer: answer a request with an error Status, or drop it. */
  faults?: FaultInjector;
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
  /** Kills step processes, ends watches, closes the server and removes the state folder. */
  stop(): Promise<void>;
}

/** Said on every start: the containers are not what they claim to be. */
export const LOCAL_PROCESS_NOTICE =
  'Containers run as local processes in the workspace, not inside their images: the image only has to exist in the image catalog.';

const DEFAULT_CATALOG = new URL('../images/catalog.json', import.meta.url);

/**
 * What a step process inherits from the host; everything else comes from the pod's env. Not HOME
 * (each container gets a home of its own: container-runner.ts), nor the user's name.
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
  const context: ApiContext = { store, now };
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
  const controllers = [
    startPersistentVolumeController({ store, events }, new VolumeProvisioner({ store, events, dirs, timings, nodeName: NODE_NAME })),
    startClaimProtection(store),
  ];
  const catalog = buildCatalog(entries);
  const registry = await startCatalogRegistry(catalog, host);
  const architecture = kubernetesArch(process.arch);
  const kubelet = new Kubelet({
    store,
    events,
    puller: new ImagePuller(catalog),
    timings,
    nodeName: NODE_NAME,
    nodeIP: '127.0.0.1',
    labels: { ...defaultNodeLabels(NODE_NAME, architecture), ...options.nodeLabels },
    architecture,
    capacity: NODE_CAPACITY,
    workspace: options.workspace ?? process.cwd(),
    dirs,
    baseEnv,
    logLimitBytes: options.logLimitBytes ?? DEFAULT_LOG_LIMIT_BYTES,
    now,
  });
  kubelet.start();

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
    kubeconfigYaml: () => kubeconfigYaml(url, registry.url),
    registry,
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
        await rm(stateDir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}
