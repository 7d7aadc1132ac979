/**
 * The Docker configs the build's pods would pull with: the pull secrets the pods name (the
 * pipeline's `pull-secrets` and the deployment's), else, as the ServiceAccount admission fills in
 * a pod that names none, those of the namespace's `default` service account. Read once, without
 * retries: the image check must stay fast, and without them it only knows less.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import type { PullSecretConfigs, PullSecretsReader } from '../registry/types.js';

export type { PullSecretConfigs };

export type PullSecretsApi = Pick<CoreV1Api, 'readNamespacedServiceAccount' | 'readNamespacedSecret'>;

const CONFIG_KEYS = ['.dockerconfigjson', '.dockercfg'];

/** The reader lib/registry's image check is handed: the client asked for only when a registry wants credentials. */
export function pullSecretsReader(api: () => Promise<PullSecretsApi>): PullSecretsReader {
  return async (namespace, podPullSecrets) => readPullSecretConfigs(await api(), namespace, 'default', podPullSecrets);
}

export async function readPullSecretConfigs(
  api: PullSecretsApi,
  namespace: string,
  serviceAccount = 'default',
  podPullSecrets: readonly string[] = [],
): Promise<PullSecretConfigs> {
  const result: PullSecretConfigs = { documents: [], unreadable: [] };
  let names: string[] = [...podPullSecrets];
  if (names.length === 0) {
    try {
      const account = await api.readNamespacedServiceAccount({ name: serviceAccount, namespace });
      names = (account.imagePullSecrets ?? []).map((ref) => ref.name).filter((name): name is string => !!name);
    } catch (error) {
      result.unreadable.push(`service account ${namespace}/${serviceAccount}: ${statusOf(error)}`);
      return result;
    }
  }
  const texts = await Promise.all(
    names.map(async (name) => {
      try {
        const data = (await api.readNamespacedSecret({ name, namespace })).data ?? {};
        const key = CONFIG_KEYS.find((k) => data[k] !== undefined);
        return key ? Buffer.from(data[key]!, 'base64').toString('utf8') : undefined;
      } catch (error) {
        result.unreadable.push(`secret ${namespace}/${name}: ${statusOf(error)}`);
        return undefined;
      }
    }),
  );
  result.documents = texts.filter((text): text is string => text !== undefined);
  return result;
}

function statusOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? `HTTP ${code}` : error instanceof Error ? error.message : String(error);
}
