/**
 * A kubeconfig for the embedded cluster: plain HTTP on loopback, no credentials. client-node refuses
 * http:// unless TLS verification is off, so the config says so (there is no TLS to verify).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

export const CONTEXT_NAME = 'embedded';

export function kubeconfigDocument(server: string, namespace = 'default') {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CONTEXT_NAME, cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: CONTEXT_NAME, user: {} }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace } }],
    'current-context': CONTEXT_NAME,
    preferences: {},
  };
}

export function kubeconfigYaml(server: string): string {
  return stringify(kubeconfigDocument(server));
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
