/**
 * GET .../pods/NAME/log, with the apiserver's and kubelet's answers when there is no log yet
 * (clients show these messages to users, and lib/kube reads them).
 */
import type { ServerResponse } from 'node:http';
import { badRequest, notFound } from './api-errors.js';
import type { LogBuffer } from './log-buffer.js';
import { requestedContainer } from './pod-container.js';
import type { Pod } from './objects.js';
import type { ObjectStore } from './store.js';

/**
 * Finds the log of a pod's container (by pod uid): its newest run's, if it has ever started, or
 * with `containerID` the kept run of that ID (undefined once the node no longer keeps it).
 */
export type LogSource = (podUid: string, container: string, containerID?: string) => LogBuffer | undefined;

function optionalInt(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw badRequest(`invalid value for ${name}: "${raw}"`);
  return value;
}

/** The kubelet's refusal when a container has not started yet (validateContainerLogStatus). */
function waitingMessage(pod: Pod, container: string): string {
  const podName = pod.metadata.name ?? '';
  const status = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find((s) => s.name === container);
  if (!pod.spec.nodeName || status === undefined) return `pod ${podName} does not have a host assigned`;
  const reason = status.state.waiting?.reason ?? 'ContainerCreating';
  if (reason === 'ErrImagePull') return `container "${container}" in pod "${podName}" is waiting to start: image can't be pulled`;
  if (reason === 'ImagePullBackOff') return `container "${container}" in pod "${podName}" is waiting to start: trying and failing to pull image`;
  return `container "${container}" in pod "${podName}" is waiting to start: ${reason}`;
}

/**
 * What `previous=true` reads, as the kubelet resolves it (kubernetes/kubernetes
 * pkg/kubelet/kubelet_pods.go validateContainerLogStatus, `case previous`): the run its status names
 * in lastState.terminated, by container ID; none (no restart yet) is the kubelet's
 * "previous terminated container %q in pod %q not found", which its server answers with 400
 * (pkg/kubelet/server/server.go getContainerLogs) and the apiserver passes on as BadRequest
 * (kubectl: "Error from server (BadRequest): ...").
 */
export function previousRun(pod: Pod, container: string): { containerID: string } | { refused: string } {
  const podName = pod.metadata.name ?? '';
  if (!pod.spec.nodeName) return { refused: `pod ${podName} does not have a host assigned` };
  const status = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find((s) => s.name === container);
  if (status === undefined) return { refused: `container "${container}" in pod "${podName}" is not available` };
  const containerID = status.lastState?.terminated?.containerID;
  return containerID ? { containerID } : { refused: `previous terminated container "${container}" in pod "${podName}" not found` };
}

/**
 * `sinceTime` (RFC 3339; the apiserver passes the kubelet whole seconds) or `sinceSeconds`, as the
 * kubelet reads them: lines written at or after that moment.
 */
function sinceOf(query: URLSearchParams, now: () => Date): Date | undefined {
  const time = query.get('sinceTime');
  const seconds = optionalInt(query, 'sinceSeconds');
  if (time && seconds !== undefined) throw badRequest('at most one of sinceTime or sinceSeconds may be specified');
  if (time) {
    const ms = Date.parse(time);
    if (Number.isNaN(ms)) throw badRequest(`invalid value for sinceTime: "${time}"`);
    return new Date(Math.floor(ms / 1000) * 1000);
  }
  if (seconds !== undefined) {
    if (seconds < 1) throw badRequest('sinceSeconds: Invalid value: must be greater than 0');
    return new Date(now().getTime() - seconds * 1000);
  }
  return undefined;
}

function previousLog(pod: Pod, container: string, logs: LogSource): LogBuffer {
  const run = previousRun(pod, container);
  if ('refused' in run) throw badRequest(run.refused);
  const log = logs(pod.metadata.uid ?? '', container, run.containerID);
  // The node keeps the run lastState names (ContainerRunner keeps two); gone only with the pod's worker.
  if (log === undefined) throw badRequest(`previous terminated container "${container}" in pod "${pod.metadata.name ?? ''}" not found`);
  return log;
}

export function servePodLog(
  store: ObjectStore,
  logs: LogSource,
  namespace: string,
  name: string,
  query: URLSearchParams,
  res: ServerResponse,
  now: () => Date = () => new Date(),
): void {
  const pod = store.get('pods', namespace, name) as Pod | undefined;
  if (pod === undefined) throw notFound('pods', name);
  const container = requestedContainer(pod, query.get('container') ?? '');
  const log = query.get('previous') === 'true' ? previousLog(pod, container, logs) : logs(pod.metadata.uid ?? '', container);
  if (log === undefined) throw badRequest(waitingMessage(pod, container));

  const timestamps = query.get('timestamps') === 'true';
  const since = sinceOf(query, now);
  const text = log.read({ ...(since ? { since } : {}), tailLines: optionalInt(query, 'tailLines'), limitBytes: optionalInt(query, 'limitBytes'), timestamps });
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  if (query.get('follow') !== 'true') {
    res.end(text);
    return;
  }
  res.write(text);
  const stop = log.follow(
    (more) => res.write(more),
    () => res.end(),
    timestamps,
  );
  res.on('close', stop);
}
