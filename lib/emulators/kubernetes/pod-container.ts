/**
 * Which container a request to a pod's subresource means, with the apiserver's answers when it
 * names none of a pod that has several, or one the pod does not have (validateContainer).
 */
import { badRequest } from './api-errors.js';
import type { Pod } from './objects.js';

/** The container named, or the pod's only one; init containers can be named but are never the default. */
export function requestedContainer(pod: Pod, requested: string): string {
  const podName = pod.metadata.name ?? '';
  // The apiserver's order (podutil.VisitContainers): init containers first.
  const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers].map((c) => c.name);
  if (requested) {
    if (!all.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${podName}`);
    return requested;
  }
  const [only, ...others] = pod.spec.containers;
  if (only !== undefined && others.length === 0) return only.name;
  if (only === undefined) throw badRequest(`a container name must be specified for pod ${podName}`);
  throw badRequest(`a container name must be specified for pod ${podName}, choose one of: [${all.join(' ')}]`);
}
