/**
 * The labels and platform the embedded node reports, as an EKS node's kubelet and AWS cloud
 * controller set them. The containers are local processes, but pipelines are written for Linux
 * pods on EKS, so the node says `linux` whatever this machine runs, and names this machine's
 * architecture as Go (GOARCH) and so Kubernetes spell it.
 */

export const NODE_OS = 'linux';

/** Node's process.arch -> GOARCH, where the spellings differ or Node has no other name. */
const GOARCH: Readonly<Record<string, string>> = {
  x64: 'amd64',
  ia32: '386',
  arm: 'arm',
  arm64: 'arm64',
  // Node runs on little-endian POWER only on Linux (big-endian ppc64 is AIX), and says ppc64 for it.
  ppc64: 'ppc64le',
  mipsel: 'mipsle',
  mips: 'mips',
  riscv64: 'riscv64',
  loong64: 'loong64',
  s390x: 's390x',
};

/** `kubernetes.io/arch` and `nodeInfo.architecture` for a Node.js `process.arch`; an unknown one passes as it is. */
export function kubernetesArch(nodeArch: string): string {
  return GOARCH[nodeArch] ?? nodeArch;
}

/** Where the node says it is: a real region and zone, so selectors written for EKS read naturally. */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ZONE = 'us-east-1a';

/** An EC2 type with the node's 4 vCPU and 8 GiB (kubelet.ts NODE_CAPACITY), Graviton for arm64. */
export function instanceTypeFor(arch: string): string {
  return arch === 'arm64' ? 'c6g.xlarge' : 'c5.xlarge';
}

/**
 * The labels an EKS node carries that pods select on: hostname, OS and architecture (the kubelet;
 * it still writes the `beta.kubernetes.io/` ones), instance type, zone and region (the cloud
 * controller, with the deprecated `beta.`/`failure-domain.` spellings older charts still use).
 */
export function defaultNodeLabels(nodeName: string, arch: string): Record<string, string> {
  const instanceType = instanceTypeFor(arch);
  return {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/instance-type': instanceType,
    'beta.kubernetes.io/os': NODE_OS,
    'failure-domain.beta.kubernetes.io/region': LOCAL_REGION,
    'failure-domain.beta.kubernetes.io/zone': LOCAL_ZONE,
    'kubernetes.io/arch': arch,
    'kubernetes.io/hostname': nodeName,
    'kubernetes.io/os': NODE_OS,
    'node.kubernetes.io/instance-type': instanceType,
    'topology.kubernetes.io/region': LOCAL_REGION,
    'topology.kubernetes.io/zone': LOCAL_ZONE,
  };
}
