/**
 * The labels every container of ours carries, as dockershim put them: the pod and container names
 * make `docker ps` readable and let a person find a pod's containers; the owner label lets a later
 * cluster on this machine tell what an earlier one left behind from what a live one is using.
 */
import type { Pod } from '../../objects.js';

export const DockerLabels = {
  podName: 'io.kubernetes.pod.name',
  podNamespace: 'io.kubernetes.pod.namespace',
  podUid: 'io.kubernetes.pod.uid',
  containerName: 'io.kubernetes.container.name',
  /** `podsandbox` or `container`, as dockershim's io.kubernetes.docker.type: leftovers go sandbox last. */
  type: 'io.kubernetes.docker.type',
  sandboxId: 'io.kubernetes.sandbox.id',
  /** `<hostname>:<pid>` of the process whose cluster made the container. */
  owner: 'step-runner.dev/embedded-cluster',
  /** The cluster's id, when the process runs several clusters. */
  clusterId: 'step-runner.dev/embedded-cluster-id',
} as const;

/**
 * The runner's build label (Labels.build in lib/kube/types.ts). Copied, not imported: lib/emulators/kubernetes
 * imports nothing else of the project.
 */
export const BUILD_LABEL = 'step-runner.dev/build';

/** dockershim's name for the sandbox's container. */
export const SANDBOX_CONTAINER_NAME = 'POD';

export const ContainerTypes = { sandbox: 'podsandbox', container: 'container' } as const;
export type ContainerType = (typeof ContainerTypes)[keyof typeof ContainerTypes];

/** Who made a container: this process on this host, and the cluster it belongs to. */
export interface Owner {
  hostname: string;
  pid: number;
  clusterId?: string;
}

export function ownerLabel(owner: Owner): string {
  return `${owner.hostname}:${owner.pid}`;
}

/** The owner label read back; undefined when it is not ours to judge (malformed). */
export function parseOwnerLabel(value: string | undefined): { hostname: string; pid: number } | undefined {
  const match = value === undefined ? null : /^(.*):([0-9]+)$/.exec(value);
  if (!match) return undefined;
  const pid = Number(match[2]);
  return Number.isSafeInteger(pid) && pid > 0 ? { hostname: match[1]!, pid } : undefined;
}

export function podLabels(pod: Pod, containerName: string, type: ContainerType, owner: Owner, sandboxId?: string): Record<string, string> {
  const labels: Record<string, string> = {
    [DockerLabels.podName]: pod.metadata.name ?? '',
    [DockerLabels.podNamespace]: pod.metadata.namespace ?? 'default',
    [DockerLabels.podUid]: pod.metadata.uid ?? '',
    [DockerLabels.containerName]: containerName,
    [DockerLabels.type]: type,
    [DockerLabels.owner]: ownerLabel(owner),
  };
  if (sandboxId !== undefined) labels[DockerLabels.sandboxId] = sandboxId;
  if (owner.clusterId !== undefined) labels[DockerLabels.clusterId] = owner.clusterId;
  const build = pod.metadata.labels?.[BUILD_LABEL];
  if (build !== undefined) labels[BUILD_LABEL] = build;
  return labels;
}

/** dockershim's container name, `k8s_<container>_<pod>_<namespace>_<uid>_<attempt>`. */
export function dockerContainerName(pod: Pod, containerName: string, attempt = 0): string {
  return ['k8s', containerName, pod.metadata.name ?? '', pod.metadata.namespace ?? 'default', pod.metadata.uid ?? '', String(attempt)].join('_');
}
