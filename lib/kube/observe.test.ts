import { describe, expect, it } from '@jest/globals';
import { ApiException, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { observeStep, type ObserveApi } from './observe.js';
import { at, claimEvent, podEvent, running, stepPod, waiting } from '../../test/fixtures/kube/builders.js';

/** The API as a relaunched step sees it: events for its pod's name, some left by the pod before it. */
function api(pod: V1Pod | null, events: CoreV1Event[]): ObserveApi {
  return {
    readNamespacedPod: async () => {
      if (pod) return pod;
      throw new ApiException(404, 'Unknown API Status Code!', '{"kind":"Status","reason":"NotFound","code":404}', {});
    },
    listNamespacedEvent: async () => ({ items: events }),
  } as unknown as ObserveApi;
}

const pod = stepPod({ step: 'web' });
const own = podEvent(pod, { reason: 'Pulling', message: 'Pulling image "nginx:1.27"', first: 1 });
const earlier = podEvent(pod, { reason: 'Failed', message: 'Failed to pull image "nginx:1.26": not found', first: -100, uid: 'a-previous-pod' });

describe('observeStep', () => {
  it('leaves out the events of an earlier pod with the same name', async () => {
    const observation = await observeStep(api(pod, [earlier, own]), 'ci', 'b-42-web', { now: () => at(5) });
    expect(observation.events).toEqual([own]);
  });

  it('filters the same way for a pod a watch already delivered', async () => {
    const observation = await observeStep(api(null, [earlier, own]), 'ci', 'b-42-web', { now: () => at(5), knownPod: pod });
    expect(observation.events).toEqual([own]);
  });

  it('reads no events for a pod a watch saw succeed: nothing in them could change the outcome', async () => {
    const succeeded: V1Pod = { ...pod, status: { ...pod.status, phase: 'Succeeded' } };
    const refusing = { ...api(null, [own]), listNamespacedEvent: async () => Promise.reject(new Error('not to be read')) } as unknown as ObserveApi;
    const observation = await observeStep(refusing, 'ci', 'b-42-web', { now: () => at(5), knownPod: succeeded });
    expect(observation).toMatchObject({ pod: succeeded, events: [] });
  });

  it('keeps every pod event once the pod is gone: one of them may say why', async () => {
    const observation = await observeStep(api(null, [earlier, own]), 'ci', 'b-42-web', { now: () => at(5), retry: { maxAttempts: 1 } });
    expect(observation.pod).toBeNull();
    expect(observation.events).toEqual([earlier, own]);
  });
});

/** A fake API that answers like the cluster and counts every request, by kind. */
function countingApi(pod: V1Pod | null, events: { pod: CoreV1Event[]; claim: CoreV1Event[] }) {
  const requests: string[] = [];
  const api = {
    readNamespacedPod: async () => {
      requests.push('read pod');
      if (pod) return pod;
      throw new ApiException(404, 'Unknown API Status Code!', '{"kind":"Status","reason":"NotFound","code":404}', {});
    },
    listNamespacedEvent: async ({ fieldSelector }: { fieldSelector?: string }) => {
      requests.push(`list events ${fieldSelector}`);
      return { items: fieldSelector?.includes('PersistentVolumeClaim') ? events.claim : events.pod };
    },
  } as unknown as ObserveApi;
  return { api, requests };
}

describe('observeStep with a workspace claim', () => {
  const CLAIM = 'ws-b-42';
  const provisioningFailed = claimEvent(CLAIM, {
    reason: 'ProvisioningFailed',
    type: 'Warning',
    message: 'storageclass.storage.k8s.io "gp3" not found',
    first: 1,
  });
  // The list is by name: another kind's event of the same name must not pass for the claim's.
  const sameNameElsewhere = { ...claimEvent(CLAIM, { reason: 'Created', message: 'not the claim', first: 1 }), involvedObject: { kind: 'ConfigMap', name: CLAIM } };
  const claimEvents = [provisioningFailed, sameNameElsewhere];
  const unplaced = stepPod({ step: 'web', workspaceClaim: CLAIM, startedAt: null });
  const creating = stepPod({ step: 'web', workspaceClaim: CLAIM, startedAt: 0, state: waiting('ContainerCreating') });
  const runningPod = stepPod({ step: 'web', workspaceClaim: CLAIM, phase: 'Running', state: running(3) });
  const withoutWorkspace = stepPod({ step: 'web', startedAt: null });

  // [case, pod, claim given to observeStep, requests, claim events read]
  const cases: [string, V1Pod | null, string | undefined, number, boolean][] = [
    ['a running pod costs no extra request', runningPod, CLAIM, 2, false],
    ['a pod on its node (volume attaching, image pulling) costs no extra request', creating, CLAIM, 2, false],
    ['a pod gone costs no extra request', null, CLAIM, 2, false],
    ['a pod that does not mount the claim costs no extra request', withoutWorkspace, CLAIM, 2, false],
    ['no claim given, no claim read, even for a pod without a node', unplaced, undefined, 2, false],
    ['a pod waiting for a node reads the claim\'s events too', unplaced, CLAIM, 3, true],
  ];

  it.each(cases)('%s', async (_name, pod, claimName, requests, readsClaim) => {
    const fake = countingApi(pod, { pod: [], claim: claimEvents });
    const observation = await observeStep(fake.api, 'ci', 'b-42-web', { now: () => at(5), retry: { maxAttempts: 1 }, ...(claimName ? { claimName } : {}) });
    expect(fake.requests).toHaveLength(requests);
    expect(observation.claimEvents).toEqual(readsClaim ? [provisioningFailed] : undefined);
  });

  it('asks for the claim\'s events by kind and name', async () => {
    const fake = countingApi(unplaced, { pod: [], claim: claimEvents });
    await observeStep(fake.api, 'ci', 'b-42-web', { now: () => at(5), claimName: CLAIM });
    expect(fake.requests).toContain(`list events involvedObject.kind=PersistentVolumeClaim,involvedObject.name=${CLAIM}`);
  });

  it('with the pod from a watch: one request, or two while it waits for a node', async () => {
    for (const [pod, requests] of [[creating, 1], [unplaced, 2]] as const) {
      const fake = countingApi(null, { pod: [], claim: claimEvents });
      const observation = await observeStep(fake.api, 'ci', 'b-42-web', { now: () => at(5), knownPod: pod, claimName: CLAIM });
      expect(fake.requests).toHaveLength(requests);
      expect(fake.requests).not.toContain('read pod');
      expect(observation.pod).toBe(pod);
    }
  });
});
