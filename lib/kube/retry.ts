import { KubernetesUnavailable } from './errors.js';
import { describeKubeFailure, kubeFailure, unexpectedKubeError, type KubeFailure } from './api-error.js';
import { toMillis } from './time.js';

export interface KubeRetryOptions {
  /** Calls in all, the first included. */
  maxAttempts?: number;
  /** Backoff before the first retry; doubled each time, with full jitter. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** No retry is started once the waits would add up to more than this (a Lambda has a deadline). */
  maxTotalDelayMs?: number;
  /** A server's Retry-After is honoured up to this much. */
  maxRetryAfterMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1); injectable so tests can pin the jitter. */
  random?: () => number;
}

export const DEFAULT_KUBE_RETRY = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 4000,
  maxTotalDelayMs: 10_000,
  maxRetryAfterMs: 5000,
} as const;

/** Overloaded or restarting API servers and load balancers answer these; they pass. */
const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ECONNABORTED']);
const RETRYABLE_NETWORK_MESSAGES = /socket hang up|other side closed|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE/i;

export function isRetryableKubeFailure(failure: KubeFailure): boolean {
  if (failure.status !== undefined) return RETRYABLE_STATUS.has(failure.status);
  if (failure.networkCode && RETRYABLE_NETWORK_CODES.has(failure.networkCode)) return true;
  return RETRYABLE_NETWORK_MESSAGES.test(failure.message);
}

/**
 * Runs one Kubernetes API call, retrying what is worth retrying (429, 5xx from the server or a load
 * balancer in front of it, dropped connections) with exponential backoff and jitter. Any other
 * error (404, 409, 422...) is the caller's to interpret and is rethrown untouched at once. When the
 * budget runs out the call fails with KubernetesUnavailable, so the execution ends with that Error
 * rather than a stack trace.
 */
export async function withKubeRetries<T>(
  operation: string,
  fn: () => Promise<T>,
  options: KubeRetryOptions = {},
): Promise<T> {
  const { maxAttempts, baseDelayMs, maxDelayMs, maxTotalDelayMs, maxRetryAfterMs } = { ...DEFAULT_KUBE_RETRY, ...options };
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      const failure = kubeFailure(error);
      if (!isRetryableKubeFailure(failure)) throw error;
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)) * random();
      const retryAfter = retryAfterMs(failure.headers['retry-after']);
      const delay = Math.round(retryAfter === undefined ? backoff : Math.min(retryAfter, maxRetryAfterMs));
      if (attempt >= maxAttempts || waited + delay > maxTotalDelayMs) {
        throw new KubernetesUnavailable(
          `The Kubernetes API kept failing: ${operation} failed ${attempt} time${attempt === 1 ? '' : 's'}; ` +
            `last error: ${describeKubeFailure(failure)}`,
          operation,
          attempt,
          { cause: error },
        );
      }
      waited += delay;
      await sleep(delay);
    }
  }
}

/** Retry-After in seconds (the API server's form); an HTTP date is accepted too. */
function retryAfterMs(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = toMillis(header);
  return date === undefined ? undefined : Math.max(0, date - Date.now());
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A list call with retries whose lasting failure names the listing: what every sweep and cleanup
 * starts with.
 */
export async function listWithRetries<T>(
  operation: string,
  list: () => Promise<{ items: T[] }>,
  retry?: KubeRetryOptions,
): Promise<T[]> {
  try {
    return (await withKubeRetries(operation, list, retry)).items;
  } catch (error) {
    throw unexpectedKubeError(operation, error);
  }
}
