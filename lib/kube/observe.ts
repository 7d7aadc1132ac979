import type { CoreV1Api, CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { isAboutClaim, isAboutPod } from './classify-events.js';
import { isAwaitingNode, workspaceClaim } from './classify-pod.js';
import { InvolvedKinds, PodPhases } from './classify-reasons.js';
import { fieldSelector } from './field-selector.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';
import type { Observation } from './types.js';

export type ObserveApi = Pick<CoreV1Api, 'readNamespacedPod' | 'listNamespacedEvent'>;

/**
 * One poll of a step: its pod (null once it is gone) and the events about it, in two API requests
 * made side by side. The classifier needs both: the container status says ErrImagePull, but the
 * registry's own words often only reach the events. A caller that already holds the pod (from a
 * watch) passes it as `knownPod`, and only the events are read (none for a pod that succeeded).
 *
 * Given the build's workspace `claimName`, the claim's events are read too, but only while the pod
 * mounts that claim and waits for a node: the provisioner reports its failures on the claim, and
 * nothing on the pod says so before the scheduler gives up (minutes later). A scheduled or running
 * pod costs no third request; one whose pod is unknown until the first two answer costs it after
 * them.
 */
export interface ObserveOptions {
  /** When the poll reads; grace periods are measured against it. */
  now?: () => Date;
  retry?: KubeRetryOptions;
  /** The pod as a watch just delivered it (null: gone); then only the events are read. */
  knownPod?: V1Pod | null;
  /** The build's workspace claim, whose events say why a pod waits for its volume. */
  claimName?: string;
}

export async function observeStep(
  api: ObserveApi,
  namespace: string,
  podName: string,
  { now = () => new Date(), retry, knownPod, claimName }: ObserveOptions = {},
): Promise<Observation> {
  const readClaimEvents = async (pod: V1Pod | null): Promise<CoreV1Event[] | undefined> => {
    if (!claimName || !needsClaimEvents(pod, claimName)) return undefined;
    const events = await listClaimEvents(api, namespace, claimName, retry);
    return events.filter((event) => isAboutClaim(event, claimName));
  };
  const observation = (pod: V1Pod | null, events: CoreV1Event[], claimEvents: CoreV1Event[] | undefined): Observation => ({
    pod,
    events: events.filter((event) => isAboutPod(event, pod)),
    ...(claimEvents ? { claimEvents } : {}),
    observedAt: now(),
  });
  if (knownPod !== undefined) {
    // A pod that has succeeded is classified by its status alone; its events could change nothing.
    if (knownPod?.status?.phase === PodPhases.Succeeded) return observation(knownPod, [], undefined);
    const [events, claimEvents] = await Promise.all([listPodEvents(api, namespace, podName, retry), readClaimEvents(knownPod)]);
    return observation(knownPod, events, claimEvents);
  }
  const [pod, events] = await Promise.all([readPod(api, namespace, podName, retry), listPodEvents(api, namespace, podName, retry)]);
  return observation(pod, events, await readClaimEvents(pod));
}

/** Only a pod that mounts the claim and has no node yet: provisioning is over once it has one. Pure. */
export function needsClaimEvents(pod: V1Pod | null, claimName: string): boolean {
  return pod !== null && isAwaitingNode(pod) && workspaceClaim(pod) === claimName;
}

async function readPod(api: ObserveApi, namespace: string, name: string, retry?: KubeRetryOptions): Promise<V1Pod | null> {
  const operation = `read pod ${namespace}/${name}`;
  try {
    return await withKubeRetries(operation, () => api.readNamespacedPod({ name, namespace }), retry);
  } catch (error) {
    if (httpStatus(error) === 404) return null;
    throw unexpectedKubeError(operation, error);
  }
}

async function listPodEvents(
  api: ObserveApi,
  namespace: string,
  name: string,
  retry?: KubeRetryOptions,
): Promise<CoreV1Event[]> {
  return listEvents(api, namespace, `list events of pod ${namespace}/${name}`, { 'involvedObject.name': name }, retry);
}

async function listClaimEvents(
  api: ObserveApi,
  namespace: string,
  name: string,
  retry?: KubeRetryOptions,
): Promise<CoreV1Event[]> {
  return listEvents(
    api,
    namespace,
    `list events of persistentvolumeclaim ${namespace}/${name}`,
    { 'involvedObject.kind': InvolvedKinds.PersistentVolumeClaim, 'involvedObject.name': name },
    retry,
  );
}

async function listEvents(
  api: ObserveApi,
  namespace: string,
  operation: string,
  fields: Record<string, string>,
  retry?: KubeRetryOptions,
): Promise<CoreV1Event[]> {
  try {
    const list = await withKubeRetries(
      operation,
      () => api.listNamespacedEvent({ namespace, fieldSelector: fieldSelector(fields) }),
      retry,
    );
    return list.items;
  } catch (error) {
    throw unexpectedKubeError(operation, error);
  }
}
