import type { V1Pod } from '@kubernetes/client-node';
import { Annotations, stepPodName } from '../../kube/index.js';
import { fakeStepCluster } from '../../kube/fake-cluster.js';
import type { StepInput } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';
import { needsVerdict, type NeedsSeen } from './needs-verdict.js';
import { NEEDS_UNMET_WAIT_SECONDS, waitForNeeds } from './wait-for-needs.js';
import { parseImageReference } from '../../pipeline/index.js';

/** A step's pod; a succeeded one as its FinishStep leaves it (marked finished), unless `unfinished`. */
const pod = (step: string, phase: string, extra: { deleting?: boolean; unfinished?: boolean } = {}): [string, V1Pod] => {
  const name = stepPodName('b1', step);
  const finished: Record<string, string> = phase === 'Succeeded' && !extra.unfinished ? { [Annotations.finished]: '2026-03-14T10:00:00.000Z' } : {};
  return [name, { metadata: { name, annotations: { [Annotations.step]: step, ...finished }, ...(extra.deleting ? { deletionTimestamp: new Date(0) } : {}) }, status: { phase } }];
};

describe('whether a step\'s needs are met, will be, or never can be, by the build\'s pods', () => {
  test.each<[string, [string, V1Pod][], NeedsSeen, unknown]>([
    ['every need succeeded', [pod('unit', 'Succeeded'), pod('lint', 'Succeeded')], {}, { met: true, done: ['unit', 'lint'], launched: [] }],
    ['one still running: wait', [pod('unit', 'Succeeded'), pod('lint', 'Running')], {}, { met: false, done: ['unit'], waitingFor: ['lint'], launched: ['lint'] }],
    ['one not launched yet: wait', [pod('unit', 'Succeeded')], {}, { met: false, done: ['unit'], waitingFor: ['lint'], launched: [] }],
    [
      'a need whose pod succeeded but whose FinishStep has not stored its results yet: wait',
      [pod('unit', 'Succeeded'), pod('lint', 'Succeeded', { unfinished: true })],
      {},
      { met: false, done: ['unit'], waitingFor: ['lint'], launched: [] },
    ],
    ['a need seen succeeded before stays done when its pod has gone', [pod('lint', 'Succeeded')], { done: ['unit'] }, { met: true, done: ['unit', 'lint'], launched: [] }],
    [
      'another build\'s pod of the same step does not count',
      [[stepPodName('b2', 'unit'), { metadata: { name: stepPodName('b2', 'unit'), annotations: { [Annotations.finished]: '2026-03-14T10:00:00.000Z' } }, status: { phase: 'Succeeded' } }], pod('lint', 'Succeeded')],
      {},
      { met: false, done: ['lint'], waitingFor: ['unit'], launched: [] },
    ],
    [
      'a need whose pod failed: never',
      [pod('unit', 'Failed'), pod('lint', 'Succeeded')],
      {},
      { met: false, done: ['lint'], waitingFor: ['unit'], launched: ['unit'], unmet: { step: 'unit', reason: 'it needs "unit", which failed' } },
    ],
    [
      'a need whose pod is being deleted before it succeeded (the build\'s cleanup): never',
      [pod('unit', 'Running', { deleting: true })],
      {},
      { met: false, done: [], waitingFor: ['unit', 'lint'], launched: ['unit'], unmet: { step: 'unit', reason: 'it needs "unit", which had its pod deleted before it succeeded' } },
    ],
    [
      'a need seen launched whose pod has gone: never',
      [pod('lint', 'Running')],
      { launched: ['unit'] },
      { met: false, done: [], waitingFor: ['unit', 'lint'], launched: ['unit', 'lint'], unmet: { step: 'unit', reason: 'it needs "unit", which had its pod deleted before it succeeded' } },
    ],
    [
      'any other step failed (fail fast): never, naming the need that will not succeed',
      [pod('unit', 'Running'), pod('deps', 'Failed')],
      {},
      {
        met: false,
        done: [],
        waitingFor: ['unit', 'lint'],
        launched: ['unit', 'deps'],
        unmet: { step: 'deps', reason: 'it needs "unit", which will not succeed: "deps" failed' },
      },
    ],
    [
      'a need\'s own loss is named before another step\'s',
      [pod('deps', 'Failed'), pod('lint', 'Failed')],
      {},
      { met: false, done: [], waitingFor: ['unit', 'lint'], launched: ['deps', 'lint'], unmet: { step: 'lint', reason: 'it needs "lint", which failed' } },
    ],
    ['another step that succeeded and went (its FinishStep) is no loss', [pod('docs', 'Succeeded'), pod('unit', 'Running')], { launched: [] }, { met: false, done: [], waitingFor: ['unit', 'lint'], launched: ['unit'] }],
    ['needs met win over another step\'s failure: the failing Map stops the step', [pod('unit', 'Succeeded'), pod('lint', 'Succeeded'), pod('deps', 'Failed')], {}, { met: true, done: ['unit', 'lint'], launched: ['deps'] }],
  ])('%s', (_, pods, seen, expected) => {
    expect(needsVerdict('b1', ['unit', 'lint'], new Map(pods), seen)).toEqual(expected);
  });
});

describe('a needed pod the kubelet evicted', () => {
  /** Failed with reason Evicted and the kubelet's words (pkg/kubelet/eviction/helpers.go), its step retrying the default Errors. */
  const evicted = (message: string): [string, V1Pod] => {
    const [name, p] = pod('unit', 'Failed');
    p.metadata!.annotations = { ...p.metadata!.annotations, [Annotations.attemptsLeft]: '2', [Annotations.retryOn]: 'StepInterrupted,ContainerRuntimeTimeout' };
    return [name, { ...p, status: { phase: 'Failed', reason: 'Evicted', message } }];
  };

  it('for the node\'s pressure is an interruption its retry covers: wait for the retry', () => {
    const verdict = needsVerdict('b1', ['unit'], new Map([evicted('The node was low on resource: memory. Threshold quantity: 100Mi, available: 20948Ki. ')]));
    expect(verdict).toEqual({ met: false, done: [], waitingFor: ['unit'], launched: ['unit'], retrying: ['unit'] });
  });

  it('for its own limits is the step\'s failure (StepFailed), which that retry does not cover: never', () => {
    const verdict = needsVerdict('b1', ['unit'], new Map([evicted('Usage of EmptyDir volume "workspace" exceeds the limit "4Gi". ')]));
    expect(verdict).toMatchObject({ met: false, unmet: { step: 'unit', reason: 'it needs "unit", which failed' } });
  });
});

it('a needed pod deleted while pending, its step retrying ContainerRuntimeTimeout alone, is waited for: its retry follows', () => {
  const [name, p] = pod('unit', 'Pending', { deleting: true });
  p.metadata!.annotations = { ...p.metadata!.annotations, [Annotations.attemptsLeft]: '1', [Annotations.retryOn]: 'ContainerRuntimeTimeout' };
  expect(needsVerdict('b1', ['unit'], new Map([[name, p]]))).toEqual({ met: false, done: [], waitingFor: ['unit'], launched: ['unit'], retrying: ['unit'] });
});

describe('WaitForNeeds answers at once when the needs can never be met', () => {
  const input = (needs: StepInput['needs'] = undefined): StepInput => ({
    build: { id: 'b1' },
    namespace: 'ns',
    settings: { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120, runningWatchSeconds: 240 },
    step: { name: 'e2e', image: 'alpine', imageRef: parseImageReference('alpine'), commands: ['true'], env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [], needs: ['unit'] },
    index: 2,
    ...(needs ? { needs } : {}),
  });
  /** A cluster whose watch delivers `events` one map at a time, then waits out its time; what it did is in `calls`. */
  const fakeDeps = (events: [string, V1Pod][][], listed: [string, V1Pod][] = []) => {
    const calls: string[] = [];
    const deps: TaskDeps = {
      cluster: { ...fakeStepCluster(), listPods: async () => (calls.push('list'), listed.map(([, p]) => p)) },
      watchPods: async (_ns, _selector, until, timeoutMs) => {
        calls.push('watch');
        const pods = new Map<string, V1Pod>();
        for (const event of events) {
          pods.clear();
          event.forEach(([name, p]) => pods.set(name, p));
          if (until(pods)) return { pods, settled: true };
        }
        calls.push(`waited ${timeoutMs} ms`);
        return { pods, settled: false };
      },
      logs: undefined as never,
      now: () => new Date(),
      log: { info: () => {}, warn: () => {} },
    };
    return { deps, calls };
  };

  it('ends its watch the moment the needed pod fails, and the iteration waits without a watch', async () => {
    const { deps, calls } = fakeDeps([[pod('unit', 'Running')], [pod('unit', 'Failed')]]);
    const state = await waitForNeeds(input(), deps);
    expect(state).toMatchObject({ met: false, waitingFor: ['unit'], unmet: { step: 'unit', reason: 'it needs "unit", which failed' }, nextPollSeconds: NEEDS_UNMET_WAIT_SECONDS });
    expect(calls).toEqual(['watch']);
  });

  it('ends its watch when the needed pod seen running is deleted within it', async () => {
    const { deps, calls } = fakeDeps([[pod('unit', 'Running')], []]);
    const state = await waitForNeeds(input(), deps);
    expect(state.unmet).toEqual({ step: 'unit', reason: 'it needs "unit", which had its pod deleted before it succeeded' });
    expect(calls).toEqual(['watch']);
  });

  it('keeps watching while the need runs, and carries it as launched to the next look', async () => {
    const { deps, calls } = fakeDeps([[pod('unit', 'Running')]]);
    const state = await waitForNeeds(input(), deps, { maxWatchMs: 1000 });
    expect(state).toMatchObject({ met: false, waitingFor: ['unit'], launched: ['unit'] });
    expect(state.unmet).toBeUndefined();
    expect(calls).toEqual(['watch', 'waited 1000 ms']);
  });

  it('finds a need launched at an earlier look gone by a plain read, before any watch', async () => {
    const { deps, calls } = fakeDeps([[pod('unit', 'Running')]], []);
    const state = await waitForNeeds(input({ met: false, done: [], waitingFor: ['unit'], launched: ['unit'], nextPollSeconds: 0, checks: 1 }), deps);
    expect(state).toMatchObject({ unmet: { step: 'unit' }, checks: 2 });
    expect(calls).toEqual(['list']);
  });

  it('does not count a need launched earlier as gone while the watch is still delivering the pods there are', async () => {
    const { deps } = fakeDeps([[pod('docs', 'Running')], [pod('docs', 'Running'), pod('unit', 'Running')]], [pod('unit', 'Running')]);
    const state = await waitForNeeds(input({ met: false, done: [], waitingFor: ['unit'], launched: ['unit'], nextPollSeconds: 0, checks: 1 }), deps, { maxWatchMs: 1000 });
    expect(state.unmet).toBeUndefined();
    expect(state.launched).toEqual(['unit']);
  });

  it('answers at once, looking at nothing, once its needs were found unmet', async () => {
    const { deps, calls } = fakeDeps([]);
    const unmet = { step: 'unit', reason: 'it needs "unit", which failed' };
    const state = await waitForNeeds(input({ met: false, done: [], waitingFor: ['unit'], unmet, nextPollSeconds: NEEDS_UNMET_WAIT_SECONDS, checks: 3 }), deps);
    expect(state).toMatchObject({ met: false, unmet, checks: 4, nextPollSeconds: NEEDS_UNMET_WAIT_SECONDS });
    expect(calls).toEqual([]);
  });
});
