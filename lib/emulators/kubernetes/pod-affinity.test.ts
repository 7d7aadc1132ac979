import type { Pod } from './objects.js';
import { mayChangePodAffinity, satisfiesPodAffinity, type AffinityPeers, type PodAffinityTerm } from './pod-affinity.js';
import type { StoreEvent } from './store.js';
import { placePod } from './scheduler.js';

const HOSTNAME = 'kubernetes.io/hostname';
const WORKSPACE = 'step-runner.dev/workspace';
const here = { [HOSTNAME]: 'embedded-node', 'topology.kubernetes.io/zone': 'us-east-1a' };
const nodes: Record<string, Record<string, string>> = {
  'embedded-node': here,
  'ip-10-0-1-23.ec2.internal': { [HOSTNAME]: 'ip-10-0-1-23.ec2.internal', 'topology.kubernetes.io/zone': 'us-east-1a' },
};
const namespaces: Record<string, Record<string, string>> = { ci: { team: 'web' }, other: { team: 'data' } };

const sameWorkspace = (claim = 'b1-workspace'): PodAffinityTerm => ({ labelSelector: { matchLabels: { [WORKSPACE]: claim } }, topologyKey: HOSTNAME });

let uid = 0;
function pod(labels: Record<string, string>, more: { node?: string; phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed'; namespace?: string; deleting?: true; terms?: PodAffinityTerm[] } = {}): Pod {
  uid += 1;
  return {
    metadata: { name: `p${uid}`, namespace: more.namespace ?? 'ci', uid: `uid-${uid}`, labels, ...(more.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: {
      containers: [{ name: 'step', image: 'alpine' }],
      ...(more.node ? { nodeName: more.node } : {}),
      ...(more.terms ? { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: more.terms } } } : {}),
    },
    ...(more.phase ? { status: { phase: more.phase } } : {}),
  } as Pod;
}

function peers(...pods: Pod[]): AffinityPeers {
  return { pods, nodeLabels: (name) => nodes[name], namespaceLabels: (name) => namespaces[name] };
}

const step = (terms: PodAffinityTerm[] = [sameWorkspace()], labels: Record<string, string> = { [WORKSPACE]: 'b1-workspace' }) => pod(labels, { terms });
const mate = (node: string | undefined, more: Parameters<typeof pod>[1] = {}, claim = 'b1-workspace') => pod({ [WORKSPACE]: claim }, { ...(node ? { node } : {}), phase: 'Running', ...more });
const elsewhere = 'ip-10-0-1-23.ec2.internal';

test.each<[string, Pod, AffinityPeers, boolean]>([
  ['no pod affinity at all', pod({}), peers(mate(elsewhere)), true],
  ['the first pod of its workspace: nothing matches, it matches itself', step(), peers(), true],
  ['several first pods: the others are not placed yet, so none counts', step(), peers(mate(undefined, { phase: 'Pending' }), mate(undefined, { phase: 'Pending' })), true],
  ['a running pod of its workspace on this node', step(), peers(mate('embedded-node')), true],
  ['a running pod of its workspace on another node', step(), peers(mate(elsewhere)), false],
  ['one beside it and one elsewhere: this node has one', step(), peers(mate(elsewhere), mate('embedded-node')), true],
  ['the one elsewhere is being deleted: it still holds the volume', step(), peers(mate(elsewhere, { deleting: true })), false],
  ['the one elsewhere has succeeded: terminal pods do not count', step(), peers(mate(elsewhere, { phase: 'Succeeded' })), true],
  ['the one elsewhere has failed: terminal pods do not count', step(), peers(mate(elsewhere, { phase: 'Failed' })), true],
  ['the one elsewhere is on a node the cluster does not have', step(), peers(mate('gone-node')), true],
  ['another workspace elsewhere does not hold this one', step(), peers(mate(elsewhere, {}, 'b2-workspace')), true],
  ['the same label in another namespace does not count (the term means its own namespace)', step(), peers(mate(elsewhere, { namespace: 'other' })), true],
  ['terms naming that namespace do count it', step([{ ...sameWorkspace(), namespaces: ['other'] }]), peers(mate(elsewhere, { namespace: 'other' })), false],
  ['a namespace selector of every namespace counts it', step([{ ...sameWorkspace(), namespaceSelector: {} }]), peers(mate(elsewhere, { namespace: 'other' })), false],
  ['a namespace selector on labels the namespace lacks does not', step([{ ...sameWorkspace(), namespaceSelector: { matchLabels: { team: 'web' } } }]), peers(mate(elsewhere, { namespace: 'other' })), true],
  ['a pod that does not match its own terms cannot be first', step([{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: HOSTNAME }]), peers(), false],
  ['... and goes where what it needs runs', step([{ labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['db', 'cache'] }] }, topologyKey: HOSTNAME }]), peers(pod({ app: 'db' }, { node: 'embedded-node', phase: 'Running' })), true],
  ['a term with no label selector matches no pod, not even its own', step([{ topologyKey: HOSTNAME }]), peers(), false],
  ['a node without the topology key fits no term, even for the first pod', step([{ ...sameWorkspace(), topologyKey: 'rack' }]), peers(), false],
  ['a wider topology: a pod elsewhere in the same zone', step([{ ...sameWorkspace(), topologyKey: 'topology.kubernetes.io/zone' }]), peers(mate(elsewhere)), true],
  ['a pod counts only when it matches every term', step([sameWorkspace(), { labelSelector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, topologyKey: HOSTNAME }]), peers(mate(elsewhere)), false],
  ['matchLabelKeys adds the pod\'s own value: another build\'s pod with the key does not count', step([{ labelSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, matchLabelKeys: ['build'], topologyKey: HOSTNAME }], { app: 'ci', build: 'b1' }), peers(pod({ app: 'ci', build: 'b2' }, { node: elsewhere, phase: 'Running' })), true],
])('%s', (_title, incoming, cluster, fits) => {
  expect(satisfiesPodAffinity(incoming, here, cluster)).toBe(fits);
});

test('the scheduler turns the node away with kube-scheduler\'s words, and a change of pods may help', () => {
  const node = { name: 'embedded-node', labels: here, capacity: { cpu: '4', memory: '8Gi', pods: '110' } };
  const placement = placePod(step(), node, () => undefined, () => undefined, peers(mate(elsewhere)));
  expect(placement).toEqual({
    fits: false,
    message: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    claimsMayHelp: false,
    nodeMayHelp: true,
    podsMayHelp: true,
  });
  expect(placePod(step(), node, () => undefined, () => undefined, peers(mate('embedded-node')))).toEqual({ fits: true, claimsToProvision: [] });
});

describe('what sends a refused pod back to the scheduler', () => {
  const running = mate('embedded-node');
  const event = (type: StoreEvent['type'], object: Pod, previous?: Pod, resource = 'pods'): StoreEvent => ({ type, resource, object, ...(previous ? { previous } : {}), resourceVersion: 1 });
  const self = step();
  test.each<[string, StoreEvent, boolean]>([
    ['another pod created', event('ADDED', running), true],
    ['another pod gone', event('DELETED', running), true],
    ['another pod bound', event('MODIFIED', running, { ...running, spec: { ...running.spec, nodeName: undefined } } as Pod), true],
    ['another pod relabelled', event('MODIFIED', running, { ...running, metadata: { ...running.metadata, labels: {} } }), true],
    ['another pod ended', event('MODIFIED', { ...running, status: { phase: 'Succeeded' } } as Pod, running), true],
    ['another pod\'s containers moving on (nothing the filter reads)', event('MODIFIED', { ...running, status: { phase: 'Running', startTime: 'now' } } as Pod, running), false],
    ['its own status written', event('MODIFIED', { ...self, status: { phase: 'Pending' } } as Pod, self), false],
    ['a namespace relabelled', event('MODIFIED', { metadata: { name: 'ci', labels: { team: 'x' } } } as unknown as Pod, { metadata: { name: 'ci', labels: {} } } as unknown as Pod, 'namespaces'), true],
    ['a claim changed', event('MODIFIED', running, running, 'persistentvolumeclaims'), false],
  ])('%s', (_title, change, retry) => {
    expect(mayChangePodAffinity(change, self.metadata.uid!)).toBe(retry);
  });
});
