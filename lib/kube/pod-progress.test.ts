import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { isQuietPending, podProgress, sameProgress, type PodProgress } from './pod-progress.js';
import { condition, running, stepPod, terminated, waiting } from '../../test/fixtures/kube/builders.js';

/** A watch delivers plain JSON: timestamps are strings, and nothing is undefined. */
const asWatched = (pod: V1Pod): V1Pod => JSON.parse(JSON.stringify(pod)) as V1Pod;

const unschedulable = stepPod({
  startedAt: null,
  conditions: [condition('PodScheduled', 'False', 1, 'Unschedulable', '0/3 nodes are available: 3 Insufficient cpu.')],
});

/** Pods as the API server reports them, where each one stands, and whether a watch waits past it. */
const cases: [string, V1Pod | null, PodProgress, boolean][] = [
  ['not yet scheduled', stepPod({ startedAt: null }), { phase: 'Pending' }, true],
  ['scheduled, no container status yet', stepPod({ noContainerStatus: true }), { phase: 'Pending' }, true],
  [
    'container being created',
    stepPod({ state: waiting('ContainerCreating') }),
    { phase: 'Pending', container: { state: 'waiting', reason: 'ContainerCreating' } },
    true,
  ],
  [
    'init containers running',
    stepPod({ state: waiting('PodInitializing') }),
    { phase: 'Pending', container: { state: 'waiting', reason: 'PodInitializing' } },
    true,
  ],
  [
    'its checkout init container waiting to start',
    stepPod({ init: { name: 'clone', image: 'alpine/git:v2.54.0', state: waiting('PodInitializing') } }),
    { phase: 'Pending', container: { state: 'waiting', reason: 'PodInitializing' }, init: 'clone' },
    true,
  ],
  [
    // The step container still says PodInitializing: only the init container shows the failure.
    'its checkout init container failing to pull',
    stepPod({ init: { name: 'clone', image: 'alpine/git:v2.54.0', state: waiting('ErrImagePull', 'rpc error: not found') } }),
    { phase: 'Pending', container: { state: 'waiting', reason: 'ErrImagePull' }, init: 'clone' },
    false,
  ],
  [
    'its checkout done, the step container being created',
    stepPod({ init: { name: 'clone', image: 'alpine/git:v2.54.0', state: terminated(0, 'Completed', { started: 1, finished: 2 }) }, state: waiting('ContainerCreating') }),
    { phase: 'Pending', container: { state: 'waiting', reason: 'ContainerCreating' } },
    true,
  ],
  [
    'image pull failed',
    stepPod({ state: waiting('ErrImagePull', 'rpc error: not found') }),
    { phase: 'Pending', container: { state: 'waiting', reason: 'ErrImagePull' } },
    false,
  ],
  [
    'backing off a pull',
    stepPod({ state: waiting('ImagePullBackOff') }),
    { phase: 'Pending', container: { state: 'waiting', reason: 'ImagePullBackOff' } },
    false,
  ],
  [
    'waiting without a reason',
    stepPod({ state: { waiting: {} } }),
    { phase: 'Pending', container: { state: 'waiting', reason: '' } },
    false,
  ],
  ['the scheduler cannot place it', unschedulable, { phase: 'Pending', unschedulable: true }, false],
  [
    'deleted while its container is created',
    stepPod({ state: waiting('ContainerCreating'), deletedAt: 4 }),
    { phase: 'Pending', container: { state: 'waiting', reason: 'ContainerCreating' }, deleting: true },
    false,
  ],
  ['running', stepPod({ phase: 'Running', state: running(3) }), { phase: 'Running', container: { state: 'running' } }, false],
  [
    'succeeded',
    stepPod({ phase: 'Succeeded', state: terminated(0, 'Completed', { started: 3, finished: 9 }) }),
    { phase: 'Succeeded', container: { state: 'terminated', exitCode: 0 } },
    false,
  ],
  [
    'failed with exit code 2',
    stepPod({ phase: 'Failed', state: terminated(2, 'Error', { started: 3, finished: 9 }) }),
    { phase: 'Failed', container: { state: 'terminated', exitCode: 2 } },
    false,
  ],
  [
    'a pod with another container name (made by hand)',
    stepPod({ container: 'main', phase: 'Running', state: running(3) }),
    { phase: 'Running', container: { state: 'running' } },
    false,
  ],
  ['a pod without a status', { ...stepPod(), status: undefined }, { phase: 'Unknown' }, false],
  ['gone', null, { phase: 'Gone' }, false],
];

describe('podProgress', () => {
  it.each(cases)('%s', (_name, pod, progress) => {
    expect(podProgress(pod)).toEqual(progress);
  });

  it.each(cases.filter(([, pod]) => pod !== null))('reads a watched (plain JSON) pod the same: %s', (_name, pod) => {
    expect(sameProgress(podProgress(asWatched(pod!)), podProgress(pod))).toBe(true);
  });

  it.each(cases)('is unchanged by the trip through the Step Functions state: %s', (_name, pod) => {
    const progress = podProgress(pod);
    expect(sameProgress(JSON.parse(JSON.stringify(progress)) as PodProgress, progress)).toBe(true);
  });

  it('stays small enough to ride in the state of every poll', () => {
    for (const [, pod] of cases) expect(JSON.stringify(podProgress(pod)).length).toBeLessThan(100);
  });
});

describe('isQuietPending', () => {
  it.each(cases)('%s', (_name, pod, _progress, quiet) => {
    expect(isQuietPending(podProgress(pod))).toBe(quiet);
  });
});

describe('sameProgress', () => {
  it('ignores what the kubelet rewrites without the pod moving on', () => {
    const before = stepPod({ state: waiting('ErrImagePull', 'rpc error: timeout') });
    const after = stepPod({ state: waiting('ErrImagePull', 'rpc error: not found') });
    after.metadata!.resourceVersion = '81299';
    after.status!.conditions = [condition('PodScheduled', 'True', 7)];
    expect(sameProgress(podProgress(after), podProgress(before))).toBe(true);
  });

  it.each([
    ['a new waiting reason', stepPod({ state: waiting('ImagePullBackOff') })],
    ['the container started', stepPod({ phase: 'Running', state: running(3) })],
    ['a deletion was asked for', stepPod({ state: waiting('ErrImagePull'), deletedAt: 4 })],
    ['the pod is gone', null],
  ])('sees the pod move on: %s', (_name, pod) => {
    const before = podProgress(stepPod({ state: waiting('ErrImagePull') }));
    expect(sameProgress(podProgress(pod), before)).toBe(false);
  });

  it('tells exit codes apart', () => {
    const exited = (code: number) => podProgress(stepPod({ phase: 'Failed', state: terminated(code, 'Error', { started: 1, finished: 2 }) }));
    expect(sameProgress(exited(1), exited(2))).toBe(false);
  });

  it('matches nothing when there is no earlier progress, or only the string an older runner kept', () => {
    const now = podProgress(stepPod());
    expect(sameProgress(now, undefined)).toBe(false);
    expect(sameProgress(now, 'Pending/waiting:ContainerCreating' as unknown as PodProgress)).toBe(false);
  });
});
