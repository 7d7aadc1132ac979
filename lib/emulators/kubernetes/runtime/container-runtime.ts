/**
 * What the embedded kubelet asks of a container runtime, as a CRI kubelet asks containerd or
 * cri-dockerd: images (present? pull), a pod sandbox holding the pod's network, containers
 * created in it, started, stopped and exec'd into, and at start the removal of what an earlier
 * run left behind. The kubelet's code (pod-worker.ts, container-runner.ts, image-manager.ts) is
 * the same for every runtime; only this differs. Two exist: Docker (docker/), where a container
 * is the image for real, and the process runner (process/), for machines without Docker.
 */
import type { LogBuffer } from '../log-buffer.js';
import type { Container, Pod } from '../objects.js';
import type { ExecStart, ExecStdio } from '../exec-process.js';

export const RuntimeKinds = { docker: 'docker', process: 'process' } as const;
export type RuntimeKind = (typeof RuntimeKinds)[keyof typeof RuntimeKinds];

/** The parts of an image's config a container starts from (the OCI image config). */
export interface ImageConfig {
  entrypoint?: string[];
  cmd?: string[];
  /** KEY=VALUE, as the image config has them. */
  env?: string[];
  workingDir?: string;
  /**
   * `name`, `uid`, `uid:gid` or `name:group`, as USER in a Dockerfile; '' is root. Absent: not
   * known (the process runner's catalog images), so the kubelet's runAsNonRoot check cannot judge it.
   */
  user?: string;
}

/** An image on the node. */
export interface RuntimeImage {
  /** What the container status's imageID says (repository@digest, or the image's id). */
  imageID: string;
  size: number;
  config: ImageConfig;
}

export type PullResult = { ok: true; image: RuntimeImage } | { ok: false; error: string };

/** A registry login from one of the pod's imagePullSecrets, as the Engine API's X-Registry-Auth takes it. */
export interface RegistryAuth {
  username: string;
  password: string;
  serveraddress: string;
}

export interface SandboxSpec {
  pod: Pod;
  /** The pod's name: what `hostname` says in each of its containers. */
  hostname: string;
  /** spec.hostAliases: lines the pod's /etc/hosts gets. */
  hostAliases: readonly { ip: string; hostnames: readonly string[] }[];
  /**
   * The EKS Pod Identity Agent's address on this machine, for a pod the agent serves: a runtime
   * whose pods have a network of their own makes 169.254.170.23:80 of the pod's network reach it
   * there (the process runtime's pods share this machine's, and call the agent where it listens).
   */
  podIdentityAgent?: { host: string; port: number };
}

/** The pod's sandbox: its network (and hostname), which every container of the pod joins. */
export interface PodSandbox {
  /** The pod's IP: where probes dial it and what status.podIP says. */
  readonly podIP: string;
  remove(): Promise<void>;
}

/** A volume mount as the runtime makes it: the volume's directory on the node at a path in the container. */
export interface ContainerMount {
  /** Absolute, normalised. */
  containerPath: string;
  hostPath: string;
  readOnly: boolean;
}

export interface ContainerSpec {
  pod: Pod;
  container: Container;
  sandbox: PodSandbox;
  image: RuntimeImage;
  /** The command line, already resolved against the image (command/args over ENTRYPOINT/CMD) and $(VAR)-expanded. */
  argv: string[];
  /** The container's env as the pod spec gives it (Secrets and fields resolved); the image's env goes under it. */
  env: Record<string, string>;
  mounts: ContainerMount[];
  /** A directory of the node's for this container (the process runner's stand-in for its filesystem). */
  root: string;
  /** Where the container's stdout and stderr go. */
  log: LogBuffer;
}

/**
 * How a container ended. No signal: a CRI runtime reports none (a killed process is 128 + its
 * number), so the kubelet never sets `terminated.signal`, and neither does this one.
 */
export interface ContainerExit {
  exitCode: number;
  /** Set when the runtime says so: the kernel's OOM killer ended it. */
  reason?: 'OOMKilled';
  /** The runtime could not say how it ended (its daemon went away): why. */
  lost?: string;
}

export interface RunningContainer {
  /** containerStatus.containerID: `docker://…`, `containerd://…`. */
  readonly containerID: string;
  readonly exited: Promise<ContainerExit>;
  /** SIGTERM to its PID 1, SIGKILL after graceMs if it is still there. */
  stop(graceMs: number): Promise<ContainerExit>;
  /** A new process in the running container (kubectl exec, cp, the source upload). */
  exec(argv: readonly string[], stdio: ExecStdio): Promise<ExecStart>;
}

/**
 * A container that could not start: `CreateContainerConfigError` (the kubelet refused its config:
 * runAsNonRoot…), `CreateContainerError` (the runtime could not create it), `StartError` (created,
 * but its process could not start: runc's words).
 */
export type ContainerStartFailure = { ok: false; reason: 'CreateContainerConfigError' | 'CreateContainerError' | 'StartError'; message: string; containerID?: string };

export type ContainerStart = { ok: true; container: RunningContainer } | ContainerStartFailure;

export interface ContainerRuntime {
  readonly kind: RuntimeKind;
  /** nodeInfo.containerRuntimeVersion: `docker://20.10.24`. */
  readonly version: string;
  /**
   * This machine's address as the containers reach it: where a server of the local stack (the
   * cache's S3) listens for the pods. Loopback for processes; the network's gateway under Docker.
   */
  readonly hostAddress: string;
  /** The image as already on the node, without pulling; undefined when it is not. */
  presentImage(image: string): Promise<RuntimeImage | undefined>;
  /** One pull attempt, with the registry's login when a pull secret has one; failures in the runtime's own words. */
  pullImage(image: string, auth?: RegistryAuth): Promise<PullResult>;
  runPodSandbox(spec: SandboxSpec): Promise<PodSandbox>;
  /** Creates and starts a container; its output goes to spec.log until it ends. */
  startContainer(spec: ContainerSpec): Promise<ContainerStart>;
  /**
   * Removes a folder of the node's (a pod's, a volume's, the state folder), whatever its
   * containers wrote there: under Docker, files a container wrote as root in folders this
   * machine's user cannot empty.
   */
  removeNodeTree(path: string): Promise<void>;
  /** Removes what an earlier cluster on this machine left behind and can no longer remove itself; how many. */
  removeLeftovers(): Promise<number>;
  /** Ends every exec and releases the runtime's connections (containers are stopped by their pods). */
  close(): Promise<void>;
}
