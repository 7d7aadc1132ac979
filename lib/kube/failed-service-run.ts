/**
 * Which run of a failed service logged its failure, for the Cause's log tail (FinishStep). A
 * service is a native sidecar: the kubelet restarts it as soon as it exits (classify-services.ts),
 * and a log read without `previous` names the current run (kubernetes/kubernetes
 * pkg/kubelet/kubelet_pods.go validateContainerLogStatus: `running` is read first), so once it has
 * been restarted the run that failed is the previous one, in lastState.terminated, which
 * `previous=true` reads. The step's own container and its checkout init container are never
 * restarted (the step pod's restartPolicy is Never, pod-manifest.ts; "if the Pod has a
 * restartPolicy of Never, and an init container fails during startup of that Pod, Kubernetes treats
 * the overall Pod as failed": kubernetes.io/docs/concepts/workloads/pods/init-containers/), so their
 * current run is the one that ended and their logs are read as they always were.
 */
import type { CoreV1Event, V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { containerStatus, stepContainerName } from './classify-pod.js';
import { endedBeforeStep, observedServices } from './classify-services.js';
import { toMillis } from './time.js';

export type ServiceRun = 'current' | 'previous';

/**
 * The run whose end the classifier reports (endedBeforeStep on the same pod): the current one when
 * that end is its state, the previous when it is lastState (restarted since, or stopped by the
 * kubelet after the step ended). A failure without an exit (its port never opened) is the
 * previous run's once the kubelet has restarted it (its startup probe gave up), else the current's.
 */
export function failedServiceRun(pod: V1Pod | null, events: readonly CoreV1Event[], service: string): ServiceRun {
  if (!pod) return 'current';
  const observed = observedServices(pod, events).find((s) => s.name === service);
  const status = observed?.status;
  if (!observed || !status) return 'current';
  const stepFinishedAt = toMillis(containerStatus(pod, stepContainerName(pod))?.state?.terminated?.finishedAt);
  const reported = endedBeforeStep(observed, stepFinishedAt);
  if (reported) return reported === status.state?.terminated ? 'current' : 'previous';
  return !status.state?.terminated && status.lastState?.terminated ? 'previous' : 'current';
}

/**
 * Whether two looks at the pod show the same runs of the service: no restart between them, so a
 * log read between them read the run the first look named. (A restart raises restartCount, and
 * the new run gets a new containerID.)
 */
export function sameServiceRuns(before: V1Pod | null, after: V1Pod | null, service: string): boolean {
  const status = (pod: V1Pod | null): V1ContainerStatus | undefined => (pod ? containerStatus(pod, service, true) : undefined);
  const a = status(before);
  const b = status(after);
  if (!a || !b) return a === b;
  return (a.restartCount ?? 0) === (b.restartCount ?? 0) && a.containerID === b.containerID;
}
