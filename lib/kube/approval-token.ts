/**
 * An approval step's task token (Step Functions' callback pattern, `$$.Task.Token`): kept in a
 * Secret of the build, where only the runner reads it (never a pod, a log, the execution's output
 * or the console page; Step Functions' own history shows it to whoever may read the execution).
 * Whoever decides reads it back to call SendTaskSuccess or SendTaskFailure. Deleted with the
 * build's other Secrets (its build label), or by the orphan sweep past its deadline.
 *
 * Once approved, the Secret is what says so to the steps that need the approval, as a needed
 * step's kept pod says it (step-finished.ts): FinishApproval marks it with the same
 * Annotations.finished and drops the token. A step that needs approvals waits in a callback Task of
 * its own (AwaitApprovedNeeds), its token in a Secret beside them (approvalWaitManifest) naming the
 * approvals it awaits; whichever comes second, the last approval's FinishApproval or the waiting
 * step's own look, answers it (lib/workflow/approval-release.ts).
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { createOrReplaceBuildSecret } from './build-secret.js';
import { buildSelector } from './cleanup.js';
import { approvalTokenName, approvalWaitName, labelValue } from './pod-name.js';
import { listWithRetries, withKubeRetries, type KubeRetryOptions } from './retry.js';
import { Annotations, BUILD_DEADLINE_ANNOTATION, Labels, MANAGED_BY } from './types.js';

export const APPROVAL_TOKEN_KEY = 'taskToken';
/** On a waiting step's Secret: the approval steps it awaits, comma-separated (step names are DNS labels). */
export const AWAITS_ANNOTATION = 'step-runner.dev/awaits';

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

/** A step that waits for the approval steps `awaits`: its callback's token, where FinishApproval finds it. */
export function approvalWaitManifest(input: { buildId: string; namespace: string; step: string; awaits: readonly string[]; taskToken: string; deadlineSeconds: number }): V1Secret {
  const manifest = approvalTokenManifest(input);
  manifest.metadata!.name = approvalWaitName(input.buildId, input.step);
  manifest.metadata!.annotations![AWAITS_ANNOTATION] = input.awaits.join(',');
  return manifest;
}

/**
 * Marks an approval given (Annotations.finished) and drops its token, which answers nothing any
 * more; false when the Secret is gone. Read, then replaced at the version read (a PUT with
 * metadata.resourceVersion is refused 409 Conflict if the object changed since: "Concurrency
 * Control and Consistency", Kubernetes API Conventions), so no other write is lost: the one other
 * writer, a retried AwaitApproval, has long ended once a person has decided.
 */
export async function markApprovalGiven(api: Pick<CoreV1Api, 'readNamespacedSecret' | 'replaceNamespacedSecret'>, namespace: string, name: string, now: Date, retry?: KubeRetryOptions): Promise<boolean> {
  const operation = `mark secret ${namespace}/${name} approved`;
  try {
    const secret = await withKubeRetries(`read secret ${namespace}/${name}`, () => api.readNamespacedSecret({ namespace, name }), retry);
    const { [APPROVAL_TOKEN_KEY]: _token, ...data } = secret.data ?? {};
    const body: V1Secret = { ...secret, metadata: { ...secret.metadata, annotations: { ...secret.metadata?.annotations, [Annotations.finished]: now.toISOString() } }, data };
    await withKubeRetries(operation, () => api.replaceNamespacedSecret({ namespace, name, body }), retry);
    return true;
  } catch (error) {
    if (httpStatus(error) === 404) return false;
    throw unexpectedKubeError(operation, error);
  }
}

/** The build's Secrets, the approvals' and the waiting steps' among them (one plain list: a consistent read). */
export async function listBuildSecrets(api: Pick<CoreV1Api, 'listNamespacedSecret'>, namespace: string, buildId: string, retry?: KubeRetryOptions): Promise<V1Secret[]> {
  return listWithRetries(`list secrets of build ${buildId}`, () => api.listNamespacedSecret({ namespace, labelSelector: buildSelector(buildId) }), retry);
}
