import { existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

/** A kubeconfig that cannot be used as asked; raised before any build starts (CLI `--kubeconfig`). */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
}

/**
 * The connection a user's kubeconfig describes: the given file, or the default lookup (KUBECONFIG,
 * then ~/.kube/config) when none is given; its current context unless one is named.
 */
export function kubeConfigFromFile(path?: string, context?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (path !== undefined) {
    if (!existsSync(path)) throw new KubeConfigError(`kubeconfig file "${path}" does not exist`);
    try {
      kubeConfig.loadFromFile(path);
    } catch (error) {
      throw new KubeConfigError(`kubeconfig file "${path}" cannot be read: ${(error as Error).message}`, { cause: error });
    }
  } else {
    try {
      kubeConfig.loadFromDefault();
    } catch (error) {
      throw new KubeConfigError(`the default kubeconfig cannot be read: ${(error as Error).message}`, { cause: error });
    }
  }
  const source = path === undefined ? 'the default kubeconfig' : `kubeconfig file "${path}"`;
  if (context !== undefined) {
    if (!kubeConfig.getContextObject(context)) {
      const known = kubeConfig.getContexts().map((c) => c.name);
      throw new KubeConfigError(
        `context "${context}" is not in ${source}; it has ${known.length ? known.map((n) => `"${n}"`).join(', ') : 'no contexts'}`,
      );
    }
    kubeConfig.setCurrentContext(context);
  } else if (!kubeConfig.getCurrentContext() || !kubeConfig.getCurrentCluster()) {
    throw new KubeConfigError(`${source} has no usable current context; name one with --context`);
  }
  return allowPlainHttp(kubeConfig);
}

/**
 * kubectl talks plain http to a `server: http://...` (kubectl proxy, the embedded cluster), but
 * @kubernetes/client-node 1.x refuses to unless `insecure-skip-tls-verify` is set, which says
 * nothing for http, where there is no TLS to verify. Mark such clusters so both tools agree.
 */
function allowPlainHttp(kubeConfig: KubeConfig): KubeConfig {
  if (!kubeConfig.clusters.some((c) => c.server.startsWith('http:') && !c.skipTLSVerify)) return kubeConfig;
  kubeConfig.loadFromOptions({
    clusters: kubeConfig.clusters.map((c) => (c.server.startsWith('http:') ? { ...c, skipTLSVerify: true } : c)),
    users: kubeConfig.users,
    contexts: kubeConfig.contexts,
    currentContext: kubeConfig.currentContext,
  });
  return kubeConfig;
}
