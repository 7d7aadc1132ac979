/**
 * The kubelet's hold on one pod: its API object (read fresh each time, since clients and other
 * steps change it), the events about it, and the waits between steps. Once the pod is stopping,
 * waits end with an AbortError and container states stay as they are, so that termination alone
 * records how the containers ended.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { EventSpec } from './events.js';
import { formatTime, type ContainerStatus, type Pod } from './objects.js';
import type { NodeContext } from './node-context.js';
import { derivePhase, nodeConditions, sidecarNames } from './pod-status.js';
import type { StoreEvent } from './store.js';

export class PodHandle {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** The sidecars (init containers with restartPolicy Always), in declaration order. */
  readonly sidecars: readonly string[];
  private readonly sidecarSet: ReadonlySet<string>;
  private readonly stop = new AbortController();

  constructor(
    private readonly node: Pick<NodeContext, 'store' | 'events' | 'now'>,
    private readonly created: Pod,
  ) {
    this.namespace = created.metadata.namespace ?? 'default';
    this.name = created.metadata.name ?? '';
    this.uid = created.metadata.uid ?? '';
    this.sidecars = sidecarNames(created);
    this.sidecarSet = new Set(this.sidecars);
  }

  isSidecar(container: string): boolean {
    return this.sidecarSet.has(container);
  }

  get stopping(): boolean {
    return this.stop.signal.aborted;
  }

  /** Ends every wait and freezes container states. */
  markStopping(): void {
    this.stop.abort();
  }

  /** The pod as the API holds it now; undefined once it is gone (or its name was reused). */
  current(): Pod | undefined {
    const pod = this.node.store.get('pods', this.namespace, this.name) as Pod | undefined;
    return pod?.metadata.uid === this.uid ? pod : undefined;
  }

  patch(change: (pod: Pod) => void): void {
    this.node.store.update('pods', this.namespace, this.name, (draft) => change(draft as Pod), this.uid);
  }

  remove(): void {
    this.node.store.remove('pods', this.namespace, this.name, this.uid);
  }

  /** An event about the pod as it is now, or as it was when `about` was read (the scheduler's pod at the attempt). */
  event(spec: EventSpec, about?: Pod): void {
    this.node.events.record(about ?? this.current() ?? this.created, spec);
  }

  /** Now, as the API writes times. */
  stamp(): string {
    return formatTime(this.node.now());
  }

  /** Replaces one container's (or init container's) state and some status fields, then re-derives phase and conditions. */
  setContainerState(name: string, state: ContainerStatus['state'], fields: Partial<ContainerStatus> = {}): void {
    if (this.stopping) return;
    const now = this.stamp();
    // A finished init container counts as ready: it has done what the pod needed of it (a sidecar
    // is ready only while it runs).
    const sidecar = this.sidecarSet.has(name);
    const replace = (statuses: ContainerStatus[] | undefined, init: boolean) =>
      statuses?.map((s) => {
        if (s.name !== name) return s;
        const ready = init && !sidecar && state.terminated?.exitCode === 0;
        return { ...s, ...fields, state, ...(state.running ? {} : { ready, started: fields.started ?? false }) };
      });
    this.patch((p) => {
      const statuses = replace(p.status?.containerStatuses, false) ?? [];
      const initStatuses = replace(p.status?.initContainerStatuses, true);
      const phase = derivePhase(statuses, initStatuses, this.sidecarSet);
      p.status = {
        ...p.status,
        phase,
        ...(initStatuses ? { initContainerStatuses: initStatuses } : {}),
        containerStatuses: statuses,
        conditions: nodeConditions(p.status?.conditions ?? [], statuses, phase, now, initStatuses, this.sidecarSet),
      };
    });
  }

  /**
   * The end of a container whose start the pod's termination did not wait for (it began stopping
   * while the runtime was starting it, so termination found nothing to stop): written even though
   * the pod is stopping, unless termination already said how it ended; the phase it set stays.
   */
  recordLateEnd(name: string, terminated: NonNullable<ContainerStatus['state']['terminated']>): void {
    const end = (statuses: ContainerStatus[] | undefined) =>
      statuses?.map((s) => (s.name === name && !s.state.terminated ? { ...s, ready: false, started: false, state: { terminated } } : s));
    this.patch((p) => {
      if (!p.status) return;
      const initStatuses = end(p.status.initContainerStatuses);
      p.status = { ...p.status, containerStatuses: end(p.status.containerStatuses) ?? [], ...(initStatuses ? { initContainerStatuses: initStatuses } : {}) };
    });
  }

  /** Ends early (AbortError) once the pod is stopping, or `also` aborts. */
  wait(ms: number, also?: AbortSignal): Promise<void> {
    return delay(ms, undefined, { signal: also ? AbortSignal.any([this.stop.signal, also]) : this.stop.signal });
  }

  /** Until a change to the cluster that `wanted` accepts (an AbortError once the pod is stopping). */
  waitForChange(wanted: (event: StoreEvent) => boolean): Promise<void> {
    const { signal } = this.stop;
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const finish = (settle: () => void) => {
        unsubscribe();
        signal.removeEventListener('abort', aborted);
        settle();
      };
      const aborted = () => finish(() => reject(signal.reason));
      const unsubscribe = this.node.store.subscribe((event) => {
        if (wanted(event)) finish(resolve);
      });
      signal.addEventListener('abort', aborted, { once: true });
    });
  }
}
