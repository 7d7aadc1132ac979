/**
 * Process mode (no container runtime): a container's processes run on this machine, but never
 * with the user's home. Each container gets a home of its own, as an image's filesystem gives it
 * one, so a step cannot read ~/.npmrc, ~/.aws or ~/.ssh here any more than it could on EKS; and
 * nothing of the user's name or home reaches the step's environment.
 */
import { homedir } from 'node:os';
import type { V1Pod } from '@kubernetes/client-node';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { waitFor } from './fixtures/wait-for.js';

const NS = 'process-home';
const kube = embeddedClusterForFile(NS);

const show = 'echo "HOME=$HOME"; echo "USER=${USER:-}"; touch "$HOME/mine"; ls -A "$HOME"';

async function logsOf(name: string, containers: string[]): Promise<string[]> {
  await waitFor(
    async () => {
      const pod = await kube.api.readNamespacedPod({ name, namespace: NS });
      return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' ? pod : undefined;
    },
    { timeoutMs: 15_000, what: `pod ${name} to end` },
  );
  return Promise.all(containers.map((container) => kube.api.readNamespacedPodLog({ name, namespace: NS, container })));
}

test('every container has a home of its own, never the user\'s, unless the pod sets HOME', async () => {
  const body: V1Pod = {
    metadata: { name: 'homes' },
    spec: {
      restartPolicy: 'Never',
      initContainers: [{ name: 'first', image: 'alpine:3.20', command: ['/bin/sh', '-c', show] }],
      containers: [
        { name: 'step', image: 'alpine:3.20', command: ['/bin/sh', '-c', show] },
        { name: 'given', image: 'alpine:3.20', command: ['/bin/sh', '-c', 'echo "HOME=$HOME"'], env: [{ name: 'HOME', value: '/tmp' }] },
      ],
    },
  };
  await kube.api.createNamespacedPod({ namespace: NS, body });
  const [first, step, given] = await logsOf('homes', ['first', 'step', 'given']);

  const homeOf = (log: string) => /^HOME=(.*)$/m.exec(log)?.[1];
  for (const log of [first!, step!]) {
    expect(homeOf(log)).toBeDefined();
    expect(homeOf(log)).not.toBe(homedir());
    expect(homeOf(log)!.startsWith(kube.cluster.stateDir)).toBe(true);
    expect(log).toContain('USER=\n');
    // Empty but for what the container itself wrote: nothing of the user's.
    expect(log.trim().split('\n').slice(2)).toEqual(['mine']);
  }
  expect(homeOf(first!)).not.toBe(homeOf(step!));
  expect(given).toBe('HOME=/tmp\n');
});
