import { describe, expect, it } from '@jest/globals';
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { podTimeline, type StepTimeline } from './pod-timeline.js';
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
    { scheduledAt: iso(2), pullingAt: iso(4), pulledAt: iso(11), runningAt: iso(12), finishedAt: iso(40) },
  ],
  ['image already on the node: no pull', onNode, [pulled(onNode, 2, 'Container image "node:20" already present on machine')], { scheduledAt: iso(1), runningAt: iso(3) }],
  // The kubelet records Pulling again for each retry after a back-off: the pull began at the first.
  ['a pull that never succeeded', pullFailing, [pulling(pullFailing, 2), pulling(pullFailing, 20)], { scheduledAt: iso(1), pullingAt: iso(2) }],
  ["an init container's pull is not the step's", onNode, [cloneEvent(onNode)], { scheduledAt: iso(1), runningAt: iso(3) }],
  ['never scheduled', stepPod({ startedAt: null }), [], {}],
  ['the pod is gone: its events still tell the pull', null, [pulling(done, 4), pulled(done, 11)], { pullingAt: iso(4), pulledAt: iso(11) }],
];

describe('podTimeline', () => {
  it.each(cases)('%s', (_name, pod, events, expected) => {
    expect(podTimeline(pod, events)).toEqual(expected);
  });
});
