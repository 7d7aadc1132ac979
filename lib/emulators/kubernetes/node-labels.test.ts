import { defaultNodeLabels, kubernetesArch } from './node-labels.js';

test.each([
  ['x64', 'amd64'],
  ['arm64', 'arm64'],
  ['ia32', '386'],
  ['arm', 'arm'],
  ['ppc64', 'ppc64le'],
  ['mipsel', 'mipsle'],
  ['riscv64', 'riscv64'],
  ['s390x', 's390x'],
  ['loong64', 'loong64'],
  ['sparc', 'sparc'],
])('process.arch %s is kubernetes.io/arch %s', (nodeArch, expected) => {
  expect(kubernetesArch(nodeArch)).toBe(expected);
});

test('the node says linux and its architecture as an EKS node does, with an instance type of its size', () => {
  expect(defaultNodeLabels('embedded-node', 'arm64')).toMatchObject({
    'kubernetes.io/hostname': 'embedded-node',
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'arm64',
    'beta.kubernetes.io/arch': 'arm64',
    'node.kubernetes.io/instance-type': 'c6g.xlarge',
    'topology.kubernetes.io/zone': 'us-east-1a',
    'topology.kubernetes.io/region': 'us-east-1',
  });
  expect(defaultNodeLabels('embedded-node', 'amd64')['node.kubernetes.io/instance-type']).toBe('c5.xlarge');
});
