import { describe, expect, it } from '@jest/globals';
import type { V1NodeSelectorTerm, V1Pod } from '@kubernetes/client-node';
import { isAwaitingNode, pinnedNode, workspaceClaim } from './classify-pod.js';
import { running, stepPod } from '../../test/fixtures/kube/builders.js';

const NODE = 'ip-10-0-12-34.eu-west-1.compute.internal';

function withTerms(terms: V1NodeSelectorTerm[]): V1Pod {
  const pod = stepPod({ startedAt: null });
  return {
    ...pod,
    spec: { ...pod.spec!, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } },
  };
}

const hostname = (values: string[], operator = 'In') => ({ key: 'kubernetes.io/hostname', operator, values });

describe('pinnedNode', () => {
  it.each([
    ['pinned as pod-manifest.ts pins a step to the workspace node', stepPod({ pinnedTo: NODE, startedAt: null }), NODE],
    ['no affinity', stepPod({ startedAt: null }), undefined],
    ['two terms are alternatives, not a pin', withTerms([{ matchExpressions: [hostname([NODE])] }, { matchExpressions: [hostname(['other'])] }]), undefined],
    ['two nodes are not one', withTerms([{ matchExpressions: [hostname([NODE, 'other'])] }]), undefined],
    ['NotIn keeps the pod off a node, it does not pin it', withTerms([{ matchExpressions: [hostname([NODE], 'NotIn')] }]), undefined],
    ['a zone is not a node', withTerms([{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1a'] }] }]), undefined],
    [
      'the hostname among other requirements still pins',
      withTerms([{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }, hostname([NODE])] }]),
      NODE,
    ],
  ] as const)('%s', (_name, pod, expected) => {
    expect(pinnedNode(pod)).toBe(expected);
  });
});

describe('workspaceClaim and isAwaitingNode', () => {
  it('reads the claim from the pod\'s volumes', () => {
    expect(workspaceClaim(stepPod({ workspaceClaim: 'ws-b-42' }))).toBe('ws-b-42');
    expect(workspaceClaim(stepPod())).toBeUndefined();
  });

  it.each([
    ['pending without a node', stepPod({ startedAt: null }), true],
    ['pending on its node', stepPod(), false],
    ['running', stepPod({ phase: 'Running', state: running(3) }), false],
    ['being deleted before it had a node', stepPod({ startedAt: null, deletedAt: 5 }), false],
  ] as const)('%s', (_name, pod, expected) => {
    expect(isAwaitingNode(pod)).toBe(expected);
  });
});
