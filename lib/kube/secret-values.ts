import type { CoreV1Api } from '@kubernetes/client-node';
import type { SecretEnv } from '../pipeline/types.js';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';

export type SecretsApi = Pick<CoreV1Api, 'readNamespacedSecret'>;

/** What a masked value reads as, as GitHub Actions writes it. */
export const SECRET_MASK = '***';

/**
 * Lines of a multi-line secret (a key file, JSON credentials) are masked one by one, since a step
 * may print one of them; a line this short ("}", "-----") is structure, not secret, and masking
 * it everywhere would wreck the log while hiding nothing.
 */
const MIN_MASKED_LINE = 4;

/**
 * The values of the Secret keys a step references, read from the cluster so that what the step
 * printed of them can be masked. A Secret or key that does not exist is skipped: the kubelet
 * would not have started the container without it, so the value never reached the log. Any other
 * failure is thrown (KubernetesUnavailable): a log that cannot be masked must not be kept.
 */
export async function readSecretValues(
  api: SecretsApi,
  namespace: string,
  refs: readonly SecretEnv[],
  retry?: KubeRetryOptions,
): Promise<string[]> {
  const values: string[] = [];
  for (const name of new Set(refs.map((ref) => ref.secret))) {
    const operation = `read secret ${namespace}/${name}`;
    let data: Record<string, string> | undefined;
    try {
      data = (await withKubeRetries(operation, () => api.readNamespacedSecret({ name, namespace }), retry)).data;
    } catch (error) {
      if (httpStatus(error) === 404) continue;
      throw unexpectedKubeError(operation, error);
    }
    for (const ref of refs) {
      const encoded = ref.secret === name ? data?.[ref.key] : undefined;
      if (encoded !== undefined) values.push(Buffer.from(encoded, 'base64').toString('utf8'));
    }
  }
  return values;
}

/** The strings to mask for these values: each value, trimmed, and each line of a multi-line one. */
export function secretNeedles(values: readonly string[]): string[] {
  const needles = new Set<string>();
  for (const value of values) {
    if (value.trim() !== '') needles.add(value).add(value.trim());
    for (const line of value.split(/\r?\n/)) if (line.trim().length >= MIN_MASKED_LINE) needles.add(line.trim());
  }
  // Longest first, so a value is masked whole before any of its lines is.
  return [...needles].sort((a, b) => b.length - a.length);
}

export function maskSecrets(text: string, needles: readonly string[]): string {
  let masked = text;
  for (const needle of needles) masked = masked.split(needle).join(SECRET_MASK);
  return masked;
}
