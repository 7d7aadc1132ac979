/** What the simulated node gives every pod it runs: the API's store, its machinery and its settings. */
import type { Clock } from './clock.js';
import type { Pod } from './objects.js';
import type { EventRecorder } from './events.js';
import type { NodeDirs } from './node-dirs.js';
import type { ContainerRuntime } from './runtime/container-runtime.js';
import type { ObjectStore } from './store.js';
import type { TokenIssuer } from './service-account-token.js';
import type { KubeletTimings } from './timings.js';

export interface NodeContext {
  store: ObjectStore;
  events: EventRecorder;
  /** What runs the containers: Docker, or local processes (runtime/). */
  runtime: ContainerRuntime;
  timings: KubeletTimings;
  nodeName: string;
  nodeIP: string;
  /** The node object's labels (node-labels.ts defaults, with the cluster's `nodeLabels` over them). */
  labels: Record<string, string>;
  /** `nodeInfo.architecture`: this machine's, as Kubernetes spells it. */
  architecture: string;
  capacity: NodeCapacity;
  /** Where volumes and the containers' own directories are on this machine. */
  dirs: NodeDirs;
  logLimitBytes: number;
  now: Clock;
  /** faults.ts NodeFaults.holdCreating: the kubelet admits these pods, then says nothing more. */
  holdCreating?: (pod: Pod) => boolean;
  /** What the kubelet's TokenRequest gets a projected serviceAccountToken from: the apiserver's issuer. */
  tokens: TokenIssuer;
  /** The EKS Pod Identity Agent's address on this machine, when the cluster plays it (pod-identity-agent.ts). */
  podIdentityAgent?: { host: string; port: number };
}

/** What the node offers the scheduler: its allocatable resources, as a Node's status.allocatable spells them. */
export interface NodeCapacity {
  cpu: string;
  memory: string;
  pods: string;
}
