/**
 * The pod sandbox as a Docker container, as dockershim made it: a pause process holding the pod's
 * network, IPC namespace, hostname and /etc/hosts, which each of the pod's containers joins. Pure.
 */
import type Docker from 'dockerode';
import type { SandboxSpec } from '../container-runtime.js';
import { ContainerTypes, SANDBOX_CONTAINER_NAME, dockerContainerName, podLabels, type Owner } from './labels.js';

export const DEFAULT_SANDBOX_IMAGE = 'registry.k8s.io/pause:3.10';

/** The pause process needs next to nothing; a bound keeps a mistaken sandbox image from growing. */
export const SANDBOX_MEMORY_BYTES = 32 * 2 ** 20;

/** The kubelet's hostname rule: at most 63 characters, without a trailing '-' or '.' after the cut. */
export function sandboxHostname(hostname: string): string {
  if (hostname.length <= 63) return hostname;
  return hostname.slice(0, 63).replace(/[-.]+$/, '');
}

/** hostAliases as Docker's ExtraHosts: `name:ip` for each hostname, in the order the pod lists them. */
export function extraHosts(aliases: SandboxSpec['hostAliases']): string[] {
  return aliases.flatMap((alias) => alias.hostnames.map((name) => `${name}:${alias.ip}`));
}

export interface SandboxConfigOptions {
  image: string;
  network: string;
  owner: Owner;
  attempt?: number;
}

export function sandboxCreateOptions(spec: SandboxSpec, options: SandboxConfigOptions): Docker.ContainerCreateOptions {
  return {
    name: dockerContainerName(spec.pod, SANDBOX_CONTAINER_NAME, options.attempt ?? 0),
    Image: options.image,
    Hostname: sandboxHostname(spec.hostname),
    Labels: podLabels(spec.pod, SANDBOX_CONTAINER_NAME, ContainerTypes.sandbox, options.owner),
    AttachStdout: false,
    AttachStderr: false,
    Tty: false,
    HostConfig: {
      NetworkMode: options.network,
      // Its containers join it (container:<id>), which Docker allows only for a shareable one.
      IpcMode: 'shareable',
      ExtraHosts: extraHosts(spec.hostAliases),
      Memory: SANDBOX_MEMORY_BYTES,
      MemorySwap: SANDBOX_MEMORY_BYTES,
      AutoRemove: false,
      Privileged: false,
    },
  };
}
