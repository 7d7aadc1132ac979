import { describe, expect, it } from '@jest/globals';
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { isAboutClaim, isAboutPod, latestFirst } from './classify-events.js';
import { claimEvent, podEvent, stepPod } from '../../test/fixtures/kube/builders.js';

const pod = stepPod({ step: 'web' });
const pulled = (o: { uid?: string } = {}) => podEvent(pod, { reason: 'Pulled', message: 'Successfully pulled image', first: 2, ...o });
const withRef = (event: CoreV1Event, ref: Partial<CoreV1Event['involvedObject']>): CoreV1Event => ({
  ...event,
  involvedObject: { ...event.involvedObject, ...ref },
});
const withoutUid = (event: CoreV1Event): CoreV1Event => {
  const { uid: _uid, ...ref } = event.involvedObject;
  return { ...event, involvedObject: ref };
};

describe('isAboutPod', () => {
  const cases: [string, CoreV1Event, V1Pod | null, boolean][] = [
    ['an event of this pod', pulled(), pod, true],
    ['an event of an earlier pod with the same name (relaunched step)', pulled({ uid: 'a-previous-pod' }), pod, false],
    ['an event that names no uid', withoutUid(pulled()), pod, true],
    ['an event of another pod', withRef(pulled(), { name: 'b-42-other', uid: 'other-uid' }), pod, false],
    ['an event of something else with the same name', withRef(pulled(), { kind: 'PersistentVolumeClaim' }), pod, false],
    ['an event that names no kind', withRef(pulled(), { kind: undefined }), pod, true],
    ['a pod event once the pod is gone (it may say why)', pulled({ uid: 'any-uid' }), null, true],
    ['an event of something else once the pod is gone', withRef(pulled(), { kind: 'Node' }), null, false],
    ['an event for a pod read without a uid', pulled(), { ...pod, metadata: { ...pod.metadata, uid: undefined } }, true],
  ];

  it.each(cases)('%s', (_name, event, about, expected) => {
    expect(isAboutPod(event, about)).toBe(expected);
  });
});

describe('isAboutClaim', () => {
  const failed = claimEvent('ws-b-42', { reason: 'ProvisioningFailed', message: 'storageclass.storage.k8s.io "gp3" not found', first: 1 });
  const cases: [string, CoreV1Event, boolean][] = [
    ['an event of the claim', failed, true],
    ['an event of another build\'s claim', withRef(failed, { name: 'ws-b-41' }), false],
    ['an event of a pod named like the claim', withRef(failed, { kind: 'Pod' }), false],
    ['an event that names no kind', withRef(failed, { kind: undefined }), false],
  ];

  it.each(cases)('%s', (_name, event, expected) => {
    expect(isAboutClaim(event, 'ws-b-42')).toBe(expected);
  });
});

describe('latestFirst', () => {
  const pod = stepPod({ step: 'greet', image: 'alpine:no-such-tag-0' });
  it('puts the newer event first, and of two stamped in the same second the one listed later', () => {
    const pulling = podEvent(pod, { reason: 'Pulling', message: 'Pulling image "alpine:no-such-tag-0"', first: 4 });
    const failed = podEvent(pod, { reason: 'Failed', message: 'Failed to pull image "alpine:no-such-tag-0": not found', first: 4 });
    const scheduled = podEvent(pod, { reason: 'Scheduled', message: 'Successfully assigned', first: 3, container: null });
    expect(latestFirst([scheduled, pulling, failed]).map((e) => e.reason)).toEqual(['Failed', 'Pulling', 'Scheduled']);
    expect(latestFirst([failed, scheduled]).map((e) => e.reason)).toEqual(['Failed', 'Scheduled']);
  });
});
