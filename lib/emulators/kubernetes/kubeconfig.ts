/**
 * A kubeconfig for the embedded cluster: plain HTTP on loopback, no credentials. client-node refuses
 * http:// unless TLS verification is off, so the config says so (there is no TLS to verify).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

export const CONTEXT_NAME = 'embedded';

/**
 * The cluster extension naming the registry its node pulls from (the image catalog): a runner
 * reading this kubeconfig asks that registry, as a node's mirror configuration would.
 */
export const IMAGE_REGISTRY_EXTENSION = 'step-runner.dev/image-registry';

export function kubeconfigDocument(server: string, namespace = 'default', registry?: string) {
  const extensions = registry ? { extensions: [{ name: IMAGE_REGISTRY_EXTENSION, extension: { mirror: registry } }] } : {};
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CONTEXT_NAME, cluster: { server, 'insecure-skip-tls-verify': true, ...extensions } }],
    users: [{ name: CONTEXT_NAME, user: {} }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace } }],
    'current-context': CONTEXT_NAME,
    preferences: {},
  };
}

export function kubeconfigYaml(server: string, registry?: string): string {
  return stringify(kubeconfigDocument(server, 'default', registry));
}

export function kubeConfigFor(server: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: CONTEXT_NAME, server, skipTLSVerify: true }],
    users: [{ name: CONTEXT_NAME }],
    contexts: [{ name: CONTEXT_NAME, cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace: 'default' }],
    currentContext: CONTEXT_NAME,
  });
  return config;
}
