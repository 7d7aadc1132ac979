import { decideScaleUp, type NodeTemplate } from './autoscaler.js';
import type { Pod } from './objects.js';

const template: NodeTemplate = {
  name: 'embedded-node',
  labels: { 'kubernetes.io/hostname': 'embedded-node', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' },
  capacity: { cpu: '4', memory: '8Gi', pods: '110' },
};

function pod(spec: Partial<Pod['spec']> = {}, requests?: Record<string, string>): Pod {
  return { metadata: { name: 'step', namespace: 'ci' }, spec: { containers: [{ name: 'step', image: 'alpine', ...(requests ? { resources: { requests } } : {}) }], ...spec } };
}

const triggered = (from: number) => ({ reason: 'TriggeredScaleUp', message: `pod triggered scale-up: [{eks-embedded-nodes ${from}->${from + 1} (max: 1)}]` });
const notTriggered = (reasons: string) => ({ reason: 'NotTriggerScaleUp', message: `pod didn't trigger scale-up: ${reasons}` });
const arm64 = { nodeSelector: { 'kubernetes.io/arch': 'arm64' } };

test.each([
  ['a pod with no requests, no node yet', pod(), 0, false, triggered(0)],
  ['requests the node has, no node yet', pod({}, { cpu: '4', memory: '8Gi' }), 0, false, triggered(0)],
  ['a fitting pod while the node is on its way: told of that scale-up', pod({}, { cpu: '1' }), 1, true, triggered(0)],
  ['more cpu than the node group\'s nodes have', pod({}, { cpu: '8' }), 0, false, notTriggered('1 Insufficient cpu')],
  ['more cpu and memory', pod({}, { cpu: '8', memory: '64Gi' }), 0, false, notTriggered('1 Insufficient cpu, 1 Insufficient memory')],
  ['an init container larger than the node', pod({ initContainers: [{ name: 'init', image: 'alpine', resources: { requests: { memory: '16Gi' } } }] }), 0, false, notTriggered('1 Insufficient memory')],
  ['a nodeSelector the node\'s labels do not satisfy', pod(arm64), 0, false, notTriggered("1 node(s) didn't match Pod's node affinity/selector")],
  ['selector and requests both', pod(arm64, { cpu: '5' }), 0, false, notTriggered("1 node(s) didn't match Pod's node affinity/selector, 1 Insufficient cpu")],
  ['a misfit while the node is on its way: the group is at its maximum', pod({}, { cpu: '8' }), 1, true, notTriggered('1 max node group size reached')],
  ['the node is there and the pod still waits (cordoned): the group is at its maximum', pod(), 1, false, notTriggered('1 max node group size reached')],
])('%s', (_title, given, targetSize, inFlight, expected) => {
  expect(decideScaleUp(given, template, targetSize, inFlight)).toEqual(expected);
});
