import { describe, expect, it } from '@jest/globals';
import { ApiException, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { observeStep, type ObserveApi } from './observe.js';
import { at, podEvent, stepPod } from '../../test/fixtures/kube/builders.js';

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
    const observation = await observeStep(api(pod, [earlier, own]), 'ci', 'b-42-web', () => at(5));
    expect(observation.events).toEqual([own]);
  });

  it('filters the same way for a pod a watch already delivered', async () => {
    const observation = await observeStep(api(null, [earlier, own]), 'ci', 'b-42-web', () => at(5), undefined, pod);
    expect(observation.events).toEqual([own]);
  });

  it('keeps every pod event once the pod is gone: one of them may say why', async () => {
    const observation = await observeStep(api(null, [earlier, own]), 'ci', 'b-42-web', () => at(5), { maxAttempts: 1 });
    expect(observation.pod).toBeNull();
    expect(observation.events).toEqual([earlier, own]);
  });
});
