/**
 * The build's workspace: one PersistentVolumeClaim per build, mounted at /workspace by every step
 * pod (docs/contracts.md#workspace). Created by PrepareBuild, deleted with the build's pods.
 */
import type { CoreV1Api, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { WorkspaceUnavailable } from './errors.js';
import { describeKubeFailure, httpStatus, kubeFailure, unexpectedKubeError } from './api-error.js';
import { labelValue, workspaceClaimName } from './pod-name.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';
import { Annotations, BUILD_DEADLINE_ANNOTATION, Labels, MANAGED_BY } from './types.js';

/** Contract: the mount path, every step's working directory and the root of the checkout. */
export const WORKSPACE_PATH = '/workspace';
export const WORKSPACE_VOLUME = 'workspace';

/**
 * Set by the scheduler on a WaitForFirstConsumer claim when its first pod is scheduled: the node
 * the volume is provisioned for, and so the node every later pod of the build is pinned to. Never
 * set for an Immediate class, nor before the first pod is placed: the pods' pod affinity to one
 * another keeps them together then (pod-manifest.ts workspaceAffinity).
 */
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';


export interface WorkspaceClaimSettings {
  /** Absent: the cluster's default storage class. */
  storageClass?: string;
  /** A Kubernetes quantity, e.g. 10Gi. */
  size: string;
  accessMode: 'ReadWriteOnce' | 'ReadWriteOncePod' | 'ReadWriteMany';
}

export interface WorkspaceClaimInput {
  buildId: string;
  namespace: string;
  settings: WorkspaceClaimSettings;
  /** The longest the build can run: its steps' timeouts added up. */
  deadlineSeconds: number;
}

export function workspaceClaimManifest({ buildId, namespace, settings, deadlineSeconds }: WorkspaceClaimInput): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: workspaceClaimName(buildId),
      namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: labelValue(buildId) },
      annotations: { [Annotations.build]: buildId, [BUILD_DEADLINE_ANNOTATION]: String(deadlineSeconds) },
    },
    spec: {
      accessModes: [settings.accessMode],
      ...(settings.storageClass ? { storageClassName: settings.storageClass } : {}),
      resources: { requests: { storage: settings.size } },
    },
  };
}

export type ClaimApi = Pick<CoreV1Api, 'createNamespacedPersistentVolumeClaim' | 'readNamespacedPersistentVolumeClaim'>;

/**
 * Creates the build's claim, or adopts the one a retried PrepareBuild created. A claim the API
 * refuses (a size or storage class it rejects, no permission) is WorkspaceUnavailable at once, and
 * so is a claim of the same name that belongs to another build.
 */
export async function ensureWorkspaceClaim(
  api: ClaimApi,
  manifest: V1PersistentVolumeClaim,
  retry?: KubeRetryOptions,
): Promise<{ claim: V1PersistentVolumeClaim; adopted: boolean }> {
  const namespace = manifest.metadata!.namespace!;
  const name = manifest.metadata!.name!;
  const create = `create persistentvolumeclaim ${namespace}/${name}`;
  try {
    const claim = await withKubeRetries(
      create,
      () => api.createNamespacedPersistentVolumeClaim({ namespace, body: manifest, fieldValidation: 'Strict' }),
      retry,
    );
    return { claim, adopted: false };
  } catch (error) {
    const status = httpStatus(error);
    if (status === 400 || status === 403 || status === 404 || status === 422) {
      throw new WorkspaceUnavailable(
        `The build's workspace could not be created: the Kubernetes API refused the claim "${name}" in namespace "${namespace}": ${describeKubeFailure(kubeFailure(error))}`,
        { cause: error },
      );
    }
    if (status !== 409) throw unexpectedKubeError(create, error);
  }
  return adoptClaim(await readWorkspaceClaim(api, namespace, name, retry), manifest);
}

/**
 * The claim found under the build's claim name (undefined: gone since the create's conflict),
 * adopted when it is this build's; otherwise WorkspaceUnavailable. Pure: the in-memory cluster
 * (fake-cluster.ts) adopts by it too.
 */
export function adoptClaim(claim: V1PersistentVolumeClaim | undefined, manifest: V1PersistentVolumeClaim): { claim: V1PersistentVolumeClaim; adopted: true } {
  const owner = claim?.metadata?.annotations?.[Annotations.build];
  if (!claim || owner !== manifest.metadata?.annotations?.[Annotations.build]) {
    throw new WorkspaceUnavailable(
      `The build's workspace could not be created: a claim named "${manifest.metadata?.name}" already exists in namespace "${manifest.metadata?.namespace}"${owner ? ` and belongs to build "${owner}"` : ''}. Delete it or use another namespace.`,
    );
  }
  return { claim, adopted: true };
}

/** The node the build's volume went to with its first pod; undefined before that (or no claim). */
export async function workspaceNode(
  api: Pick<CoreV1Api, 'readNamespacedPersistentVolumeClaim'>,
  namespace: string,
  claimName: string,
  retry?: KubeRetryOptions,
): Promise<string | undefined> {
  const claim = await readWorkspaceClaim(api, namespace, claimName, retry);
  return claim?.metadata?.annotations?.[SELECTED_NODE_ANNOTATION] || undefined;
}

/** The build's claim; undefined once it has gone (or before it was made). */
export async function readWorkspaceClaim(
  api: Pick<CoreV1Api, 'readNamespacedPersistentVolumeClaim'>,
  namespace: string,
  name: string,
  retry?: KubeRetryOptions,
): Promise<V1PersistentVolumeClaim | undefined> {
  const read = `read persistentvolumeclaim ${namespace}/${name}`;
  try {
    return await withKubeRetries(read, () => api.readNamespacedPersistentVolumeClaim({ name, namespace }), retry);
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw unexpectedKubeError(read, error);
  }
}
