/**
 * A container's environment as the kubelet builds it: plain values, Secret keys and a few downward
 * API fields. Failures carry the kubelet's CreateContainerConfigError wording.
 */
import { expandReferences } from './container-command.js';
import type { NodeContext } from './node-context.js';
import type { Container, Pod, Secret } from './objects.js';
import type { PodHandle } from './pod-handle.js';

export type EnvResult = { ok: true; env: Record<string, string> } | { ok: false; message: string };

export type SecretLookup = (namespace: string, name: string) => Secret | undefined;

const POD_FIELDS: Record<string, (pod: Pod) => string | undefined> = {
  'metadata.name': (p) => p.metadata.name,
  'metadata.namespace': (p) => p.metadata.namespace,
  'metadata.uid': (p) => p.metadata.uid,
  'spec.nodeName': (p) => p.spec.nodeName,
  'spec.serviceAccountName': (p) => p.spec.serviceAccountName as string | undefined,
  'status.podIP': (p) => p.status?.podIP,
  'status.hostIP': (p) => p.status?.hostIP,
};

export function containerEnv(pod: Pod, container: Container, secrets: SecretLookup): EnvResult {
  const namespace = pod.metadata.namespace ?? 'default';
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    const secretRef = variable.valueFrom?.secretKeyRef;
    const fieldRef = variable.valueFrom?.fieldRef;
    if (secretRef !== undefined) {
      const secretName = secretRef.name ?? '';
      const secret = secrets(namespace, secretName);
      if (secret === undefined) {
        if (secretRef.optional) continue;
        return { ok: false, message: `secret "${secretName}" not found` };
      }
      const encoded = secret.data?.[secretRef.key];
      if (encoded === undefined) {
        if (secretRef.optional) continue;
        return { ok: false, message: `couldn't find key ${secretRef.key} in Secret ${namespace}/${secretName}` };
      }
      env[variable.name] = Buffer.from(encoded, 'base64').toString('utf8');
    } else if (fieldRef !== undefined) {
      env[variable.name] = POD_FIELDS[fieldRef.fieldPath]?.(pod) ?? '';
    } else {
      // $(VAR) references expand against variables defined earlier, as the kubelet does.
      env[variable.name] = expandReferences(variable.value ?? '', env);
    }
  }
  return { ok: true, env };
}

/**
 * The container's environment once it can be built: while a Secret it needs is missing the
 * container shows CreateContainerConfigError and is retried, as the kubelet does, because the
 * Secret may still be created. Undefined when the pod goes first.
 */
export async function waitForContainerEnv(
  pod: PodHandle,
  container: Container,
  node: Pick<NodeContext, 'store' | 'timings'>,
): Promise<Record<string, string> | undefined> {
  const secrets: SecretLookup = (namespace, name) => node.store.get('secrets', namespace, name) as Secret | undefined;
  for (;;) {
    const current = pod.current();
    if (current === undefined) return undefined;
    const result = containerEnv(current, container, secrets);
    if (result.ok) return result.env;
    pod.setContainerState(container.name, { waiting: { reason: 'CreateContainerConfigError', message: result.message } });
    pod.event({ type: 'Warning', reason: 'Failed', message: `Error: ${result.message}`, container: container.name });
    await pod.wait(node.timings.configRetryMs);
  }
}
