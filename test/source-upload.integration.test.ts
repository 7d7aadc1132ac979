/**
 * The sending side of an uploaded source (lib/local/source/source-upload.ts), on the embedded cluster:
 * it goes only to pods that check out, once their clone container runs, and tells the person
 * running the build when it cannot send, rather than leaving the clone to wait in silence.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { sourceUploader } from '../lib/local/source/source-upload.js';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { waitFor } from './fixtures/wait-for.js';

const NS = 'upload';
const kube = embeddedClusterForFile(NS);

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
  await kube.api.createNamespacedPod({ namespace: NS, body });
  await waitFor(
    async () => (await kube.api.readNamespacedPod({ namespace: NS, name })).status?.containerStatuses?.[0]?.state?.running,
    { timeoutMs: 10_000, what: `pod ${name} running` },
  );
}

test('says why it could not send, naming the pod', async () => {
  await runningPod('clone-a');
  const lines: string[] = [];
  const uploader = sourceUploader({ kubeConfig: kube.cluster.kubeConfig(), url: 'file:///no/such/snapshot.git', depth: 1, report: (l) => lines.push(l), pollMs: 20 });
  uploader.onEvent(launched('clone-a', 'clone', 'clone'));
  await uploader.dispose();
  expect(lines).toEqual([expect.stringMatching(/^Could not send the source to pod clone-a: could not pack the source: fatal: '\/no\/such\/snapshot.git' does not appear to be a git repository; fatal: Could not read from remote repository.$/)]);
});

test('sends nothing to a step that does not check out, nor to a pod that is gone', async () => {
  const lines: string[] = [];
  const uploader = sourceUploader({ kubeConfig: kube.cluster.kubeConfig(), url: 'file:///no/such/snapshot.git', depth: 1, report: (l) => lines.push(l), pollMs: 20 });
  uploader.onEvent(launched('test-pod', 'test', 'clone'));
  uploader.onEvent(launched('never-made', 'clone', 'clone'));
  uploader.onEvent({ type: 'StateEntered', timestamp: Date.now(), state: { name: 'LaunchStep', type: 'Task' } });
  await uploader.dispose();
  expect(lines).toEqual([]);
});
