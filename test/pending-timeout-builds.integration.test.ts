/**
 * A bound on every wait (issue 35), through the real definition on the embedded cluster: a step
 * whose pod no scheduler answers, and one its kubelet leaves ContainerCreating without a word, end
 * PodStalled once their pipeline's pending-timeout has passed; on a node with no autoscaler, a step
 * the scheduler turns away for cpu that another step holds waits for it (WaitingForCapacity), past
 * the autoscaler's grace, and runs once the other ends.
 */
import { existsSync } from 'node:fs';
import { PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Pod } from '../lib/emulators/kubernetes/objects.js';
import { Labels } from '../lib/kube/types.js';
import { ConsoleOutput } from '../lib/local/console-output.js';
import type { ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import type { PollState } from '../lib/workflow/state-data.js';
import { localBuildsForFile } from './fixtures/local-builds.js';
import { waitFor } from './fixtures/wait-for.js';

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const stepOf = (pod: Pod) => pod.metadata.labels?.[Labels.step];

function polls(events: ExecutionEvent[]): PollState[] {
  return events.filter((e) => e.type === 'StateExited' && e.state?.name === 'PollStep').map((e) => (e.state?.output as { poll: PollState }).poll);
}

/** The unschedulable grace a capacity wait must outlast: a step that failed at it did not wait. */
const GRACE_SECONDS = 1;

const builds = localBuildsForFile({
  prefix: 'pending-timeout',
  // Short watches: a pod nothing happens to is looked at again every second, not every 20.
  settings: { pendingWatchSeconds: 1, unschedulableGraceSeconds: GRACE_SECONDS },
  nodeFaults: {
    // What a mutating admission webhook does to the pods it owns (Volcano's sets schedulerName).
    mutatePod: (pod) => {
      if (stepOf(pod) === 'unanswered') pod.spec.schedulerName = 'volcano';
    },
    holdCreating: (pod) => stepOf(pod) === 'silent',
  },
});

const oneStep = (name: string) => `version: 1\ncheckout: false\npending-timeout: 3s\nsteps:\n  - name: ${name}\n    image: alpine:3.20\n    commands: [echo never]\n`;

describe('a pod nothing moves about', () => {
  it.each([
    ['no scheduler answers (its schedulerName is another scheduler\'s)', 'unanswered', 'the pod names schedulerName "volcano"'],
    ['its kubelet leaves it ContainerCreating without a word', 'silent', 'ContainerCreating with no event from the kubelet on node "embedded-node"'],
  ])('ends PodStalled once its pending-timeout has passed: %s', async (_title, step, words) => {
    const { summary } = await builds.build(`stall-${step}-${Date.now().toString(36)}`, oneStep(step));
    expect(summary).toMatchObject({ status: 'FAILED', error: 'PodStalled', steps: [{ name: step, status: 'failed', error: 'PodStalled' }] });
    expect(summary.cause).toContain('pending-timeout 3s, PodStalled');
    expect(summary.cause).toContain(words);
    // Deleted as for any failed step (gracefully: it goes a moment later): nothing of it is left waiting.
    const left = async () => (await builds.api.listNamespacedPod({ namespace: 'default' })).items.filter((p) => p.metadata?.labels?.[Labels.step] === step);
    expect((await left()).every((p) => p.metadata?.deletionTimestamp)).toBe(true);
    await waitFor(async () => (await left()).length === 0, { timeoutMs: 10_000, what: `the pod of step "${step}" to be gone` });
  }, 60_000);
});

describe('a node full of another step', () => {
  it('the step that does not fit waits for capacity past the unschedulable grace, and runs once the other ends', async () => {
    const flag = path.join(builds.root, 'other-may-end');
    // Each step holds 3 of the node's 4 cpus until the flag exists: whichever is placed first keeps the other out.
    const waitsForFlag = `    needs: []\n    resources: { cpu: "3" }\n    timeout: 2m\n    commands: ['until [ -f ${flag} ]; do sleep 0.1; done']\n`;
    const pipeline = `version: 1\ncheckout: false\nsteps:\n  - name: first\n    image: alpine:3.20\n${waitsForFlag}  - name: second\n    image: alpine:3.20\n${waitsForFlag}`;
    let waited: PollState | undefined;
    const { summary, events } = await builds.build(`capacity-${Date.now().toString(36)}`, pipeline, {
      onEvent: (event) => {
        const poll = event.type === 'StateExited' && event.state?.name === 'PollStep' ? (event.state.output as { poll: PollState }).poll : undefined;
        // Once a poll past the grace still finds it waiting for capacity, the other step may end.
        if (poll?.reason === 'WaitingForCapacity' && new Date(event.timestamp).getTime() - Date.parse(poll.launchedAt) > (GRACE_SECONDS + 1) * 1000 && !waited) {
          waited = poll;
          void writeFile(flag, '');
        }
      },
    });
    expect(existsSync(flag)).toBe(true);
    expect(summary).toMatchObject({ status: 'SUCCEEDED', steps: [{ name: 'first', status: 'succeeded' }, { name: 'second', status: 'succeeded' }] });
    expect(waited).toMatchObject({ phase: 'pending', reason: 'WaitingForCapacity', message: expect.stringContaining('0/1 nodes are available: 1 Insufficient cpu.') });
    expect(polls(events).filter((poll) => poll.phase === 'failed')).toEqual([]);
    // What `run` prints of it: the wait, in the scheduler's words.
    const output = new ConsoleOutput('capacity build');
    expect(events.flatMap((e) => output.lines(e))).toContainEqual(expect.stringMatching(/· PollStep #\d+: waiting for capacity: 0\/1 nodes are available: 1 Insufficient cpu\./));
  }, 120_000);
});

describe('scheduling gates (KEP-3521), as the API server and kube-scheduler keep them', () => {
  const pod = (name: string, gates?: string[]): V1Pod => ({
    metadata: { name },
    spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'alpine:3.20', command: ['true'] }], ...(gates ? { schedulingGates: gates.map((g) => ({ name: g })) } : {}) },
  });
  const eventsOf = async (name: string) =>
    (await builds.api.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${name}` })).items.map((e) => e.reason);

  it('a gated pod is SchedulingGated from its creation and left alone; a gate may be removed, not added, and with none left it is scheduled', async () => {
    const created = await builds.api.createNamespacedPod({ namespace: 'default', body: pod('gated', ['example.com/hold']) });
    // pkg/registry/core/pod/strategy.go applySchedulingGatedCondition, in the create's answer.
    expect(created.status?.conditions).toEqual([
      expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }),
    ]);
    // A pod created after it is scheduled: the scheduler has had its turn at the gated one too.
    await builds.api.createNamespacedPod({ namespace: 'default', body: pod('ungated') });
    await waitFor(async () => (await eventsOf('ungated')).includes('Scheduled'), { timeoutMs: 10_000, what: 'the ungated pod to be scheduled' });
    expect(await eventsOf('gated')).toEqual([]);
    expect((await builds.api.readNamespacedPod({ name: 'gated', namespace: 'default' })).spec?.nodeName).toBeUndefined();

    // pkg/apis/core/validation/validation.go ValidatePodUpdate.
    await expect(
      builds.api.patchNamespacedPod({ name: 'gated', namespace: 'default', body: { spec: { schedulingGates: [{ name: 'example.com/hold' }, { name: 'example.com/more' }] } } }, MERGE_PATCH),
    ).rejects.toMatchObject({ code: 422, body: expect.stringContaining("spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/more'") });

    await builds.api.patchNamespacedPod({ name: 'gated', namespace: 'default', body: { spec: { schedulingGates: null } } }, MERGE_PATCH);
    await waitFor(async () => (await eventsOf('gated')).includes('Scheduled'), { timeoutMs: 10_000, what: 'the pod, its gates gone, to be scheduled' });
    for (const name of ['gated', 'ungated']) await builds.api.deleteNamespacedPod({ name, namespace: 'default', gracePeriodSeconds: 0 });
  }, 30_000);
});
