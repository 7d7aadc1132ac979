/**
 * A container spec as the Docker Engine API creates it, the way Kubernetes' CRI runtimes
 * (dockershim, cri-dockerd) translate a pod's container: the kubelet's resolved command line, the
 * pod's env over the image's, the sandbox's network and IPC namespaces, the volumes as binds, and
 * the security context and limits as the daemon's HostConfig. Pure.
 */
import type Docker from 'dockerode';
import { parseQuantity } from '../../quantity.js';
import { effectiveSecurityContext, type EffectiveSecurityContext } from '../../security-context.js';
import type { ContainerMount, ContainerSpec } from '../container-runtime.js';
import { ContainerTypes, dockerContainerName, podLabels, type Owner } from './labels.js';

/** The spec asks for what this runtime cannot do; the kubelet reports it as CreateContainerError. */
export class UnsupportedContainerConfigError extends Error {
  override name = 'UnsupportedContainerConfigError';
}

export type ContainerConfigInput = Pick<ContainerSpec, 'pod' | 'container' | 'image' | 'argv' | 'env' | 'mounts'>;

/**
 * Docker's User: runAsUser[:runAsGroup]. A group alone keeps the image's user (as containerd does),
 * root when the image names none.
 */
function user(context: EffectiveSecurityContext, imageUser: string | undefined): string | undefined {
  if (context.runAsUser === undefined && context.runAsGroup === undefined) return undefined;
  const uid = context.runAsUser !== undefined ? String(context.runAsUser) : (imageUser ?? '').split(':')[0] || '0';
  return context.runAsGroup !== undefined ? `${uid}:${context.runAsGroup}` : uid;
}

function groups(context: EffectiveSecurityContext): string[] | undefined {
  const all = [...(context.fsGroup !== undefined ? [context.fsGroup] : []), ...(context.supplementalGroups ?? [])];
  return all.length > 0 ? [...new Set(all)].map(String) : undefined;
}

/**
 * Docker's seccomp option. Unset is unconfined, as the kubelet (without --seccomp-default) and
 * dockershim run it; RuntimeDefault is Docker's own default profile.
 */
function seccomp(context: EffectiveSecurityContext, containerName: string): string[] {
  const profile = context.seccompProfile?.type;
  if (profile === 'RuntimeDefault') return [];
  if (profile === undefined || profile === 'Unconfined') return ['seccomp=unconfined'];
  if (profile === 'Localhost') {
    throw new UnsupportedContainerConfigError(
      `container "${containerName}": seccomp profile "localhost/${context.seccompProfile?.localhostProfile ?? ''}" is not supported by the embedded cluster's Docker runtime`,
    );
  }
  throw new UnsupportedContainerConfigError(`container "${containerName}": unknown seccomp profile type "${profile}"`);
}

function limits(container: ContainerConfigInput['container']): Pick<Docker.HostConfig, 'Memory' | 'MemorySwap' | 'NanoCpus'> {
  const out: Pick<Docker.HostConfig, 'Memory' | 'MemorySwap' | 'NanoCpus'> = {};
  const memory = container.resources?.limits?.memory;
  if (memory !== undefined) {
    const bytes = parseQuantity(memory);
    if (bytes === undefined) throw new UnsupportedContainerConfigError(`container "${container.name}": memory limit "${memory}" is not a quantity`);
    // Kubernetes rounds a fractional quantity up to whole bytes; swap equal to memory is no swap.
    out.Memory = Math.ceil(bytes);
    out.MemorySwap = out.Memory;
  }
  const cpu = container.resources?.limits?.cpu;
  if (cpu !== undefined) {
    const cores = parseQuantity(cpu);
    if (cores === undefined) throw new UnsupportedContainerConfigError(`container "${container.name}": cpu limit "${cpu}" is not a quantity`);
    out.NanoCpus = Math.ceil(cores * 1e9);
  }
  return out;
}

export function bind(mount: ContainerMount): string {
  return `${mount.hostPath}:${mount.containerPath}${mount.readOnly ? ':ro' : ''}`;
}

/**
 * The create request. `argv` goes whole into Entrypoint with an empty Cmd: the daemon fills in the
 * image's CMD only when Entrypoint is empty, so nothing of the image's is appended to it.
 */
export function containerCreateOptions(input: ContainerConfigInput, sandboxId: string, owner: Owner, attempt = 0): Docker.ContainerCreateOptions {
  const { pod, container } = input;
  const context = effectiveSecurityContext(pod, container);
  const securityOpt = [...seccomp(context, container.name), ...(context.allowPrivilegeEscalation === false ? ['no-new-privileges'] : [])];
  const hostConfig: Docker.HostConfig = {
    NetworkMode: `container:${sandboxId}`,
    IpcMode: `container:${sandboxId}`,
    Binds: input.mounts.map(bind),
    ReadonlyRootfs: context.readOnlyRootFilesystem === true,
    Privileged: false,
    ...limits(container),
    ...(context.capabilities?.add?.length ? { CapAdd: context.capabilities.add } : {}),
    ...(context.capabilities?.drop?.length ? { CapDrop: context.capabilities.drop } : {}),
    ...(securityOpt.length > 0 ? { SecurityOpt: securityOpt } : {}),
  };
  const groupAdd = groups(context);
  if (groupAdd !== undefined) hostConfig.GroupAdd = groupAdd;
  const runAs = user(context, input.image.config.user);
  return {
    name: dockerContainerName(pod, container.name, attempt),
    Image: container.image,
    Entrypoint: input.argv,
    Cmd: [],
    Env: Object.entries(input.env).map(([name, value]) => `${name}=${value}`),
    ...(container.workingDir ? { WorkingDir: container.workingDir } : {}),
    ...(runAs !== undefined ? { User: runAs } : {}),
    Labels: podLabels(pod, container.name, ContainerTypes.container, owner, sandboxId),
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    OpenStdin: false,
    HostConfig: hostConfig,
  };
}
