/**
 * The Eviction API (POST pods/NAME/eviction, the subresource `kubectl drain` uses), as
 * pkg/registry/core/pod/storage/eviction.go serves it: the pod gets the DisruptionTarget condition
 * (EvictionByEvictionAPI), then is deleted gracefully with the Eviction's deleteOptions, and the
 * answer is a Status Success (201). With no PodDisruptionBudgets served, no eviction is ever
 * refused with a 429.
 */
import { badRequest } from './api-errors.js';
import { Disruptions, withDisruptionTarget } from './disruption.js';
import { formatTime, type Pod } from './objects.js';
import { deleteObject, deleteOptionsFrom, getStored, type ApiContext } from './resource-handlers.js';
import { RESOURCES } from './resources.js';

/** The versions an Eviction body may be in: policy/v1, and v1beta1 as older clients send it. */
export const EVICTION_VERSIONS: readonly string[] = ['policy/v1', 'policy/v1beta1'];

export interface Eviction {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  deleteOptions?: { gracePeriodSeconds?: number; dryRun?: string[] };
}

/** The apiserver's answer to an eviction it carried out. */
export const EVICTION_SUCCESS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as const;

/** The body as the apiserver decodes it: an Eviction of this pod, or a 400. */
export function parseEviction(body: unknown, name: string): Eviction {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
  }
  const eviction = body as Eviction;
  if (eviction.kind !== undefined && eviction.kind !== 'Eviction') {
    throw badRequest(`no kind "${eviction.kind}" is registered for version "${eviction.apiVersion ?? ''}"`);
  }
  if (eviction.apiVersion !== undefined && !EVICTION_VERSIONS.includes(eviction.apiVersion)) {
    throw badRequest(`no kind "Eviction" is registered for version "${eviction.apiVersion}"`);
  }
  const named = eviction.metadata?.name;
  if (named !== undefined && named !== '' && named !== name) throw badRequest('name in URL does not match name in Eviction object');
  return eviction;
}

/** Evicts the pod (404 when it is not there); the deletion then runs as any graceful one does. */
export function evictPod(ctx: ApiContext, namespace: string, name: string, eviction: Eviction): typeof EVICTION_SUCCESS {
  const pod = getStored(ctx, RESOURCES.pods!, namespace, name) as Pod;
  const now = formatTime(ctx.now());
  ctx.store.update(
    'pods',
    namespace,
    name,
    (draft) => {
      const p = draft as Pod;
      p.status = { ...p.status, conditions: withDisruptionTarget(p.status?.conditions ?? [], Disruptions.eviction, now) } as Pod['status'];
    },
    pod.metadata.uid,
  );
  deleteObject(ctx, RESOURCES.pods!, namespace, name, deleteOptionsFrom(new URLSearchParams(), eviction.deleteOptions));
  return EVICTION_SUCCESS;
}
