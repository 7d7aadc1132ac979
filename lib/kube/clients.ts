import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { followContainerLog, readLogAfter, type OnLines } from './follow-log.js';
import type { LogPosition } from './log-position.js';
import { kubeStepCluster, type StepCluster } from './step-cluster.js';
import { watchPodsUntil, watchPodUntil, type WatchedPod } from './watch-pod.js';

export type WatchedPods = { pods: ReadonlyMap<string, V1Pod>; settled: boolean };

/** The ways the tasks reach a cluster: their requests (StepCluster), a bounded watch on one pod (or a build's), and a log read as it grows; and the API client itself, for what is no task's. */
export interface KubeClients {
  kube(): Promise<CoreV1Api>;
  cluster: StepCluster;
  /** `signal`: ends the watch early, as the time limit does (the local executor's, once its execution has ended). */
  watchPod(
    namespace: string,
    podName: string,
    until: (pod: V1Pod | null) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
    fromResourceVersion?: string,
  ): Promise<WatchedPod | undefined>;
  watchPods(
    namespace: string,
    labelSelector: string,
    until: (pods: ReadonlyMap<string, V1Pod>) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<WatchedPods | undefined>;
  followLog(
    namespace: string,
    podName: string,
    container: string,
    from: LogPosition | undefined,
    onLines: OnLines,
    signal: AbortSignal,
    options?: { follow?: boolean },
  ): Promise<LogPosition | undefined>;
  readLogAfter(namespace: string, podName: string, container: string, from: LogPosition | undefined): Promise<{ text: string; position: LogPosition | undefined }>;
}

/**
 * Clients for whatever KubeConfig `kubeConfig` answers with: an EKS one renews its token, so it is
 * asked on every call, and the API client is rebuilt only when the KubeConfig it answers changes.
 */
export function kubeClients(kubeConfig: () => Promise<KubeConfig>): KubeClients {
  let last: { config: KubeConfig; api: CoreV1Api } | undefined;
  const kube = async () => {
    const config = await kubeConfig();
    if (last?.config !== config) last = { config, api: config.makeApiClient(CoreV1Api) };
    return last.api;
  };
  return {
    kube,
    cluster: kubeStepCluster(kube),
    async watchPod(namespace, podName, until, timeoutMs, signal, fromResourceVersion) {
      return watchPodUntil(await kubeConfig(), namespace, podName, until, timeoutMs, signal, fromResourceVersion);
    },
    async watchPods(namespace, labelSelector, until, timeoutMs, signal) {
      return watchPodsUntil(await kubeConfig(), namespace, labelSelector, until, timeoutMs, signal);
    },
    async followLog(namespace, podName, container, from, onLines, signal, options) {
      return followContainerLog(await kubeConfig(), namespace, podName, container, from, onLines, signal, options);
    },
    async readLogAfter(namespace, podName, container, from) {
      return readLogAfter(await kubeConfig(), namespace, podName, container, from);
    },
  };
}
