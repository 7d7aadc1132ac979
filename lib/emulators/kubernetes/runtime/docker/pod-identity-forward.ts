/**
 * How a pod on the Docker runtime reaches the EKS Pod Identity Agent at 169.254.170.23:80, the
 * address EKS injects (AWS_CONTAINER_CREDENTIALS_FULL_URI). The AWS SDKs and the CLI call a
 * plain-HTTP credentials endpoint only on loopback, 169.254.170.2, 169.254.170.23 or fd00:ec2::23
 * (docs.aws.amazon.com/sdkref/latest/guide/feature-container-credentials.html), so the host's
 * address on the bridge (the network's gateway, where the agent listens) cannot be named instead.
 * On EKS the agent's own init container puts 169.254.170.23 on the node and the agent listens there
 * (aws/eks-pod-identity-agent); here each such pod's network namespace gets the address on its
 * loopback from a small container of the pod's (the helper image's busybox: `ip` with
 * CAP_NET_ADMIN, which only this container has), and `nc` forwards each connection to the agent.
 * It listens on that address alone, so a step's own server on port 80 is not in its way, and the
 * Host header goes through unchanged, as the agent checks it. Pure.
 */
import type Docker from 'dockerode';
import type { SandboxSpec } from '../container-runtime.js';
import { ContainerTypes, dockerContainerName, podLabels, type Owner } from './labels.js';

export const FORWARD_CONTAINER_NAME = 'eks-pod-identity-agent';
const ADDRESS = '169.254.170.23';
/** 169.254.170.23:80 as /proc/net/tcp writes a local address (little-endian hex), then LISTEN (0A). */
const LISTENING = '17AAFEA9:0050 00000000:0000 0A';
export const FORWARD_READY = 'pod identity forward ready';

export function forwardScript(target: { host: string; port: number }): string {
  return [
    `ip addr add ${ADDRESS}/32 dev lo || exit 1`,
    `nc -ll -p 80 ${ADDRESS} -e nc ${target.host} ${target.port} &`,
    `until grep -q '${LISTENING}' /proc/net/tcp; do usleep 10000; done`,
    `echo '${FORWARD_READY}'`,
    'wait',
  ].join('\n');
}

export function forwardCreateOptions(spec: SandboxSpec, target: { host: string; port: number }, sandboxId: string, image: string, owner: Owner, attempt: number): Docker.ContainerCreateOptions {
  return {
    name: dockerContainerName(spec.pod, FORWARD_CONTAINER_NAME, attempt),
    Image: image,
    Entrypoint: ['/bin/sh', '-c', forwardScript(target)],
    Cmd: [],
    User: '0:0',
    Labels: podLabels(spec.pod, FORWARD_CONTAINER_NAME, ContainerTypes.container, owner, sandboxId),
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    HostConfig: {
      NetworkMode: `container:${sandboxId}`,
      CapDrop: ['ALL'],
      CapAdd: ['NET_ADMIN', 'NET_BIND_SERVICE'],
      Memory: 32 * 2 ** 20,
      MemorySwap: 32 * 2 ** 20,
      AutoRemove: false,
      Privileged: false,
    },
  };
}
