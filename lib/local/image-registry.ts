/**
 * Which registry a local build's image check asks: the one a kubeconfig's cluster names (the
 * embedded cluster names its image catalog), else each image's own registry, as on AWS.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { IMAGE_REGISTRY_EXTENSION } from '../emulators/kubernetes/index.js';
import { isLoopbackHost } from '../registry/index.js';

interface KubeconfigShape {
  'current-context'?: string;
  contexts?: { name?: string; context?: { cluster?: string } }[];
  clusters?: { name?: string; cluster?: { extensions?: { name?: string; extension?: { mirror?: unknown } }[] } }[];
}

/** The mirror URL, only a loopback one: a kubeconfig from elsewhere must not redirect the check. */
export function imageRegistryOf(kubeconfigPath: string, context?: string): string | undefined {
  let document: KubeconfigShape;
  try {
    document = parse(readFileSync(kubeconfigPath, 'utf8')) as KubeconfigShape;
  } catch {
    return undefined;
  }
  const contextName = context ?? document['current-context'];
  const clusterName = document.contexts?.find((c) => c.name === contextName)?.context?.cluster;
  const cluster = document.clusters?.find((c) => c.name === clusterName)?.cluster;
  const mirror = cluster?.extensions?.find((e) => e.name === IMAGE_REGISTRY_EXTENSION)?.extension?.mirror;
  if (typeof mirror !== 'string') return undefined;
  try {
    const url = new URL(mirror);
    return url.protocol === 'http:' && isLoopbackHost(url.host) ? mirror : undefined;
  } catch {
    return undefined;
  }
}
