/**
 * The sending side of an uploaded source (lib/local/source-upload.ts), on the embedded cluster:
 * it goes only to pods that check out, once their clone container runs, and tells the person
 * running the build when it cannot send, rather than leaving the clone to wait in silence.
 */
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/local/cluster/index.js';
import type { ExecutionEvent } from '../lib/local/executor.js';
import { sourceUploader } from '../lib/local/source-upload.js';
import { waitFor } from './fixtures/wait-for.js';

const NS = 'upload';
let cluster: EmbeddedCluster;
let api: CoreV1Api;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, namespaces: [NS] });
  api = cluster.kubeConfig().makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await cluster?.stop();
});

/** LaunchStep's exit as the executor reports it, for a step that checks out or not. */
function launched(podName: string, step: string, checkoutStep?: string): ExecutionEvent {
  const settings = { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120, ...(checkoutStep ? { checkoutStep } : {}) };
  return {
    type: 'StateExited',
    timestamp: Date.now(),
    state: { name: 'LaunchStep', type: 'Task', output: { namespace: NS, step: { name: step }, settings, poll: { podName } } },
  };
}

async function runningPod(name: string): Promise<void> {
  const body: V1Pod = {
    metadata: { name },
    spec: { restartPolicy: 'Never', containers: [{ name: 'step', image: 'alpine/git:v2.54.0', command: ['/bin/sh', '-c', 'sleep 30'] }] },
  };
  await api.createNamespacedPod({ namespace: NS, body });
  await waitFor(
    async () => (await api.readNamespacedPod({ namespace: NS, name })).status?.containerStatuses?.[0]?.state?.running,
    { timeoutMs: 10_000, what: `pod ${name} running` },
  );
}

test('says why it could not send, naming the pod', async () => {
  await runningPod('clone-a');
  const lines: string[] = [];
  const uploader = sourceUploader({ kubeConfig: cluster.kubeConfig(), url: 'file:///no/such/snapshot.git', commit: 'a'.repeat(40), depth: 1, report: (l) => lines.push(l), pollMs: 20 });
  uploader.onEvent(launched('clone-a', 'clone', 'clone'));
  await uploader.dispose();
  expect(lines).toEqual([expect.stringMatching(/^Could not send the source to pod clone-a: could not pack the source: fatal: '\/no\/such\/snapshot.git' does not appear to be a git repository; fatal: Could not read from remote repository.$/)]);
});

test('sends nothing to a step that does not check out, nor to a pod that is gone', async () => {
  const lines: string[] = [];
  const uploader = sourceUploader({ kubeConfig: cluster.kubeConfig(), url: 'file:///no/such/snapshot.git', commit: 'a'.repeat(40), depth: 1, report: (l) => lines.push(l), pollMs: 20 });
  uploader.onEvent(launched('test-pod', 'test', 'clone'));
  uploader.onEvent(launched('never-made', 'clone', 'clone'));
  uploader.onEvent({ type: 'StateEntered', timestamp: Date.now(), state: { name: 'LaunchStep', type: 'Task' } });
  await uploader.dispose();
  expect(lines).toEqual([]);
});
