import { Watch, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { fieldSelector } from './field-selector.js';

export interface WatchedPod {
  /** The last version the watch delivered; null once the pod was deleted. */
  pod: V1Pod | null;
  /** True when `until` said yes; false when the time ran out first. */
  settled: boolean;
  /**
   * A deleted pod's last state, as the DELETED event carries it: what a pod that is gone can
   * still say of why (an eviction's DisruptionTarget condition).
   */
  lastState?: V1Pod;
}

/** How long a watch may take to deliver the pod as it is before it is taken not to exist. */
export const FIRST_EVENT_MS = 2_000;

/**
 * Holds one watch on one pod until `until(pod)` is true or `timeoutMs` passes. A watch without a
 * resourceVersion first delivers the pod as it is, so a single request both reads the pod and
 * waits for it to move on. Resolves undefined when the watch delivered nothing (it failed, or the
 * pod does not exist): the caller then reads the pod the plain way. `signal` ends the watch early,
 * as the time limit does.
 */
export function watchPodUntil(
  kubeConfig: KubeConfig,
  namespace: string,
  podName: string,
  until: (pod: V1Pod | null) => boolean,
  timeoutMs: number,
  signal?: AbortSignal,
  fromResourceVersion?: string,
): Promise<WatchedPod | undefined> {
  return new Promise((resolve) => {
    let seen: WatchedPod | undefined;
    let controller: AbortController | undefined;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(firstEvent);
      signal?.removeEventListener('abort', finish);
      controller?.abort();
      resolve(seen);
    };
    const timer = setTimeout(finish, timeoutMs);
    // A pod that exists is delivered at once; silence means it does not (it was deleted since the
    // last look), and the caller's plain read says so now rather than when the watch times out.
    // Resumed from a resourceVersion, the watch delivers only what changed since, so silence says nothing.
    const firstEvent = fromResourceVersion ? undefined : setTimeout(finish, Math.min(FIRST_EVENT_MS, timeoutMs));
    // Aborted (the execution it served has ended): what was seen stands, as at the time limit.
    signal?.addEventListener('abort', finish, { once: true });
    if (signal?.aborted) {
      finish();
      return;
    }
    const onEvent = (type: string, object: unknown) => {
      clearTimeout(firstEvent);
      // A resumed watch whose resourceVersion is too old (410) has nothing to say: the plain read answers.
      if (type === 'ERROR') {
        if (fromResourceVersion) finish();
        return;
      }
      if (type === 'BOOKMARK') return;
      // Watch objects arrive as plain JSON (timestamps as strings); the classifier reads both forms.
      const pod = type === 'DELETED' ? null : (object as V1Pod);
      seen = { pod, settled: until(pod), ...(type === 'DELETED' ? { lastState: object as V1Pod } : {}) };
      if (seen.settled) finish();
    };
    new Watch(kubeConfig)
      .watch(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
        {
          fieldSelector: fieldSelector({ 'metadata.name': podName }),
          timeoutSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)),
          // From where the last look saw the pod: a change since (a deletion above all) is not missed.
          ...(fromResourceVersion ? { resourceVersion: fromResourceVersion } : {}),
        },
        onEvent,
        // The server ended the watch or the connection failed: what was seen stands.
        () => finish(),
      )
      .then((c) => {
        controller = c;
        if (finished) c.abort();
      }, finish);
  });
}

/**
 * Holds one watch on the pods a label selector picks until `until(pods)` is true or `timeoutMs`
 * passes; `pods` maps each pod's name to its last version (a deleted pod leaves the map). Unlike
 * watchPodUntil, silence means nothing here: the pods waited for may not exist yet. Resolves
 * undefined when the watch could not be opened.
 */
export function watchPodsUntil(
  kubeConfig: KubeConfig,
  namespace: string,
  labelSelector: string,
  until: (pods: ReadonlyMap<string, V1Pod>) => boolean,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ pods: ReadonlyMap<string, V1Pod>; settled: boolean } | undefined> {
  return new Promise((resolve) => {
    const pods = new Map<string, V1Pod>();
    let opened = false;
    let settled = false;
    let controller: AbortController | undefined;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      controller?.abort();
      resolve(opened ? { pods, settled } : undefined);
    };
    const timer = setTimeout(finish, timeoutMs);
    signal?.addEventListener('abort', finish, { once: true });
    if (signal?.aborted) {
      finish();
      return;
    }
    const onEvent = (type: string, object: unknown) => {
      if (type === 'ERROR' || type === 'BOOKMARK') return;
      const pod = object as V1Pod;
      const name = pod.metadata?.name;
      if (!name) return;
      if (type === 'DELETED') pods.delete(name);
      else pods.set(name, pod);
      settled = until(pods);
      if (settled) finish();
    };
    new Watch(kubeConfig)
      .watch(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
        { labelSelector, timeoutSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)) },
        onEvent,
        () => finish(),
      )
      .then((c) => {
        opened = true;
        controller = c;
        if (finished) c.abort();
      }, finish);
  });
}
