/**
 * The Docker runtime: the kubelet's ContainerRuntime on the Docker Engine API (dockerode over the
 * daemon's unix socket), doing what cri-dockerd does for a real kubelet. A pod is a sandbox
 * container holding its network, and its containers join it; each container is attached before it
 * starts so its log is whole, and removed once it has ended and its log is complete.
 */
import { Agent } from 'node:http';
import { hostname } from 'node:os';
import { inspect } from 'node:util';
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import { RuntimeKinds, type ContainerRuntime, type ContainerSpec, type ContainerStart, type PodSandbox, type PullResult, type RegistryAuth, type RuntimeImage, type SandboxSpec } from '../container-runtime.js';
import { UnsupportedContainerConfigError, containerCreateOptions } from './container-config.js';
import { daemonError } from './daemon-errors.js';
import { removeLeftovers } from './leftovers.js';
import { DEFAULT_HELPER_IMAGE, removeNodeTree } from './node-tree.js';
import { OomEvents } from './oom-events.js';
import { DockerLabels, ownerLabel, type Owner } from './labels.js';
import { pipeToLog } from './log-stream.js';
import { networkGateway, sandboxIP, sandboxNetwork } from './network.js';
import { OpenHandles } from './open-handles.js';
import { presentImage, pullImage } from './pull.js';
import { DockerContainer } from './running-container.js';
import { DEFAULT_SANDBOX_IMAGE, sandboxCreateOptions } from './sandbox-config.js';
import { FORWARD_CONTAINER_NAME, FORWARD_READY, forwardCreateOptions } from './pod-identity-forward.js';

export interface DockerRuntimeOptions {
  socketPath: string;
  /** The pause image each pod's sandbox runs; pulled when the node lacks it. */
  sandboxImage?: string;
  /** The Docker network sandboxes join; default: `bridge`, else one of ours (network.ts). */
  network?: string;
  /** Labels the containers, for a process that runs several clusters. */
  clusterId?: string;
  /** Has sh and rm: empties node folders that containers filled with root's files (node-tree.ts). */
  helperImage?: string;
}

/** A pod's sandbox could not be made; words as cri-dockerd's RunPodSandbox error. */
export class SandboxError extends Error {
  override name = 'SandboxError';
}

class DockerSandbox implements PodSandbox {
  /** The pod's EKS Pod Identity forward (pod-identity-forward.ts): it holds the sandbox's network too, so it goes first. */
  forwardId?: string;

  constructor(
    private readonly docker: Docker,
    readonly id: string,
    readonly podIP: string,
  ) {}

  async remove(): Promise<void> {
    if (this.forwardId !== undefined) {
      await this.docker
        .getContainer(this.forwardId)
        .remove({ force: true })
        .catch((error: { statusCode?: number }) => {
          if (error.statusCode !== 404) throw error;
        });
    }
    await this.docker
      .getContainer(this.id)
      .remove({ force: true })
      .catch((error: { statusCode?: number }) => {
        if (error.statusCode !== 404) throw error;
      });
  }
}

const podName = (spec: { pod: SandboxSpec['pod'] }) => `${spec.pod.metadata.namespace ?? 'default'}/${spec.pod.metadata.name ?? ''}`;

class DockerRuntime implements ContainerRuntime {
  readonly kind = RuntimeKinds.docker;
  private readonly handles = new OpenHandles();
  /** Per pod uid and container name: how many times it has been made, for a unique Docker name. */
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly docker: Docker,
    private readonly agent: Agent,
    private readonly socketPath: string,
    readonly version: string,
    private readonly network: string,
    readonly hostAddress: string,
    private readonly sandboxImage: string,
    private readonly owner: Owner,
    private readonly helperImage: string,
    private readonly oom: OomEvents,
  ) {}

  presentImage(image: string): Promise<RuntimeImage | undefined> {
    return presentImage(this.docker, image);
  }

  pullImage(image: string, auth?: RegistryAuth): Promise<PullResult> {
    return pullImage(this.docker, this.socketPath, image, auth);
  }

  private attempt(uid: string, name: string): number {
    const key = `${uid}/${name}`;
    const next = this.attempts.get(key) ?? 0;
    this.attempts.set(key, next + 1);
    return next;
  }

  private async ensureSandboxImage(spec: SandboxSpec): Promise<void> {
    if (await presentImage(this.docker, this.sandboxImage)) return;
    const pulled = await pullImage(this.docker, this.socketPath, this.sandboxImage);
    if (!pulled.ok) throw new SandboxError(`failed pulling image "${this.sandboxImage}" for pod "${podName(spec)}": ${pulled.error}`);
  }

  async runPodSandbox(spec: SandboxSpec): Promise<PodSandbox> {
    await this.ensureSandboxImage(spec);
    const options = sandboxCreateOptions(spec, { image: this.sandboxImage, network: this.network, owner: this.owner, attempt: this.attempt(spec.pod.metadata.uid ?? '', 'POD') });
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer(options);
    } catch (error) {
      throw new SandboxError(`failed to create a sandbox for pod "${podName(spec)}": ${daemonError(error, this.socketPath)}`);
    }
    const sandbox = (ip: string) => new DockerSandbox(this.docker, container.id, ip);
    let made: DockerSandbox | undefined;
    try {
      await container.start();
      const ip = sandboxIP(await container.inspect(), this.network);
      if (ip === undefined) throw new SandboxError(`sandbox container for pod "${podName(spec)}" has no IP address on network "${this.network}"`);
      made = sandbox(ip);
      if (spec.podIdentityAgent) await this.startPodIdentityForward(spec, spec.podIdentityAgent, made);
      return made;
    } catch (error) {
      await (made ?? sandbox('')).remove().catch(() => {});
      if (error instanceof SandboxError) throw error;
      throw new SandboxError(`failed to start sandbox container for pod "${podName(spec)}": ${daemonError(error, this.socketPath)}`);
    }
  }

  /** 169.254.170.23:80 of the pod's network forwarded to the agent; resolves once it listens. */
  private async startPodIdentityForward(spec: SandboxSpec, agent: { host: string; port: number }, sandbox: DockerSandbox): Promise<void> {
    if (!(await presentImage(this.docker, this.helperImage))) {
      const pulled = await pullImage(this.docker, this.socketPath, this.helperImage);
      if (!pulled.ok) throw new SandboxError(`failed pulling image "${this.helperImage}" for the EKS Pod Identity Agent's address in pod "${podName(spec)}": ${pulled.error}`);
    }
    const options = forwardCreateOptions(spec, agent, sandbox.id, this.helperImage, this.owner, this.attempt(spec.pod.metadata.uid ?? '', FORWARD_CONTAINER_NAME));
    const forward = await this.docker.createContainer(options);
    sandbox.forwardId = forward.id;
    const attached = (await forward.attach({ stream: true, stdout: true, stderr: true })) as unknown as Readable;
    let output = '';
    // Its own words, or its end: the script says when the address listens, or why it could not.
    const ready = new Promise<void>((resolve, reject) => {
      attached.on('data', (chunk: Buffer) => {
        output += chunk.toString('latin1');
        if (output.includes(FORWARD_READY)) resolve();
      });
      attached.on('end', () => reject(new SandboxError(`the EKS Pod Identity Agent's address could not be set up in pod "${podName(spec)}": ${output.replace(/[^\x20-\x7e\n]/g, '').trim()}`)));
      attached.on('error', reject);
    });
    // A start that fails is the error reported; the stream's end after it is no one's to catch.
    ready.catch(() => undefined);
    try {
      await forward.start();
      await ready;
    } finally {
      attached.destroy();
    }
  }

  async startContainer(spec: ContainerSpec): Promise<ContainerStart> {
    if (!(spec.sandbox instanceof DockerSandbox)) {
      return { ok: false, reason: 'CreateContainerError', message: `the pod sandbox of container "${spec.container.name}" is not a Docker runtime's` };
    }
    let options: Docker.ContainerCreateOptions;
    try {
      options = containerCreateOptions(spec, spec.sandbox.id, this.owner, this.attempt(spec.pod.metadata.uid ?? '', spec.container.name));
    } catch (error) {
      if (error instanceof UnsupportedContainerConfigError) return { ok: false, reason: 'CreateContainerError', message: error.message };
      throw error;
    }
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer(options);
    } catch (error) {
      return { ok: false, reason: 'CreateContainerError', message: daemonError(error, this.socketPath) };
    }
    const containerID = `docker://${container.id}`;
    const remove = () => container.remove({ force: true }).catch(() => {});
    // Attached before it starts: output written before an attach is in no stream.
    let attached: Readable;
    try {
      attached = (await container.attach({ stream: true, stdout: true, stderr: true })) as unknown as Readable;
    } catch (error) {
      await remove();
      return { ok: false, reason: 'CreateContainerError', message: daemonError(error, this.socketPath), containerID };
    }
    const forget = this.handles.add(() => attached.destroy());
    const logged = pipeToLog(attached, spec.log).finally(forget);
    try {
      await container.start();
    } catch (error) {
      attached.destroy();
      await logged;
      await remove();
      return { ok: false, reason: 'StartError', message: daemonError(error, this.socketPath), containerID };
    }
    return { ok: true, container: new DockerContainer({ docker: this.docker, socketPath: this.socketPath, handles: this.handles, oom: this.oom }, container, logged, () => attached.destroy()) };
  }

  removeNodeTree(path: string): Promise<void> {
    return removeNodeTree(this.docker, this.socketPath, path, this.helperImage, { [DockerLabels.owner]: ownerLabel(this.owner) });
  }

  removeLeftovers(): Promise<number> {
    return removeLeftovers(this.docker, this.owner.hostname);
  }

  async close(): Promise<void> {
    this.oom.stop();
    this.handles.closeAll();
    this.agent.destroy();
  }
}

/**
 * docker-modem formats every request's options, agent included, with `util.inspect(options,
 * {showHidden: true, depth: null})` for its debug log whether that log is on or not
 * (docker-modem 5.0.7 lib/modem.js, Modem.prototype.buildRequest). An agent walked to any depth
 * with its sockets and parsers made that most of the kubelet's CPU on Docker; this one prints its
 * name instead.
 */
class QuietAgent extends Agent {
  [inspect.custom](): string {
    return 'Agent(step-runner docker runtime)';
  }
}

export async function createDockerRuntime(options: DockerRuntimeOptions): Promise<ContainerRuntime> {
  // An agent of our own, so close() can end its sockets whatever the global agent keeps alive.
  const agent = new QuietAgent({ keepAlive: false });
  const docker = new Docker({ socketPath: options.socketPath, agent } as Docker.DockerOptions);
  try {
    const version = await docker.version();
    const network = await sandboxNetwork(docker, options.network);
    const owner: Owner = { hostname: hostname(), pid: process.pid, ...(options.clusterId !== undefined ? { clusterId: options.clusterId } : {}) };
    const oom = new OomEvents();
    await oom.start(docker, [`${DockerLabels.owner}=${ownerLabel(owner)}`]);
    const hostAddress = await networkGateway(docker, network);
    return new DockerRuntime(docker, agent, options.socketPath, `docker://${version.Version}`, network, hostAddress, options.sandboxImage ?? DEFAULT_SANDBOX_IMAGE, owner, options.helperImage ?? DEFAULT_HELPER_IMAGE, oom);
  } catch (error) {
    agent.destroy();
    throw error;
  }
}
