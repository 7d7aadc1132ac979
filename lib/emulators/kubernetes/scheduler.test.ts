import type { PersistentVolumeClaim, Pod, StorageClass } from './objects.js';
import { placePod } from './scheduler.js';
import { STORAGE_CLASSES } from './storage-classes.js';

const node = { name: 'embedded-node', labels: { 'kubernetes.io/hostname': 'embedded-node' }, capacity: { cpu: '4', memory: '8Gi', pods: '110' } };
const classOf = (name: string): StorageClass | undefined => STORAGE_CLASSES.find((c) => c.metadata.name === name);

function claim(name: string, spec: Partial<PersistentVolumeClaim['spec']>, extra: Partial<PersistentVolumeClaim> = {}): PersistentVolumeClaim {
  return { metadata: { name, namespace: 'ci', uid: `uid-${name}` }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec }, status: { phase: 'Pending' }, ...extra };
}

const claims: Record<string, PersistentVolumeClaim> = {
  waiting: claim('waiting', { storageClassName: 'gp2' }),
  bound: claim('bound', { storageClassName: 'gp2', volumeName: 'pvc-uid-bound' }, { status: { phase: 'Bound' } }),
  'no-such-class': claim('no-such-class', { storageClassName: 'fast' }),
  'no-class': claim('no-class', { storageClassName: '' }),
  leaving: claim('leaving', { storageClassName: 'gp2' }, { metadata: { name: 'leaving', deletionTimestamp: '2026-01-01T00:00:00Z' } }),
};
const claimOf = (name: string) => claims[name];

function pod(claimNames: string[], spec: Partial<Pod['spec']> = {}): Pod {
  return {
    metadata: { name: 'step', namespace: 'ci' },
    spec: {
      containers: [{ name: 'step', image: 'alpine' }],
      volumes: claimNames.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })),
      ...spec,
    },
  };
}

const notHelpful = 'preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.';

test.each([
  ['a claim that does not exist', ['nope'], `0/1 nodes are available: persistentvolumeclaim "nope" not found. ${notHelpful}`],
  ['a claim being deleted', ['leaving'], `0/1 nodes are available: persistentvolumeclaim "leaving" is being deleted. ${notHelpful}`],
  ['a claim of an unknown class', ['no-such-class'], `0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. ${notHelpful}`],
  ['a claim of no class', ['waiting', 'no-class'], `0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. ${notHelpful}`],
])('%s: Unschedulable until its claims change', (_title, names, message) => {
  expect(placePod(pod(names), node, claimOf, classOf)).toEqual({ fits: false, message, claimsMayHelp: true });
});

test('the missing claim is reported before a later claim of the pod', () => {
  const placement = placePod(pod(['no-such-class', 'nope']), node, claimOf, classOf);
  expect(placement).toMatchObject({ message: expect.stringContaining('persistentvolumeclaim "nope" not found') });
});

test('a claim waiting for its first consumer is provisioned for this pod; a bound one is not', () => {
  expect(placePod(pod(['waiting', 'bound']), node, claimOf, classOf)).toEqual({ fits: true, claimsToProvision: [claims.waiting] });
  expect(placePod(pod(['bound']), node, claimOf, classOf)).toEqual({ fits: true, claimsToProvision: [] });
});

test('pinned to another node: Unschedulable for good, and its claims are not provisioned', () => {
  const pinned = pod(['waiting'], {
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['ip-10-0-1-23.ec2.internal'] }] }] } } },
  });
  expect(placePod(pinned, node, claimOf, classOf)).toEqual({
    fits: false,
    message: `0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. ${notHelpful}`,
    claimsMayHelp: false,
  });
});

test('requests above the node: Insufficient, and preemption finds no victims', () => {
  const big = pod([], { containers: [{ name: 'step', image: 'alpine', resources: { requests: { cpu: '8', memory: '64Gi' } } }] });
  expect(placePod(big, node, claimOf, classOf)).toEqual({
    fits: false,
    message: '0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    claimsMayHelp: false,
  });
});

const cordoned = { ...node, unschedulable: true };

test('a cordoned node turns the pod away until the node changes', () => {
  expect(placePod(pod([]), cordoned, claimOf, classOf)).toEqual({
    fits: false,
    message: `0/1 nodes are available: 1 node(s) were unschedulable. ${notHelpful}`,
    claimsMayHelp: false,
    nodeMayHelp: true,
  });
});

test.each([
  ['the unschedulable taint', [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }]],
  ['every taint', [{ operator: 'Exists' }]],
])('a pod that tolerates %s still goes to a cordoned node', (_title, tolerations) => {
  expect(placePod(pod([], { tolerations } as Partial<Pod['spec']>), cordoned, claimOf, classOf)).toEqual({ fits: true, claimsToProvision: [] });
});

describe('room the other pods on the node hold (NodeResourcesFit, fit.go fitsRequest)', () => {
  const asking = (cpu: string, uid: string, nodeName?: string, phase?: 'Running' | 'Succeeded' | 'Failed'): Pod => ({
    metadata: { name: uid, namespace: 'ci', uid },
    spec: { containers: [{ name: 'step', image: 'alpine', resources: { requests: { cpu } } }], ...(nodeName ? { nodeName } : {}) },
    ...(phase ? { status: { phase } } : {}),
  });
  const peers = (...pods: Pod[]) => ({ pods, nodeLabels: () => node.labels, namespaceLabels: () => ({}) });

  test.each([
    ['a running pod holds what it requested: Insufficient cpu, worth a retry when pods end', [asking('3', 'other', 'embedded-node', 'Running')], false],
    ['a pod that has ended holds nothing (the scheduler\'s informer does not see terminal pods)', [asking('3', 'other', 'embedded-node', 'Succeeded')], true],
    ['a pod on another node holds nothing here', [asking('3', 'other', 'elsewhere', 'Running')], true],
    ['the pod itself is not counted against itself', [asking('3', 'me', 'embedded-node', 'Running')], true],
  ])('%s', (_name, others, fits) => {
    const placement = placePod(asking('2', 'me'), node, claimOf, classOf, peers(...others));
    if (fits) expect(placement).toEqual({ fits: true, claimsToProvision: [] });
    else {
      expect(placement).toEqual({
        fits: false,
        message: '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
        claimsMayHelp: false,
        roomMayHelp: true,
      });
    }
  });

  test('a node running as many pods as its pods capacity: Too many pods', () => {
    const full = { ...node, capacity: { ...node.capacity, pods: '1' } };
    expect(placePod(asking('1', 'me'), full, claimOf, classOf, peers(asking('1', 'other', 'embedded-node', 'Running')))).toMatchObject({
      fits: false,
      message: expect.stringContaining('0/1 nodes are available: 1 Too many pods.'),
      roomMayHelp: true,
    });
  });
});
