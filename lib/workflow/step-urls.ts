/**
 * The presigned URLs of a step's Secret, signed by LaunchStep and signed again by PollStep while the
 * step runs, before they stop working (url-renewal.ts says when): the cache's restore and save and
 * the artifacts' uploads then work however long the step runs, though a Lambda's role session ends
 * long before a 24 hour step does. The pod's cache containers read each URL from the Secret's
 * volume at the moment they use it (lib/kube/cache-containers.ts), so the newest one is used.
 *
 * No URL ever reaches a log line or the task's output: only how many were signed, and until when.
 *
 * Why signing again rather than credentials of the containers' own: a role assumed from the
 * Lambda's role session is role chaining, "limited to a maximum of one hour" (STS AssumeRole,
 * DurationSeconds), so those too would end mid-step; and EKS Pod Identity (or IRSA) is the pod's
 * service account's, whose credentials "Amazon EKS sets ... in the containers of the pod" (EKS user
 * guide, "Learn how EKS Pod Identity grants pods access to AWS services"): the step's own commands
 * would get them, and could write any entry under the cache's prefix. A URL allows one request on
 * one object, and only the cache containers mount the Secret.
 */
import { cacheSecretName, type UrlSigning } from '../kube/index.js';
import type { CacheStore } from './cache-store.js';
import type { PollState, StepInput } from './state-data.js';
import type { TaskDeps } from './task-deps.js';
import { renewDue, urlsValidUntil } from './url-renewal.js';

export type UrlSigner = Pick<CacheStore, 'presignGet' | 'presignPut' | 'presignUpload'>;

/** One URL, signed as `signing` says; a cache entry's PUT keeps its signed `If-None-Match: *`. */
export function signUrl(store: UrlSigner, signing: UrlSigning): Promise<string> {
  switch (signing.how) {
    case 'get':
      return store.presignGet(signing.object, signing.seconds);
    case 'put-new':
      return store.presignPut(signing.object, signing.seconds);
    case 'put':
      return store.presignUpload(signing.object, signing.seconds);
  }
}

/**
 * What LaunchStep reads before it signs, to tell when the URLs it signs stop working: undefined
 * for no URL (an entry that neither restores nor saves), which nothing need sign again.
 */
export async function signingClock(store: Pick<CacheStore, 'signingCredentials'>, now: Date): Promise<(signing: Record<string, UrlSigning>) => string | undefined> {
  const credentials = await store.signingCredentials();
  return (signing) => {
    if (Object.keys(signing).length === 0) return undefined;
    const until = urlsValidUntil(now.getTime(), Object.values(signing).map((s) => s.seconds), credentials);
    return Number.isFinite(until) ? new Date(until).toISOString() : undefined;
  };
}

/**
 * Signs the step's URLs again when they would stop working before the next chance to (the next
 * poll, `untilNextSeconds` away), and puts them in the step's Secret. What $.poll.urls becomes:
 * unchanged when nothing was due, or when the signing failed (the next poll tries again: a cache
 * is never a reason to fail a step); absent once the Secret is gone.
 */
export async function renewStepUrls(
  input: Pick<StepInput, 'namespace' | 'step'>,
  previous: Pick<PollState, 'podName' | 'urls'>,
  deps: Pick<TaskDeps, 'cluster' | 'cache' | 'now' | 'log'>,
  untilNextSeconds: number,
): Promise<PollState['urls']> {
  const current = previous.urls;
  const now = deps.now();
  if (!current || !deps.cache || !renewDue(Date.parse(current.validUntil), now.getTime(), untilNextSeconds)) return current;
  const name = cacheSecretName(previous.podName);
  try {
    const signing = await deps.cluster.cacheSecretSigning(input.namespace, name);
    if (!signing) return undefined;
    const validUntil = await signingClock(deps.cache, now);
    const urls: Record<string, string> = {};
    for (const [secretKey, how] of Object.entries(signing)) urls[secretKey] = await signUrl(deps.cache, how);
    const until = validUntil(signing);
    if (until === undefined || !(await deps.cluster.replaceCacheSecretUrls(input.namespace, name, urls))) return undefined;
    const renewed = { validUntil: until };
    deps.log.info(`Signed the ${Object.keys(urls).length} cache and artifact URLs of step "${input.step.name}" again: they work until ${renewed.validUntil}`, { secret: name });
    return renewed;
  } catch (error) {
    deps.log.warn(`The cache and artifact URLs of step "${input.step.name}" could not be signed again (the next poll tries again): ${(error as Error).message}`, { secret: name });
    return current;
  }
}
