import type { CoreV1Api } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';
import { STEP_CONTAINER } from './types.js';

export type LogsApi = Pick<CoreV1Api, 'readNamespacedPodLog'>;

export interface StepLogOptions {
  /** Only the last lines (what a Cause or a console line can show). */
  tailLines?: number;
  /** And no more than this many bytes of them (the state machine's payloads are small). */
  limitBytes?: number;
  /** Another container of the pod than the step's (its checkout init container). */
  container?: string;
  /** The container's previous run, the one in its status's lastState (a restarted service's: failed-service-run.ts). */
  previous?: boolean;
}

export const DEFAULT_STEP_LOG_TAIL = { tailLines: 100, limitBytes: 64 * 1024 } as const;

/**
 * The end of a step's output, bounded. Empty when there is none to read: the pod is gone (404) or
 * its container never started (400, e.g. the image could not be pulled).
 */
export async function readStepLog(
  api: LogsApi,
  namespace: string,
  podName: string,
  options: StepLogOptions = {},
  retry?: KubeRetryOptions,
): Promise<string> {
  return readLog(api, namespace, podName, { ...DEFAULT_STEP_LOG_TAIL, ...options }, retry);
}

/**
 * All of a step's output, for archiving; same empty cases as readStepLog, and for `previous` a
 * container that has not been restarted (400: "previous terminated container ... not found").
 */
export async function readWholeStepLog(
  api: LogsApi,
  namespace: string,
  podName: string,
  retry?: KubeRetryOptions,
  container?: string,
  options: { previous?: boolean } = {},
): Promise<string> {
  return readLog(api, namespace, podName, { ...(container ? { container } : {}), ...(options.previous ? { previous: true } : {}) }, retry);
}

async function readLog(
  api: LogsApi,
  namespace: string,
  name: string,
  bounds: StepLogOptions,
  retry?: KubeRetryOptions,
): Promise<string> {
  const operation = `read log of pod ${namespace}/${name}`;
  try {
    const text = await withKubeRetries(
      operation,
      () => api.readNamespacedPodLog({ name, namespace, container: STEP_CONTAINER, ...bounds }),
      retry,
    );
    return typeof text === 'string' ? text : String(text ?? '');
  } catch (error) {
    const status = httpStatus(error);
    if (status === 404 || status === 400) return '';
    throw unexpectedKubeError(operation, error);
  }
}
