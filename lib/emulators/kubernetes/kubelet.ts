/**
 * The simulated node: watches the store for pods and gives each one a PodWorker, passes deletions
 * on, and serves container logs and exec. Every pod runs on the single node; its restartPolicy
 * is Never (validation refuses others); only sidecars (init containers with restartPolicy Always)
 * are restarted.
 */
import type { NodeContext } from './node-context.js';
import type { KubeObject, Pod } from './objects.js';
import type { ExecSource } from './pod-exec.js';
import { NODE_OS } from './node-labels.js';
import type { LogSource } from './pod-logs.js';
import { PodWorker } from './pod-worker.js';
import type { NodeCapacity } from './node-context.js';
import type { StoreEvent } from './store.js';
import type { KubeletTimings } from './timings.js';

export const NODE_NAME = 'embedded-node';
export const NODE_CAPACITY: NodeCapacity = { cpu: '4', memory: '8Gi', pods: '110' };

export class Kubelet {
  private readonly workers = new Map<string, PodWorker>();
  private readonly pending = new Set<Promise<void>>();
  private unsubscribe: () => void = () => {};

  constructor(private readonly node: NodeContext) {}

  /** `registerNode: false`: the node joins later, when the embedded autoscaler adds it (autoscaler.ts). */
  start({ registerNode = true }: { registerNode?: boolean } = {}): void {
    if (registerNode) this.registerNode();
    this.unsubscribe = this.node.store.subscribe((event) => this.onPodEvent(event));
  }

  readonly logs: LogSource = (podUid, container, containerID) => this.workers.get(podUid)?.logOf(container, containerID);

  readonly exec: ExecSource = (podUid, container) => this.workers.get(podUid)?.execInto(container);

  async stop(): Promise<void> {
    this.unsubscribe();
    await Promise.all([...this.workers.values()].map((w) => w.shutdown()));
    await Promise.all([...this.pending]);
    this.workers.clear();
  }

  private onPodEvent(event: StoreEvent): void {
    if (event.resource !== 'pods') return;
    const pod = event.object as Pod;
    const uid = pod.metadata.uid ?? '';
    const worker = this.workers.get(uid);
    if (event.type === 'ADDED' && worker === undefined) {
      const created = new PodWorker(this.node, pod);
      this.workers.set(uid, created);
      created.start();
    } else if (event.type === 'MODIFIED' && worker && pod.metadata.deletionTimestamp && !event.previous?.metadata.deletionTimestamp) {
      this.track(worker.deletionRequested(pod.metadata.deletionGracePeriodSeconds ?? 30));
    } else if (event.type === 'DELETED' && worker) {
      this.workers.delete(uid);
      this.track(worker.removed());
    }
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch(() => {}).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Registers the node object, if it is not there (a no-op otherwise). */
  registerNode(): void {
    const { cpu, memory, pods } = NODE_CAPACITY;
    const node: KubeObject = {
      kind: 'Node',
      apiVersion: 'v1',
      metadata: { name: this.node.nodeName, labels: { ...this.node.labels } },
      spec: {},
      status: {
        capacity: { cpu, memory, pods },
        allocatable: { cpu, memory, pods },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
        addresses: [
          { type: 'InternalIP', address: this.node.nodeIP },
          { type: 'Hostname', address: this.node.nodeName },
        ],
        // Linux, as the pods it runs are Linux pods whatever this machine is (node-labels.ts).
        nodeInfo: { kubeletVersion: 'v1.33.0-embedded', containerRuntimeVersion: this.node.runtime.version, operatingSystem: NODE_OS, architecture: this.node.architecture },
      },
    };
    if (this.node.store.get('nodes', undefined, this.node.nodeName) === undefined) this.node.store.create('nodes', node);
  }
}

export type { KubeletTimings };
