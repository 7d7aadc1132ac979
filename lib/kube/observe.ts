import type { CoreV1Api, CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { isAboutPod } from './classify-events.js';
import { fieldSelector } from './field-selector.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';
import type { Observation } from './types.js';

export type ObserveApi = Pick<CoreV1Api, 'readNamespacedPod' | 'listNamespacedEvent'>;

/**
 * One poll of a step: its pod (null once it is gone) and the events about it, in two API requests
 * made side by side. The classifier needs both: the container status says ErrImagePull, but the
 * registry's own words often only reach the events. A caller that already holds the pod (from a
 * watch) passes it as `knownPod`, and only the events are read.
 */
export async function observeStep(
  api: ObserveApi,
  namespace: string,
  podName: string,
  now: () => Date = () => new Date(),
  retry?: KubeRetryOptions,
  knownPod?: V1Pod | null,
): Promise<Observation> {
  const [pod, events] = await Promise.all([
    knownPod !== undefined ? knownPod : readPod(api, namespace, podName, retry),
    listPodEvents(api, namespace, podName, retry),
  ]);
  return { pod, events: events.filter((event) => isAboutPod(event, pod)), observedAt: now() };
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
  const operation = `list events of pod ${namespace}/${name}`;
  try {
    const list = await withKubeRetries(
      operation,
      () => api.listNamespacedEvent({ namespace, fieldSelector: fieldSelector({ 'involvedObject.name': name }) }),
      retry,
    );
    return list.items;
  } catch (error) {
    throw unexpectedKubeError(operation, error);
  }
}
