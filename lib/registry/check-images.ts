/** Every distinct image checked at once, each bounded, the whole bounded; never throws. */
import type { ImageReference } from '../pipeline/index.js';
import type { EcrCheck } from './ecr.js';
import { checkManifest } from './manifest-check.js';
import { manifestTarget } from './reference.js';
import { InconclusiveReasons, type CredentialsLookup, type ImageVerdict } from './types.js';
import type { VerdictCache } from './verdict-cache.js';

/** A registry answers a HEAD in well under a second; one that does not is left to the kubelet. */
export const DEFAULT_IMAGE_TIMEOUT_MS = 3_000;

export interface CheckImagesOptions {
  timeoutMs?: number;
  credentials?: CredentialsLookup;
  /** ECR images through ECR's API with the function's role (not with a mirror). */
  ecr?: EcrCheck;
  mirror?: string;
  fetch?: typeof fetch;
  cache?: VerdictCache;
  /** Part of the cache key: credentials differ between namespaces (their pull secrets). */
  cacheScope?: string;
}

/** Keyed by each image as written (ImageReference.original). */
export async function checkImages(images: readonly ImageReference[], options: CheckImagesOptions = {}): Promise<Map<string, ImageVerdict>> {
  const distinct = [...new Map(images.map((image) => [image.original, image])).values()];
  const verdicts = await Promise.all(distinct.map((image) => checkOne(image, options)));
  return new Map(distinct.map((image, i) => [image.original, verdicts[i]!]));
}

async function checkOne(image: ImageReference, options: CheckImagesOptions): Promise<ImageVerdict> {
  const target = manifestTarget(image);
  const key = `${options.cacheScope ?? ''}\u0000${options.mirror ?? ''}\u0000${target.familiar}`;
  const cached = options.cache?.get(key);
  if (cached) return cached;
  const timeoutMs = options.timeoutMs ?? DEFAULT_IMAGE_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  // Credentials lookups (pull secrets) are inside the same bound as the requests.
  const viaEcr = options.mirror === undefined ? options.ecr?.(target, signal) : undefined;
  const verdict = await Promise.race([
    viaEcr ??
    checkManifest(target, {
      signal,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      ...(options.mirror !== undefined ? { mirror: options.mirror } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
    new Promise<ImageVerdict>((resolve) =>
      signal.addEventListener('abort', () => resolve({ kind: 'inconclusive', reason: InconclusiveReasons.timeout, words: `no answer within ${timeoutMs} ms` }), { once: true }),
    ),
  ]);
  options.cache?.set(key, verdict);
  return verdict;
}
