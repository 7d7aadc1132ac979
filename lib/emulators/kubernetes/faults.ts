/**
 * The seam for fault injection at the HTTP layer: a hook decides, per request, whether the server
 * answers with an error Status (as an overloaded or failing apiserver would) or drops the connection.
 */
import { ApiError } from './api-errors.js';
import type { Pod } from './objects.js';

export type Fault =
  | { kind: 'status'; code: number; retryAfterSeconds?: number; message?: string }
  | { kind: 'drop' };

export interface FaultRequest {
  method: string;
  path: string;
  query: URLSearchParams;
}

export type FaultInjector = (request: FaultRequest) => Fault | undefined;

const REASONS: Record<number, { reason: string; message: string }> = {
  429: { reason: 'TooManyRequests', message: 'Too many requests, please try again later.' },
  500: { reason: 'InternalError', message: 'Internal error occurred: injected fault' },
  503: { reason: 'ServiceUnavailable', message: 'The server is currently unable to handle the request' },
  504: { reason: 'Timeout', message: 'The server was unable to return a response in the time allotted, but may still be processing the request' },
};

export function faultError(fault: Extract<Fault, { kind: 'status' }>): ApiError {
  const known = REASONS[fault.code] ?? { reason: 'InternalError', message: 'injected fault' };
  const headers: Record<string, string> = {};
  const details: { retryAfterSeconds?: number } = {};
  if (fault.retryAfterSeconds !== undefined) {
    headers['Retry-After'] = String(fault.retryAfterSeconds);
    details.retryAfterSeconds = fault.retryAfterSeconds;
  }
  return new ApiError(fault.code, known.reason, fault.message ?? known.message, details, headers);
}

/**
 * Seams past the HTTP layer, for what a real cluster does without a word to the API's clients.
 *
 * `mutatePod`: a mutating admission webhook of the caller's own, run on each pod created, after
 * the API server's defaults and before the pod is stored (the apiserver's order: mutating admission,
 * then the registry's PrepareForCreate, kubernetes/kubernetes staging/src/k8s.io/apiserver
 * pkg/endpoints/handlers/create.go). What real webhooks do there: set `schedulerName` (Volcano's
 * for its jobs), add `schedulingGates` (Kueue's pod integration, "kueue.x-k8s.io/admission").
 *
 * `holdCreating`: the node's kubelet admits the pod (startTime, its conditions, every container
 * ContainerCreating) and then says nothing more, as a kubelet whose pod worker is stuck in a CRI
 * call or a volume mount that never returns: no event comes until the call does. The pod is
 * deleted as any other (the deletion is not stuck).
 */
export interface NodeFaults {
  mutatePod?: (pod: Pod) => void;
  holdCreating?: (pod: Pod) => boolean;
}
