import { kubeClients, markStepFinished, stepPodName } from '../../kube/index.js';
import { waitFor } from '../../../test/fixtures/wait-for.js';
import { Labels, MANAGED_BY } from '../../kube/types.js';
import { embeddedClusterForFile } from '../../../test/fixtures/embedded-cluster.js';
import type { StepInput } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';
import { NEEDS_POLL_SECONDS, waitForNeeds } from './wait-for-needs.js';
import { parseImageReference } from '../../pipeline/index.js';

describe('waiting for needs on the embedded cluster', () => {
  const env = embeddedClusterForFile('needs');
  const clients = () => kubeClients(async () => env.cluster.kubeConfig());
  const input = (runningWatchSeconds: number): StepInput => ({
    build: { id: 'b1' },
    namespace: 'needs',
    settings: { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120, runningWatchSeconds },
    step: { name: 'e2e', image: 'alpine', imageRef: parseImageReference('alpine'), commands: ['true'], env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [], needs: ['unit'] },
    index: 1,
  });
  const deps = (overrides: Partial<TaskDeps> = {}): TaskDeps => {
    const kube = clients();
    return { ...kube, logs: undefined as never, now: () => new Date(), log: { info: () => {}, warn: () => {} }, ...overrides };
  };

  it('looks again at once after a watch that lasted its time', async () => {
    const state = await waitForNeeds(input(1), deps());
    expect(state).toMatchObject({ met: false, waitingFor: ['unit'], nextPollSeconds: 0, checks: 1 });
  });

  it('waits a few seconds before looking again when no watch could be opened, rather than spin', async () => {
    const state = await waitForNeeds(input(240), deps({ watchPods: async () => undefined }));
    expect(state).toMatchObject({ met: false, waitingFor: ['unit'], nextPollSeconds: NEEDS_POLL_SECONDS });
  });

  it('answers the moment the needed step\'s succeeded pod is marked finished by its FinishStep, not before', async () => {
    const name = stepPodName('b1', 'unit');
    await env.api.createNamespacedPod({
      namespace: 'needs',
      body: {
        metadata: { name, labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: 'b1', [Labels.step]: 'unit' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'step', image: 'alpine:3.20', command: ['sh', '-c', 'true'] }] },
      },
    });
    await waitFor(async () => (await env.api.readNamespacedPod({ name, namespace: 'needs' })).status?.phase === 'Succeeded', { timeoutMs: 30_000, what: 'the pod to succeed' });
    // Succeeded, not yet finished: the watch's time (1 s) ends the look without the needs met.
    expect(await waitForNeeds(input(1), deps())).toMatchObject({ met: false, waitingFor: ['unit'] });

    const waiting = waitForNeeds(input(30), deps());
    expect(await markStepFinished(env.api, 'needs', name, new Date())).toBe(true);
    expect(await waiting).toMatchObject({ met: true, done: ['unit'], waitingFor: [], nextPollSeconds: 0 });
  });
});
