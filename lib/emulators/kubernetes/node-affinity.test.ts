import { matchesNodeSelection, type NodeIdentity } from './node-affinity.js';
import type { NodeSelectorTerm, Pod } from './objects.js';

const node: NodeIdentity = { name: 'embedded-node', labels: { 'kubernetes.io/hostname': 'embedded-node', 'kubernetes.io/os': 'linux', cores: '4' } };

function pod(terms?: NodeSelectorTerm[], nodeSelector?: Record<string, string>): Pod {
  return {
    metadata: { name: 'p' },
    spec: {
      containers: [{ name: 'step', image: 'alpine' }],
      ...(nodeSelector ? { nodeSelector } : {}),
      ...(terms ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } } : {}),
    },
  };
}

const hostname = (operator: 'In' | 'NotIn', ...values: string[]): NodeSelectorTerm => ({
  matchExpressions: [{ key: 'kubernetes.io/hostname', operator, values }],
});

test.each([
  ['no affinity at all', pod(), true],
  ['pinned to this node', pod([hostname('In', 'embedded-node')]), true],
  ['pinned to another node', pod([hostname('In', 'ip-10-0-1-23.ec2.internal')]), false],
  ['another node in one term, this one in the next (terms are ORed)', pod([hostname('In', 'other'), hostname('In', 'embedded-node')]), true],
  ['NotIn this node', pod([hostname('NotIn', 'embedded-node')]), false],
  ['NotIn on a label the node lacks', pod([{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }]), true],
  ['Exists and DoesNotExist in one term (ANDed)', pod([{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'Exists' }, { key: 'gpu', operator: 'DoesNotExist' }] }]), true],
  ['Gt compares integers', pod([{ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['2'] }] }]), true],
  ['Lt compares integers', pod([{ matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['4'] }] }]), false],
  ['an empty term matches nothing', pod([{}]), false],
  ['matchFields on metadata.name', pod([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['embedded-node'] }] }]), true],
  ['a nodeSelector the node has', pod(undefined, { 'kubernetes.io/os': 'linux' }), true],
  ['a nodeSelector the node lacks', pod(undefined, { 'kubernetes.io/os': 'windows' }), false],
])('%s', (_title, subject, matches) => {
  expect(matchesNodeSelection(subject, node)).toBe(matches);
});
