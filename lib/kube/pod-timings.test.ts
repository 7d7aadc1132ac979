import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { goDurationSeconds, mergePodTimings, podTimings, pulledDurations, pulledSeconds, type PodTimings } from './pod-timings.js';
import { STEP_CONTAINER } from './types.js';
import { at, condition, podEvent, running, stepPod, terminated, waiting } from '../../test/fixtures/kube/builders.js';

describe('pulledSeconds', () => {
  // The kubelet's Pulled messages as `kubectl describe pod` shows them on real clusters (1.30+
  // adds the image size), a minute-long pull in Go's duration format, older kubelets' words
  // without the wait or the duration, and an image already there.
  it.each([
    ['Successfully pulled image "busybox" in 1.661s (1.661s including waiting). Image size: 4269694 bytes.', 1.661],
    ['Successfully pulled image "ghcr.io/actions/actions-runner:latest" in 796ms (1.594s including waiting). Image size: 543804759 bytes.', 0.796],
    ['Successfully pulled image "node:20" in 1m2.5s (1m3s including waiting)', 62.5],
    ['Successfully pulled image "nginx" in 3.5s', 3.5],
    ['Container image "alpine:3.20" already present on machine', 0],
    ['Container image "alpine:3.20" already present on machine and can be accessed by the pod', 0],
    ['Successfully pulled image "nginx"', 0],
  ])('%s: %d s', (message, seconds) => {
    expect(pulledSeconds(message)).toBeCloseTo(seconds, 6);
  });

  // The pull's end in a trace: the duration with the wait (since 1.28), else the pull's own.
  it.each([
    ['Successfully pulled image "g1g1/py-kube" in 15.981s (15.981s including waiting). Image size: 129338587 bytes.', 15.981],
    ['Successfully pulled image "alpine:3.20" in 850ms (2m3s including waiting). Image size: 3600000 bytes.', 123],
    ['Successfully pulled image "alpine:3.20" in 1h0m0.5s', 3600.5],
    ['Container image "alpine:3.20" already present on machine', undefined],
    ['Successfully pulled image "alpine:3.20" in soon', undefined],
  ])('%s: %p s including waiting', (message, seconds) => {
    expect(pulledDurations(message)?.withWaiting).toBe(seconds);
  });

  it.each([
    ['812ms', 0.812],
    ['1h2m3s', 3723],
    ['250µs', 0.00025],
    ['1.5x', undefined],
    ['', undefined],
    ['1s junk', undefined],
  ])('reads Go duration %j as %p s', (text, seconds) => {
    const read = goDurationSeconds(text);
    if (seconds === undefined) expect(read).toBeUndefined();
    else expect(read).toBeCloseTo(seconds, 9);
  });
});

const event = (reason: string, message: string): CoreV1Event => ({ metadata: { name: `p.${reason}` }, involvedObject: { kind: 'Pod', name: 'p' }, reason, message });

/** A step pod as the API server returns it once its step container has ended (timestamps as client-node gives them: Dates). */
const endedPod: V1Pod = {
  metadata: { name: 'p', creationTimestamp: new Date('2026-03-14T10:00:00Z') },
  spec: { containers: [{ name: STEP_CONTAINER }], initContainers: [{ name: 'checkout' }] },
  status: {
    phase: 'Succeeded',
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'False', lastTransitionTime: new Date('2026-03-14T10:00:58Z') },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: new Date('2026-03-14T10:00:40Z') },
    ],
    initContainerStatuses: [{ name: 'checkout', image: 'alpine/git', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, startedAt: new Date('2026-03-14T10:00:45Z'), finishedAt: new Date('2026-03-14T10:00:47Z') } } }],
    containerStatuses: [
      { name: STEP_CONTAINER, image: 'node:20', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, startedAt: new Date('2026-03-14T10:00:50Z'), finishedAt: new Date('2026-03-14T10:02:50Z') } } },
    ],
  },
};

describe('podTimings', () => {
  it('reads creation, scheduling, the step container\'s start and end from the pod, and the pulls from its Pulled events', () => {
    const events = [
      event('Scheduled', 'Successfully assigned ci/p to ip-10-0-1-149.ec2.internal'),
      event('Pulled', 'Container image "alpine/git" already present on machine'),
      event('Pulling', 'Pulling image "node:20"'),
      event('Pulled', 'Successfully pulled image "node:20" in 2.5s (2.5s including waiting). Image size: 400000000 bytes.'),
    ];
    expect(podTimings(endedPod, events)).toEqual({
      created: '2026-03-14T10:00:00.000Z',
      scheduled: '2026-03-14T10:00:40.000Z',
      started: '2026-03-14T10:00:50.000Z',
      finished: '2026-03-14T10:02:50.000Z',
      pullSeconds: 2.5,
    });
  });

  it('reads a watch\'s raw JSON (strings) as the same instants, and a pod still waiting for a node gives its creation alone', () => {
    const raw = JSON.parse(JSON.stringify({ ...endedPod, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] } })) as V1Pod;
    expect(podTimings(raw, [])).toEqual({ created: '2026-03-14T10:00:00.000Z' });
  });

  it('gives a pod that is gone only what its events still say', () => {
    expect(podTimings(null, [event('Pulled', 'Successfully pulled image "x" in 4s (4s including waiting)')])).toEqual({ pullSeconds: 4 });
  });
});

const iso = (seconds: number) => at(seconds).toISOString();
const pulled = (pod: V1Pod, first: number, message = 'Successfully pulled image "node:20" in 7.2s (7.2s including waiting). Image size: 4000 bytes.') =>
  podEvent(pod, { reason: 'Pulled', message, first });
const pulling = (pod: V1Pod, first: number) => podEvent(pod, { reason: 'Pulling', message: 'Pulling image "node:20"', first });

const done = stepPod({ phase: 'Succeeded', state: terminated(0, 'Completed', { started: 12, finished: 40 }), conditions: [condition('PodScheduled', 'True', 2)] });
const pullFailing = stepPod({ state: waiting('ImagePullBackOff'), conditions: [condition('PodScheduled', 'True', 1)] });
const onNode = stepPod({ state: running(3), conditions: [condition('PodScheduled', 'True', 1)] });
const cloneEvent = (pod: V1Pod) => podEvent(pod, { reason: 'Pulling', message: 'Pulling image "alpine/git"', first: 1, container: 'clone', init: true });

/** Pods and events as the API server lists them, and the instants the metrics and the trace are made of. */
const cases: [string, V1Pod | null, CoreV1Event[], PodTimings][] = [
  [
    'pulled, ran and ended',
    done,
    [pulling(done, 4), pulled(done, 11)],
    // The pull ends 7.2 s after the Pulling, as the Pulled says, not at the Pulled's second.
    { created: iso(0), scheduled: iso(2), pulling: iso(4), pulled: iso(11.2), started: iso(12), finished: iso(40), pullSeconds: 7.2 },
  ],
  [
    'pulled within the second (the events cannot say how long it took; their message can)',
    done,
    [pulling(done, 4), pulled(done, 4, 'Successfully pulled image "node:20" in 212ms (1.5s including waiting). Image size: 4000 bytes.')],
    // Its metric counts the pull itself, its span the wait behind another pull too.
    { created: iso(0), scheduled: iso(2), pulling: iso(4), pulled: iso(5.5), started: iso(12), finished: iso(40), pullSeconds: 0.212 },
  ],
  [
    // The kubelet records Pulling again for each retry after a back-off: the pull that succeeded began at the last.
    'pulled at the second try',
    done,
    [pulling(done, 4), pulling(done, 9), pulled(done, 11, 'Successfully pulled image "node:20" in 2.5s')],
    { created: iso(0), scheduled: iso(2), pulling: iso(4), pulled: iso(11.5), started: iso(12), finished: iso(40), pullSeconds: 2.5 },
  ],
  [
    'image already on the node: no pull',
    onNode,
    [pulled(onNode, 2, 'Container image "node:20" already present on machine')],
    { created: iso(0), scheduled: iso(1), started: iso(3), pullSeconds: 0 },
  ],
  // The pull began at the first Pulling; it never ended.
  ['a pull that never succeeded', pullFailing, [pulling(pullFailing, 2), pulling(pullFailing, 20)], { created: iso(0), scheduled: iso(1), pulling: iso(2) }],
  ["an init container's pull is not the step's", onNode, [cloneEvent(onNode)], { created: iso(0), scheduled: iso(1), started: iso(3) }],
  ['never scheduled', stepPod({ startedAt: null }), [], { created: iso(0) }],
  ['the pod is gone: its events still tell the pull', null, [pulling(done, 4), pulled(done, 11)], { pulling: iso(4), pulled: iso(11.2), pullSeconds: 7.2 }],
];

describe("podTimings: the step container's pull, start and end", () => {
  it.each(cases)('%s', (_name, pod, events, expected) => {
    expect(podTimings(pod, events)).toEqual(expected);
  });
});

describe('mergePodTimings', () => {
  it('keeps each instant once seen, lets the pulls only grow, and takes a restarted container\'s later run whole', () => {
    const first = { created: 'c', scheduled: 's', pullSeconds: 3 };
    expect(mergePodTimings(first, { pullSeconds: 1 })).toEqual(first);
    expect(mergePodTimings(first, { created: 'c', started: 'a' })).toEqual({ ...first, started: 'a' });
    expect(mergePodTimings({ ...first, started: 'a', finished: 'b' }, { started: 'a2', finished: 'b2' })).toEqual({ ...first, started: 'a2', finished: 'b2' });
    expect(mergePodTimings(undefined, {})).toEqual({});
  });
});
