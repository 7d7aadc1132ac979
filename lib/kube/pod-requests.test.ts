import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { podRequests } from './pod-requests.js';

const container = (name: string, cpu?: string, memory?: string, restartPolicy?: 'Always'): V1Container => ({
  name,
  ...(restartPolicy ? { restartPolicy } : {}),
  resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } },
});

const pod = (containers: V1Container[], initContainers: V1Container[] = [], extra: Partial<V1Pod['spec']> = {}): V1Pod => ({ spec: { containers, initContainers, ...extra } });

// kubernetes/kubernetes staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests),
// whose own table tests these follow: the containers' sum, sidecars added, an init container's
// need beside the sidecars before it when that is larger, the overhead on top.
describe('podRequests: what the scheduler reserves for a step pod', () => {
  it.each([
    ['one container', pod([container('step', '500m', '1Gi')]), 0.5, 2 ** 30],
    ['no requests (BestEffort)', pod([container('step')]), 0, 0],
    ['two containers add up', pod([container('a', '1', '512Mi'), container('b', '250m', '256Mi')]), 1.25, 768 * 2 ** 20],
    ['a larger init container (the checkout) sets the pod', pod([container('step', '500m', '256Mi')], [container('clone', '2', '1Gi')]), 2, 2 ** 30],
    ['a sidecar (a service) adds to the containers', pod([container('step', '1', '1Gi')], [container('db', '500m', '512Mi', 'Always')]), 1.5, 1.5 * 2 ** 30],
    ['an init container after a sidecar needs room beside it', pod([container('step', '100m', '64Mi')], [container('db', '1', '1Gi', 'Always'), container('restore', '2', '2Gi')]), 3, 3 * 2 ** 30],
    ['decimal and exponent quantities', pod([container('step', '1500m', '1e9')]), 1.5, 1e9],
    ['the RuntimeClass overhead on top', pod([container('step', '1', '1Gi')], [], { overhead: { cpu: '250m', memory: '120Mi' } }), 1.25, 2 ** 30 + 120 * 2 ** 20],
  ])('%s', (_, given, cpu, memoryBytes) => {
    const requests = podRequests(given);
    expect(requests.cpu).toBeCloseTo(cpu, 9);
    expect(requests.memoryBytes).toBe(memoryBytes);
  });
});
