import { describe, expect, it } from '@jest/globals';
import { goSpan, isCapacityVerdict, lastSignalAt, schedulerReasons } from './classify-stall.js';
import { T0, condition, podEvent, running, stepPod, terminated } from '../../test/fixtures/kube/builders.js';

// kube-scheduler's FitError (pkg/scheduler/framework/types.go) around NodeResourcesFit's reasons
// (pkg/scheduler/framework/plugins/noderesources/fit.go) and other plugins' (named beside each).
describe('isCapacityVerdict', () => {
  it.each([
    ['cpu on every node', '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.', false, true],
    ['cpu and memory, no preemption part (kube-scheduler before 1.27)', '0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory.', false, true],
    ['ephemeral storage', '0/1 nodes are available: 1 Insufficient ephemeral-storage. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.', false, true],
    ['an extended resource (fit.go "Insufficient %v")', '0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.', false, true],
    ['the node\'s pod count', '0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.', false, true],
    ['cpu beside a selector mismatch (plugins/nodeaffinity)', "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 1 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.", false, false],
    ['the same for a pod keeping to its workspace\'s node: the other nodes are not the workspace\'s', "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 1 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.", true, true],
    ['affinity alone, keeping to the workspace: no room is asked for', "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.", true, false],
    ['an untolerated taint (plugins/tainttoleration)', '0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.', false, false],
    ['a claim the pod waits for (plugins/volumebinding PreFilter, no count)', '0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.', false, false],
    ['not a FitError at all (Karpenter\'s refusal)', 'Failed to schedule pod, incompatible with nodepool "default"', false, false],
  ])('%s', (_name, words, keepsToWorkspace, capacity) => {
    expect(isCapacityVerdict(words, keepsToWorkspace)).toBe(capacity);
  });

  it('reads the reasons without their counts', () => {
    expect(schedulerReasons('0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.')).toEqual([
      'Insufficient cpu',
      'Insufficient memory',
    ]);
  });
});

describe('lastSignalAt', () => {
  const seconds = (ms: number | undefined) => (ms === undefined ? undefined : (ms - T0) / 1000);

  it('is the creation for a pod nothing has touched', () => {
    expect(seconds(lastSignalAt(stepPod({ startedAt: null, conditions: [], createdAt: 4 }), []))).toBe(4);
  });

  it('takes the newest condition, container state and event time, lastState and series included', () => {
    const pod = stepPod({ startedAt: 1, conditions: [condition('PodScheduled', 'True', 0), condition('Initialized', 'True', 2)], state: running(9), lastState: terminated(1, 'Error', { started: 3, finished: 12 }) });
    expect(seconds(lastSignalAt(pod, []))).toBe(12);
    const series = podEvent(pod, { reason: 'FailedScheduling', type: 'Warning', container: null, message: 'x', first: 5, last: 40, count: 3, series: true });
    expect(seconds(lastSignalAt(pod, [series]))).toBe(40);
  });

  it('reads the claim\'s events only before the pod has a node', () => {
    const claimEvent = { ...podEvent(stepPod(), { reason: 'ExternalProvisioning', container: null, message: 'x', first: 50 }) };
    expect(seconds(lastSignalAt(stepPod({ startedAt: null, conditions: [] }), [], [claimEvent]))).toBe(50);
    expect(seconds(lastSignalAt(stepPod({ startedAt: 1 }), [], [claimEvent]))).toBe(1);
  });
});

describe('goSpan', () => {
  it.each([
    [3, '3s'],
    [300, '5m0s'],
    [301.4, '5m1s'],
    [3600, '1h0m0s'],
  ])('%s s is %s, as kubectl writes ages', (value, text) => {
    expect(goSpan(value)).toBe(text);
  });
});
