import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { failedServiceRun, sameServiceRuns, type ServiceRun } from './failed-service-run.js';
import { at } from '../../test/fixtures/kube/builders.js';
import { loadServiceExamples, serviceEvents, servicePod, type ServiceExample } from '../../test/fixtures/kube/service-examples.js';

const examples = loadServiceExamples();
const example = (name: string): ServiceExample => {
  const found = examples.find((e) => e.name.startsWith(name));
  if (!found) throw new Error(`no service example "${name}"`);
  return found;
};

/** The crash while the step ran, and then the step's end (exit 1 at 60 s) and the kubelet stopping the restarted sidecar (143 at 61 s). */
function stoppedAfterTheStep(): { pod: V1Pod; events: ReturnType<typeof serviceEvents> } {
  const crashed = example('service crashes while the step runs');
  const pod = servicePod(crashed);
  pod.status!.containerStatuses![0]!.state = { terminated: { exitCode: 1, reason: 'Error', startedAt: at(5), finishedAt: at(60), containerID: 'containerd://step' } };
  const db = pod.status!.initContainerStatuses![0]!;
  db.state = { terminated: { exitCode: 143, reason: 'Error', startedAt: at(40), finishedAt: at(61), containerID: 'containerd://second' } };
  return { pod, events: serviceEvents(pod, crashed) };
}

describe('failedServiceRun: the run of a failed service whose log the Cause quotes', () => {
  const fromExample = (name: string) => () => {
    const pod = servicePod(example(name));
    return { pod, events: serviceEvents(pod, example(name)) };
  };
  // Pod statuses as the kubelet reports them (service-messages.json cites where each was seen).
  const cases: [string, ServiceRun, () => { pod: V1Pod; events: ReturnType<typeof serviceEvents> }][] = [
    ['service exits at once (terminated, not yet restarted)', 'current', fromExample('service exits at once')],
    ['service exits before the step starts (CrashLoopBackOff)', 'previous', fromExample('service exits before the step starts')],
    ['service crashes while the step runs (restarted, running again)', 'previous', fromExample('service crashes while the step runs')],
    ['service killed by its startup probe and restarted', 'previous', fromExample('service killed by its startup probe and restarted')],
    ['service port never opens (running, never restarted)', 'current', fromExample('service port never opens')],
    ['service crashed while the step ran, then stopped by the kubelet after the step ended', 'previous', stoppedAfterTheStep],
  ];

  it.each(cases)('%s: the %s run', (_name, run, seen) => {
    const { pod, events } = seen();
    const service = pod.status!.initContainerStatuses![0]!.name;
    expect(failedServiceRun(pod, events, service)).toBe(run);
  });

  it('reads the current run when the pod or the service is not there to say', () => {
    const pod = servicePod(example('service crashes while the step runs'));
    expect(failedServiceRun(null, [], 'redis')).toBe('current');
    expect(failedServiceRun(pod, [], 'other')).toBe('current');
  });
});

describe('sameServiceRuns: whether the kubelet restarted the service between two looks', () => {
  const before = servicePod(example('service exits at once'));
  const restarted = structuredClone(before);
  const db = restarted.status!.initContainerStatuses![0]!;
  db.lastState = { terminated: db.state!.terminated! };
  db.state = { running: { startedAt: at(3) } };
  db.restartCount = 1;
  db.containerID = 'containerd://second';

  it.each([
    ['the same look', before, true],
    ['a look after the restart', restarted, false],
    ['a look at a pod that is gone', null, false],
  ] as const)('%s', (_name, after, same) => {
    expect(sameServiceRuns(before, after, 'db')).toBe(same);
  });
});
