import { describe, expect, it } from '@jest/globals';
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { podTimeline, pullTook, type StepTimeline } from './pod-timeline.js';
import { at, condition, podEvent, running, stepPod, terminated, waiting } from '../../test/fixtures/kube/builders.js';

const iso = (seconds: number) => at(seconds).toISOString();
const pulled = (pod: V1Pod, first: number, message = 'Successfully pulled image "node:20" in 7.2s (7.2s including waiting). Image size: 4000 bytes.') =>
  podEvent(pod, { reason: 'Pulled', message, first });
const pulling = (pod: V1Pod, first: number) => podEvent(pod, { reason: 'Pulling', message: 'Pulling image "node:20"', first });

const done = stepPod({ phase: 'Succeeded', state: terminated(0, 'Completed', { started: 12, finished: 40 }), conditions: [condition('PodScheduled', 'True', 2)] });
const pullFailing = stepPod({ state: waiting('ImagePullBackOff'), conditions: [condition('PodScheduled', 'True', 1)] });
const onNode = stepPod({ state: running(3), conditions: [condition('PodScheduled', 'True', 1)] });
const cloneEvent = (pod: V1Pod) => podEvent(pod, { reason: 'Pulling', message: 'Pulling image "alpine/git"', first: 1, container: 'clone', init: true });

/** Pods and events as the API server lists them, and the times a trace is made of. */
const cases: [string, V1Pod | null, CoreV1Event[], StepTimeline][] = [
  [
    'pulled, ran and ended',
    done,
    [pulling(done, 4), pulled(done, 11)],
    // 7.2 s after the Pulling, as the Pulled says, not at the Pulled's second.
    { scheduledAt: iso(2), pullingAt: iso(4), pulledAt: iso(11.2), runningAt: iso(12), finishedAt: iso(40) },
  ],
  [
    'pulled within the second (the events cannot say how long it took; their message can)',
    done,
    [pulling(done, 4), pulled(done, 4, 'Successfully pulled image "node:20" in 212ms (1.5s including waiting). Image size: 4000 bytes.')],
    { scheduledAt: iso(2), pullingAt: iso(4), pulledAt: iso(5.5), runningAt: iso(12), finishedAt: iso(40) },
  ],
  [
    // The kubelet records Pulling again for each retry after a back-off: the pull that succeeded began at the last.
    'pulled at the second try',
    done,
    [pulling(done, 4), pulling(done, 9), pulled(done, 11, 'Successfully pulled image "node:20" in 2.5s')],
    { scheduledAt: iso(2), pullingAt: iso(4), pulledAt: iso(11.5), runningAt: iso(12), finishedAt: iso(40) },
  ],
  ['image already on the node: no pull', onNode, [pulled(onNode, 2, 'Container image "node:20" already present on machine')], { scheduledAt: iso(1), runningAt: iso(3) }],
  // The kubelet records Pulling again for each retry after a back-off: the pull began at the first.
  ['a pull that never succeeded', pullFailing, [pulling(pullFailing, 2), pulling(pullFailing, 20)], { scheduledAt: iso(1), pullingAt: iso(2) }],
  ["an init container's pull is not the step's", onNode, [cloneEvent(onNode)], { scheduledAt: iso(1), runningAt: iso(3) }],
  ['never scheduled', stepPod({ startedAt: null }), [], {}],
  ['the pod is gone: its events still tell the pull', null, [pulling(done, 4), pulled(done, 11)], { pullingAt: iso(4), pulledAt: iso(11.2) }],
];

describe('podTimeline', () => {
  it.each(cases)('%s', (_name, pod, events, expected) => {
    expect(podTimeline(pod, events)).toEqual(expected);
  });
});

describe('pullTook', () => {
  // The kubelet's words (pkg/kubelet/images/image_manager.go) and Go's Duration.String().
  const cases: [string, number | undefined][] = [
    ['Successfully pulled image "g1g1/py-kube" in 15.981s (15.981s including waiting). Image size: 129338587 bytes.', 15_981],
    ['Successfully pulled image "alpine:3.20" in 850ms (2m3s including waiting). Image size: 3600000 bytes.', 123_000],
    ['Successfully pulled image "alpine:3.20" in 1h0m0.5s', 3_600_500],
    ['Container image "alpine:3.20" already present on machine', undefined],
    ['Successfully pulled image "alpine:3.20" in soon', undefined],
  ];
  it.each(cases)('%s', (message, ms) => {
    expect(pullTook(message)).toBe(ms);
  });
});
