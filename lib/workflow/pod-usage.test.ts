import type { V1Pod } from '@kubernetes/client-node';
import { fakeStepCluster } from '../kube/fake-cluster.js';
import type { StepCluster } from '../kube/index.js';
import { podPlacement, podUsage } from './pod-usage.js';
import type { PodOnNode } from './state-data.js';
import type { TaskDeps } from './task-deps.js';

const NOW = new Date('2026-12-06T09:00:30Z');

/** A step pod as the API server answers a poll: placed or not, ended or not (times in whole seconds, as metav1.Time). */
function pod(node: string | undefined, phase: string, ends: string[] = []): V1Pod {
  return {
    metadata: { name: 'b1-test-0123abcd', namespace: 'ci' },
    spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: 'step', resources: { requests: { cpu: '2', memory: '4Gi' } } }] },
    status: {
      phase,
      ...(node ? { startTime: new Date('2026-12-06T09:00:00Z') } : {}),
      containerStatuses: ends.map((end, i) => ({ name: `c${i}`, image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, finishedAt: new Date(end) } } })),
    },
  } as V1Pod;
}

function deps(cluster: StepCluster = fakeStepCluster()) {
  const warnings: string[] = [];
  return { warnings, deps: { cluster, log: { info: () => undefined, warn: (line: string) => void warnings.push(line) } as unknown as TaskDeps['log'] } };
}

const placed: PodOnNode = { node: 'ip-10-0-1-5', instanceType: 'm7g.large', cpu: 2, memoryBytes: 4 * 2 ** 30, since: '2026-12-06T09:00:00.000Z' };

describe('where a step pod ran and what it reserved', () => {
  it.each<[string, V1Pod | null, PodOnNode | undefined, PodOnNode | undefined]>([
    ['not on a node yet: nothing', pod(undefined, 'Pending'), undefined, undefined],
    ['first seen on a node: its node, instance type, requests and the kubelet\'s acceptance', pod('ip-10-0-1-5', 'Running'), undefined, placed],
    ['ended: its last container\'s end', pod('ip-10-0-1-5', 'Succeeded', ['2026-12-06T09:02:00Z', '2026-12-06T09:02:05Z']), placed, { ...placed, until: '2026-12-06T09:02:05.000Z' }],
    ['gone: what was seen of it', null, placed, placed],
  ])('%s', async (_, seen, previous, expected) => {
    const cluster = fakeStepCluster();
    cluster.instanceTypes.set('ip-10-0-1-5', 'm7g.large');
    expect(await podPlacement(seen, previous, NOW, deps(cluster).deps)).toEqual(expected);
  });

  it('reads the node once per pod, not at every poll', async () => {
    const cluster = fakeStepCluster();
    cluster.instanceTypes.set('ip-10-0-1-5', 'm7g.large');
    const first = await podPlacement(pod('ip-10-0-1-5', 'Running'), undefined, NOW, deps(cluster).deps);
    await podPlacement(pod('ip-10-0-1-5', 'Running'), first, NOW, deps(cluster).deps);
    expect(cluster.calls.filter((call) => call.startsWith('nodeInstanceType'))).toHaveLength(1);
  });

  it('prices at the flat rate, and says so, when the node cannot be read: never a failed poll', async () => {
    const cluster = { ...fakeStepCluster(), nodeInstanceType: async () => Promise.reject(new Error('connect ECONNREFUSED')) } as StepCluster;
    const { deps: given, warnings } = deps(cluster);
    expect(await podPlacement(pod('ip-10-0-1-5', 'Running'), undefined, NOW, given)).toMatchObject({ instanceType: null });
    expect(warnings).toEqual(['The instance type of node ip-10-0-1-5 could not be read: the step is priced at the flat rate']);
  });

  it.each<[string, PodOnNode | undefined, number | undefined]>([
    ['never placed: no usage', undefined, undefined],
    ['ended: from its acceptance to its end', { ...placed, until: '2026-12-06T09:02:05.000Z' }, 125],
    ['no end seen (FinishStep came first): until FinishStep', placed, 30],
  ])('its requests for its time: %s', (_, given, seconds) => {
    const usage = podUsage('test', given, NOW);
    expect(usage?.seconds).toBe(seconds);
    if (usage) expect(usage).toEqual({ step: 'test', cpu: 2, memoryBytes: 4 * 2 ** 30, seconds, instanceType: 'm7g.large' });
  });
});
