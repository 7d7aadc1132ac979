/**
 * An approval step's task token (Step Functions' callback pattern, `$$.Task.Token`): kept in a
 * Secret of the build, where only the runner reads it (never a pod, a log, the execution's output
 * or the console page; Step Functions' own history shows it to whoever may read the execution).
 * Whoever decides reads it back to call SendTaskSuccess or SendTaskFailure. Deleted with the
 * build's other Secrets (its build label), or by the orphan sweep past its deadline.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { createOrReplaceBuildSecret } from './build-secret.js';
import { approvalTokenName, labelValue } from './pod-name.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';
import { Annotations, BUILD_DEADLINE_ANNOTATION, Labels, MANAGED_BY } from './types.js';

export const APPROVAL_TOKEN_KEY = 'taskToken';

export function approvalTokenManifest(input: { buildId: string; namespace: string; step: string; taskToken: string; deadlineSeconds: number }): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: approvalTokenName(input.buildId, input.step),
      namespace: input.namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: labelValue(input.buildId), [Labels.step]: labelValue(input.step) },
      annotations: { [Annotations.build]: input.buildId, [Annotations.step]: input.step, [BUILD_DEADLINE_ANNOTATION]: String(input.deadlineSeconds) },
    },
    stringData: { [APPROVAL_TOKEN_KEY]: input.taskToken },
  };
}

/**
 * Stores the token. A Secret already there is an earlier attempt's (the Task retried after its
 * invocation failed): each attempt has a token of its own and only the newest is waited on, so it
 * is replaced.
 */
export async function storeApprovalToken(api: Pick<CoreV1Api, 'createNamespacedSecret' | 'replaceNamespacedSecret'>, manifest: V1Secret, retry?: KubeRetryOptions): Promise<string> {
  return createOrReplaceBuildSecret(api, manifest, "The approval's task token", retry);
}

/** The token a waiting approval step stored; undefined when there is none (not waiting, or its build has ended). */
export async function readApprovalToken(api: Pick<CoreV1Api, 'readNamespacedSecret'>, namespace: string, name: string, retry?: KubeRetryOptions): Promise<string | undefined> {
  try {
    const secret = await withKubeRetries(`read secret ${namespace}/${name}`, () => api.readNamespacedSecret({ namespace, name }), retry);
    const encoded = secret.data?.[APPROVAL_TOKEN_KEY];
    return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw unexpectedKubeError(`read secret ${namespace}/${name}`, error);
  }
}
