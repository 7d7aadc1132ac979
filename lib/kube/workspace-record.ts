import { PatchStrategy, setHeaderOptions, type CoreV1Api, type V1ObjectMeta, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { buildSelector } from './cleanup.js';
import { listWithRetries, withKubeRetries, type KubeRetryOptions } from './retry.js';
import { toMillis } from './time.js';
import { Annotations, BUILD_DEADLINE_ANNOTATION } from './types.js';
import { readWorkspaceClaim } from './workspace.js';

/**
 * What a build's claim remembers for a re-run of its failed steps: which steps succeeded (their
 * pods are gone by then; FinishStep writes one annotation a step, so that steps ending together
 * never overwrite each other's), and, once the build has failed, how long it is kept.
 */

/** `succeeded.step-runner.dev/<step>`: step names are DNS labels, which an annotation's name part holds. */
export const SUCCEEDED_STEP_PREFIX = 'succeeded.step-runner.dev/';

export function succeededStepAnnotation(step: string): string {
  return `${SUCCEEDED_STEP_PREFIX}${step}`;
}

/** The steps the claim says succeeded. Pure. */
export function succeededSteps(claim: { metadata?: V1ObjectMeta } | undefined): Set<string> {
  const annotations = claim?.metadata?.annotations ?? {};
  return new Set(Object.keys(annotations).filter((key) => key.startsWith(SUCCEEDED_STEP_PREFIX)).map((key) => key.slice(SUCCEEDED_STEP_PREFIX.length)));
}

/**
 * The deadline (seconds after its creation, BUILD_DEADLINE_ANNOTATION) that keeps an object `keepSeconds`
 * from `now`, never shorter than the one it has: the orphan sweep removes it after that. Pure.
 */
export function keptDeadlineSeconds(metadata: V1ObjectMeta | undefined, now: Date, keepSeconds: number): number | undefined {
  const created = toMillis(metadata?.creationTimestamp);
  if (created === undefined) return undefined;
  const kept = Math.ceil((now.getTime() - created) / 1000) + keepSeconds;
  const written = Number(metadata?.annotations?.[BUILD_DEADLINE_ANNOTATION]);
  return Number.isFinite(written) && written > kept ? written : kept;
}

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Marks the step succeeded on the build's claim; a claim already gone is no one's loss. */
export async function recordStepSucceeded(
  api: Pick<CoreV1Api, 'patchNamespacedPersistentVolumeClaim'>,
  namespace: string,
  claimName: string,
  step: string,
  now: Date,
  retry?: KubeRetryOptions,
): Promise<void> {
  const operation = `mark step "${step}" succeeded on claim ${namespace}/${claimName}`;
  const body = { metadata: { annotations: { [succeededStepAnnotation(step)]: now.toISOString() } } };
  try {
    await withKubeRetries(operation, () => api.patchNamespacedPersistentVolumeClaim({ name: claimName, namespace, body }, MERGE_PATCH), retry);
  } catch (error) {
    if (httpStatus(error) === 404) return;
    throw unexpectedKubeError(operation, error);
  }
}

export interface KeptBuildObjects {
  /** The claim as kept, its annotations included; undefined when the build has none (any more). */
  claim: V1PersistentVolumeClaim | undefined;
  keptSecrets: number;
}

/**
 * Keeps a failed build's claim and Secrets (its clone credentials) for `keepSeconds` more, by
 * their deadline annotation, which the orphan sweep reads: nothing else needs to remember them.
 */
export async function keepBuildObjects(
  api: Pick<CoreV1Api, 'readNamespacedPersistentVolumeClaim' | 'patchNamespacedPersistentVolumeClaim' | 'listNamespacedSecret' | 'replaceNamespacedSecret'>,
  namespace: string,
  buildId: string,
  claimName: string,
  keep: { now: Date; seconds: number },
  retry?: KubeRetryOptions,
): Promise<KeptBuildObjects> {
  const claim = await readWorkspaceClaim(api, namespace, claimName, retry);
  if (!claim) return { claim: undefined, keptSecrets: 0 };
  const kept = await keepOne(`keep claim ${namespace}/${claimName}`, claim.metadata, keep, (body) =>
    api.patchNamespacedPersistentVolumeClaim({ name: claimName, namespace, body }, MERGE_PATCH), retry);
  const secrets = await listWithRetries(`list secrets of build ${buildId} in ${namespace}`, () => api.listNamespacedSecret({ namespace, labelSelector: buildSelector(buildId) }), retry);
  let keptSecrets = 0;
  for (const secret of secrets) {
    const name = secret.metadata?.name;
    const exactBuild = secret.metadata?.annotations?.[Annotations.build];
    if (!name || (exactBuild !== undefined && exactBuild !== buildId)) continue;
    // Replaced whole, as its token's renewal replaces it (the Role grants update, not patch, on Secrets); the
    // listed resourceVersion makes a renewal meanwhile a conflict, not a lost token.
    const replace = (patch: { metadata: { annotations: Record<string, string> } }) =>
      api.replaceNamespacedSecret({ name, namespace, body: { ...secret, metadata: { ...secret.metadata, annotations: { ...secret.metadata?.annotations, ...patch.metadata.annotations } } } });
    if (await keepOne(`keep secret ${namespace}/${name}`, secret.metadata, keep, replace, retry)) keptSecrets++;
  }
  return { claim: (kept as V1PersistentVolumeClaim | undefined) ?? claim, keptSecrets };
}

async function keepOne(
  operation: string,
  metadata: V1ObjectMeta | undefined,
  keep: { now: Date; seconds: number },
  patch: (body: { metadata: { annotations: Record<string, string> } }) => Promise<unknown>,
  retry?: KubeRetryOptions,
): Promise<unknown> {
  const deadline = keptDeadlineSeconds(metadata, keep.now, keep.seconds);
  if (deadline === undefined || metadata?.deletionTimestamp) return undefined;
  try {
    return await withKubeRetries(operation, () => patch({ metadata: { annotations: { [BUILD_DEADLINE_ANNOTATION]: String(deadline) } } }), retry);
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw unexpectedKubeError(operation, error);
  }
}
