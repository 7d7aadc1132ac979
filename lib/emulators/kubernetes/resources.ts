/**
 * The resources the embedded API serves: one table that routing, discovery, validation and field
 * selectors all read, so they cannot disagree.
 */
import { badRequest, type FieldProblem } from './api-errors.js';
import { applyClaimDefaults } from './claim-defaults.js';
import { EVENTS_GROUP, EVENTS_V1_FIELD_LABELS, toEventsV1 } from './event-versions.js';
import { checkObjectName } from './name-validation.js';
import type { CoreEvent, KubeObject, PersistentVolumeClaim, Pod, Secret } from './objects.js';
import { applyPodDefaults } from './pod-defaults.js';
import { validatePod, validateSecret } from './validation.js';
import { validateClaim } from './volume-validation.js';

export interface ResourceType {
  name: string;
  /** The API group; absent for the core group (/api/v1). Every served group is at version v1. */
  group?: string;
  singularName: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  /** Field labels a fieldSelector may use (metadata.name and metadata.namespace always work). */
  fieldLabels: string[];
  /** Validates a new object (after generateName); returns problems for a 422. */
  validate(object: KubeObject): FieldProblem[];
  /** Fills the defaults the apiserver fills. */
  applyDefaults(object: KubeObject): void;
  /**
   * Another version of a stored resource: the store's name for it, and how a stored object reads
   * in this version. Field selectors match the converted object.
   */
  view?: { of: string; fromStored(object: KubeObject): KubeObject };
}

const META_FIELDS = ['metadata.name', 'metadata.namespace'];
const STORAGE_GROUP = 'storage.k8s.io';
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'watch'];

export const RESOURCES: Record<string, ResourceType> = {
  namespaces: {
    name: 'namespaces',
    singularName: 'namespace',
    kind: 'Namespace',
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'watch'],
    shortNames: ['ns'],
    fieldLabels: [...META_FIELDS, 'status.phase'],
    validate: (o) => checkObjectName(o.metadata.name, 'label'),
    applyDefaults: (o) => {
      o.metadata.labels = { ...o.metadata.labels, 'kubernetes.io/metadata.name': o.metadata.name ?? '' };
      o.spec = { finalizers: ['kubernetes'] };
      o.status = { phase: 'Active' };
    },
  },
  nodes: {
    name: 'nodes',
    singularName: 'node',
    kind: 'Node',
    namespaced: false,
    // Patched to cordon it, deleted to take it away (pod-gc.ts then ends its pods).
    verbs: ['delete', 'get', 'list', 'patch', 'watch'],
    shortNames: ['no'],
    fieldLabels: [...META_FIELDS, 'spec.unschedulable'],
    validate: () => [],
    applyDefaults: () => {},
  },
  pods: {
    name: 'pods',
    singularName: 'pod',
    kind: 'Pod',
    namespaced: true,
    verbs: [...ALL_VERBS, 'patch'],
    shortNames: ['po'],
    categories: ['all'],
    fieldLabels: [
      ...META_FIELDS,
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
    validate: (o) => validatePod(o as Pod),
    applyDefaults: (o) => applyPodDefaults(o as Pod),
  },
  events: {
    name: 'events',
    singularName: 'event',
    kind: 'Event',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['ev'],
    fieldLabels: [
      ...META_FIELDS,
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
    validate: (o) => checkObjectName(o.metadata.name, 'subdomain'),
    applyDefaults: (o) => {
      o.count ??= 1;
      o.type ??= 'Normal';
    },
  },
  // The scheduler writes through this version; everything reads through either.
  'events.events.k8s.io': {
    name: 'events',
    group: EVENTS_GROUP,
    singularName: 'event',
    kind: 'Event',
    namespaced: true,
    verbs: ['get', 'list', 'watch'],
    shortNames: ['ev'],
    fieldLabels: [...META_FIELDS, ...EVENTS_V1_FIELD_LABELS],
    validate: () => [],
    applyDefaults: () => {},
    view: { of: 'events', fromStored: (o) => toEventsV1(o as CoreEvent) },
  },
  persistentvolumeclaims: {
    name: 'persistentvolumeclaims',
    singularName: 'persistentvolumeclaim',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    // Patched when a build fails: its annotations keep which steps succeeded and how long the claim is kept for a re-run.
    verbs: [...ALL_VERBS, 'patch'],
    shortNames: ['pvc'],
    fieldLabels: META_FIELDS,
    validate: (o) => validateClaim(o as PersistentVolumeClaim),
    applyDefaults: (o) => applyClaimDefaults(o as PersistentVolumeClaim),
  },
  storageclasses: {
    name: 'storageclasses',
    group: STORAGE_GROUP,
    singularName: 'storageclass',
    kind: 'StorageClass',
    namespaced: false,
    verbs: ['get', 'list', 'watch'],
    shortNames: ['sc'],
    fieldLabels: META_FIELDS,
    validate: (o) => checkObjectName(o.metadata.name, 'subdomain'),
    applyDefaults: () => {},
  },
  // What a pod's serviceAccountName names (resource-handlers.ts admitServiceAccount): the runner's
  // identities' accounts (lib/kube/service-accounts.ts). Kept as given; no token Secret is made for
  // one (none is since Kubernetes 1.24, LegacyServiceAccountTokenNoAutoGeneration).
  serviceaccounts: {
    name: 'serviceaccounts',
    singularName: 'serviceaccount',
    kind: 'ServiceAccount',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['sa'],
    fieldLabels: META_FIELDS,
    validate: (o) => checkObjectName(o.metadata.name, 'subdomain'),
    applyDefaults: () => {},
  },
  secrets: {
    name: 'secrets',
    singularName: 'secret',
    kind: 'Secret',
    namespaced: true,
    // Replaced whole (PUT): a build's clone credentials are renewed in place, and kept with a failed build's claim.
    verbs: [...ALL_VERBS, 'update'],
    fieldLabels: [...META_FIELDS, 'type'],
    validate: (o) => validateSecret(o as Secret),
    applyDefaults: (o) => {
      const secret = o as Secret;
      secret.type ??= 'Opaque';
      // stringData is write-only: the apiserver folds it into data and never returns it.
      const data: Record<string, string> = { ...secret.data };
      for (const [key, value] of Object.entries(secret.stringData ?? {})) {
        data[key] = Buffer.from(String(value), 'utf8').toString('base64');
      }
      for (const [key, value] of Object.entries(data)) {
        if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
          throw badRequest(`Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0 (key "${key}")`);
        }
      }
      secret.data = data;
      delete secret.stringData;
    },
  },
};

export const POD_LOG_SUBRESOURCE = 'log';
export const POD_EXEC_SUBRESOURCE = 'exec';
export const POD_EVICTION_SUBRESOURCE = 'eviction';

/** `v1` for the core group, `group/v1` for the others, as objects and lists carry it. */
export function apiVersionOf(resource: Pick<ResourceType, 'group'>): string {
  return resource.group ? `${resource.group}/v1` : 'v1';
}

/** The served resource `name` of `group` ('' for core), if any. */
export function resourceOf(group: string, name: string): ResourceType | undefined {
  return Object.values(RESOURCES).find((r) => r.name === name && (r.group ?? '') === group);
}

/** Where the store keeps the resource's objects: its own name, or the resource it is a view of. */
export function storedAs(resource: Pick<ResourceType, 'name' | 'view'>): string {
  return resource.view?.of ?? resource.name;
}

/** A stored object as this resource's version spells it. */
export function inVersion(resource: Pick<ResourceType, 'view'>, object: KubeObject): KubeObject {
  return resource.view ? resource.view.fromStored(object) : object;
}

/** The API groups served besides the core group. */
export const API_GROUPS: readonly string[] = [...new Set(Object.values(RESOURCES).flatMap((r) => (r.group ? [r.group] : [])))];
