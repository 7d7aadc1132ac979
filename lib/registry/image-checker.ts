/**
 * The check as a task runtime gives it to PrepareBuild: the build's pull secrets (read only when a
 * registry asks for credentials), ECR through the function's role, a cache that lives as long as
 * the runtime (a warm Lambda).
 */
import type { ImageReference } from '../pipeline/index.js';
import { checkImages, type CheckImagesOptions } from './check-images.js';
import { dockerConfigLookup, firstOf } from './docker-config.js';
import type { CredentialsLookup, ImageVerdict, PullSecretsReader } from './types.js';
import { verdictCache } from './verdict-cache.js';

export interface ImageCheckReport {
  verdicts: Map<string, ImageVerdict>;
  /** What the check could not use, e.g. pull secrets it may not read. */
  notes: string[];
}

export interface ImageCheckRequest {
  /**
   * The build's pods' imagePullSecrets. Given, they are the credentials, as for the kubelet: the
   * service account's pull secrets fill in only a pod that names none.
   */
  pullSecrets?: readonly string[];
}

/** The images as the pipeline parsed them; the verdicts are keyed by each one's text as written. */
export type ImageChecker = (images: readonly ImageReference[], namespace: string, request?: ImageCheckRequest) => Promise<ImageCheckReport>;

export interface ImageCheckerOptions extends Pick<CheckImagesOptions, 'timeoutMs' | 'mirror' | 'fetch' | 'ecr'> {
  /** The cluster's pull secrets (lib/kube's `pullSecretsReader`); none: no pull secrets. */
  readPullSecrets?: PullSecretsReader;
  /** Credentials of the deployment's own, tried after the pull secrets. */
  credentials?: CredentialsLookup;
}

export function imageChecker(options: ImageCheckerOptions): ImageChecker {
  const cache = verdictCache();
  return async (images, namespace, request = {}) => {
    const notes: string[] = [];
    const names = [...new Set(request.pullSecrets ?? [])];
    let pullSecrets: Promise<CredentialsLookup> | undefined;
    const fromPullSecrets: CredentialsLookup = async (registry) => {
      pullSecrets ??= readPullSecrets(options.readPullSecrets, namespace, notes, names);
      return (await pullSecrets)(registry);
    };
    const verdicts = await checkImages(images, {
      cache,
      // Other secrets may see other images: a verdict holds for the credentials it was asked with.
      cacheScope: names.length > 0 ? `${namespace}\u0001${names.join(',')}` : namespace,
      credentials: firstOf(fromPullSecrets, options.credentials),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.mirror !== undefined ? { mirror: options.mirror } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.ecr ? { ecr: options.ecr } : {}),
    });
    return { verdicts, notes };
  };
}

async function readPullSecrets(read: PullSecretsReader | undefined, namespace: string, notes: string[], names: readonly string[]): Promise<CredentialsLookup> {
  if (!read) return async () => undefined;
  try {
    const { documents, unreadable } = await read(namespace, names);
    if (unreadable.length > 0) notes.push(`pull secrets not read: ${unreadable.join('; ')}`);
    return dockerConfigLookup(documents);
  } catch (error) {
    notes.push(`pull secrets not read: ${error instanceof Error ? error.message : String(error)}`);
    return async () => undefined;
  }
}
