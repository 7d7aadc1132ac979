import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { fakeStepCluster } from '../kube/fake-cluster.js';
import { Annotations } from '../kube/index.js';
import { at, condition, podEvent, running, stepPod } from '../../test/fixtures/kube/builders.js';
import { runningSteps, unrecordedPods } from './running-steps.js';
import type { StepRecord } from './step-log-store.js';

const iso = (seconds: number) => at(seconds).toISOString();
const record = (step: string, endedAt: number, status: StepRecord['status'] = 'succeeded'): StepRecord => ({
  step,
  status,
  exitCode: status === 'succeeded' ? 0 : 1,
  error: status === 'succeeded' ? null : 'StepFailed',
  startedAt: iso(0),
  endedAt: iso(endedAt),
});
/** A step's pod as LaunchStep makes it: its build and step named exactly in its annotations. */
const podOf = (step: string, createdAt: number, build = 'b-42'): V1Pod => {
  const pod = stepPod({ step, createdAt, state: running(createdAt + 2) });
  return { ...pod, metadata: { ...pod.metadata, annotations: { [Annotations.build]: build, [Annotations.step]: step } } };
};

/** The build's pods as a list answers, the records FinishStep kept, and the steps still running. */
const cases: [string, V1Pod[], StepRecord[], string[]][] = [
  ['a pod with no record is a running step', [podOf('test', 10)], [], ['test']],
  ["a kept pod (a step others need) has its record", [podOf('clone', 0), podOf('test', 10)], [record('clone', 8)], ['test']],
  // retry: a later attempt's pod, made after the first attempt's record.
  ['a retried step runs again in a pod made after its first record', [podOf('test', 30)], [record('test', 20, 'failed')], ['test']],
  // Made in the second the record ended (the creation stamped to the second, before the record's end).
  ['a retry made within the second its first attempt ended', [podOf('test', 20)], [record('test', 20.4, 'failed')], ['test']],
  ["a pod whose annotation names another build is not this build's", [podOf('test', 10, 'b-42-other')], [], []],
  ['a pod without a step name says nothing', [{ ...podOf('test', 10), metadata: { name: 'stray', creationTimestamp: at(1) } }], [], []],
];

describe('unrecordedPods', () => {
  it.each(cases)('%s', (_name, pods, records, steps) => {
    expect(unrecordedPods(pods, 'b-42', records).map((pod) => pod.step)).toEqual(steps);
  });
});

describe('runningSteps', () => {
  it("reads each running step's pod and events once, for when it was created, pulled and started, and what it held until the end", async () => {
    const cluster = fakeStepCluster({ now: () => at(0) });
    cluster.instanceTypes.set('node-a', 'm7g.large');
    cluster.put('pod', { ...podOf('clone', 0), status: { ...podOf('clone', 0).status, phase: 'Succeeded' } });
    const pod = podOf('test', 10);
    const placed: V1Pod = {
      ...pod,
      spec: { ...pod.spec!, nodeName: 'node-a', containers: pod.spec!.containers.map((container) => ({ ...container, resources: { requests: { cpu: '500m', memory: '1Gi' } } })) },
      status: { phase: 'Running', startTime: at(11), conditions: [condition('PodScheduled', 'True', 11)], containerStatuses: stepPod({ state: running(20) }).status!.containerStatuses! },
    };
    const test = cluster.put('pod', placed);
    cluster.events.push(
      podEvent(test, { reason: 'Pulling', message: 'Pulling image "node:20"', first: 12 }),
      podEvent(test, { reason: 'Pulled', message: 'Successfully pulled image "node:20" in 6.5s (6.5s including waiting). Image size: 4000 bytes.', first: 19 }),
    );

    const steps = await runningSteps('ci', 'b-42', [record('clone', 8)], at(71), { cluster, log: { info: () => undefined, warn: () => undefined } as never });

    expect(steps).toEqual([
      {
        step: 'test',
        startedAt: iso(10),
        timings: { created: iso(10), scheduled: iso(11), pulling: iso(12), pulled: iso(18.5), started: iso(20), pullSeconds: 6.5 },
        // From the kubelet's acceptance (startTime) to the execution's end, as FinishStep would have priced it.
        pod: { step: 'test', cpu: 0.5, memoryBytes: 2 ** 30, seconds: 60, instanceType: 'm7g.large' },
      },
    ]);
    expect(cluster.calls.filter((call) => call.startsWith('observePod'))).toHaveLength(1);
  });

  it('gives none, and a warning, when the cluster cannot be read', async () => {
    const warnings: string[] = [];
    const cluster = { ...fakeStepCluster(), listPods: async () => Promise.reject(new Error('KubernetesUnavailable')) };
    expect(await runningSteps('ci', 'b-42', [], at(60), { cluster, log: { info: () => undefined, warn: (message: string) => void warnings.push(message) } as never })).toEqual([]);
    expect(warnings).toEqual(["The build's running steps could not be read: its trace and cost go without them"]);
  });
});
