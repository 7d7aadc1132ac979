/**
 * Process mode keeps a container's stdout and stderr in the order written, by line, as a CRI
 * runtime's FIFO and a terminal do: `echo out1; echo err1 >&2; echo out2` logs out1, err1, out2,
 * every time (a runner reading two pipes would sometimes put err1 after out2).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { waitFor } from './fixtures/wait-for.js';

const NS = 'output-order';
const kube = embeddedClusterForFile(NS);

async function logOf(name: string, script: string): Promise<string> {
  const body: V1Pod = { metadata: { name }, spec: { restartPolicy: 'Never', containers: [{ name: 'step', image: 'alpine:3.20', command: ['/bin/sh', '-c', script] }] } };
  await kube.api.createNamespacedPod({ namespace: NS, body });
  await waitFor(async () => ['Succeeded', 'Failed'].includes((await kube.api.readNamespacedPod({ name, namespace: NS })).status?.phase ?? ''), { timeoutMs: 15_000, what: `pod ${name} to end` });
  return kube.api.readNamespacedPodLog({ name, namespace: NS, container: 'step' });
}

test('stdout and stderr lines stay in the order written, pod after pod', async () => {
  const logs = [];
  for (let i = 0; i < 20; i++) logs.push(await logOf(`order-${i}`, 'echo out1; echo err1 >&2; echo out2'));
  expect(logs).toEqual(Array(20).fill('out1\nerr1\nout2\n'));
});

test('so do writes to /dev/stdout and /dev/stderr by path, and a burst is kept whole', async () => {
  expect(await logOf('by-path', 'echo a > /dev/stdout; echo b > /dev/stderr; echo c')).toBe('a\nb\nc\n');
  const burst = await logOf('burst', 'i=0; while [ $i -lt 2000 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done');
  const expected = Array.from({ length: 2000 }, (_, i) => `out ${i}\nerr ${i}\n`).join('');
  expect(burst).toBe(expected);
});
