/** The verbs on stored objects (get, list, create, delete, deletecollection), with apiserver semantics. */
import { badRequest, conflict, forbidden, invalid, notFound, type FieldProblem } from './api-errors.js';
import { forbidden as forbiddenField } from './field-errors.js';
import type { Clock } from './clock.js';
import { enforcedLevel, podSecurityRefusal, podSecurityViolations } from './pod-security.js';
import { mergePatch } from './merge-patch.js';
import { applySchedulingGatedCondition } from './pod-defaults.js';
import type { TokenIssuer } from './service-account-token.js';
import { formatTime, type KubeObject, type Pod } from './objects.js';
import { apiVersionOf, inVersion, storedAs, type ResourceType } from './resources.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { ObjectStore } from './store.js';

export interface ApiContext {
  store: ObjectStore;
  now: Clock;
  /** A mutating admission webhook of the cluster's caller (faults.ts NodeFaults.mutatePod). */
  mutatePod?: (pod: Pod) => void;
  /** EKS Pod Identity's mutating webhook, when the cluster plays it (pod-identity-webhook.ts). */
  podIdentityWebhook?: (pod: Pod, namespace: string) => void;
  /** The service account tokens' issuer, for the TokenRequest API (token-request.ts). */
  tokens?: TokenIssuer;
}

/** The object as a GET returns it: in the resource's version, kind and apiVersion first. */
export function withKind(resource: ResourceType, object: KubeObject): KubeObject {
  return { kind: resource.kind, apiVersion: apiVersionOf(resource), ...inVersion(resource, object) };
}

/** List items carry no kind/apiVersion on the wire; the list's kind says what they are. */
function asListItem(object: KubeObject): KubeObject {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = object;
  return rest as KubeObject;
}

export interface Selection {
  matches(object: KubeObject): boolean;
}

export function selection(resource: ResourceType, namespace: string | undefined, query: URLSearchParams): Selection {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'), resource.fieldLabels);
  return {
    matches: (o) =>
      (namespace === undefined || o.metadata.namespace === namespace) &&
      matchesLabels(labels, o.metadata.labels) &&
      (fields.length === 0 || matchesFields(fields, inVersion(resource, o))),
  };
}

function requireNamespace(ctx: ApiContext, resource: ResourceType, namespace: string | undefined): void {
  if (resource.namespaced && namespace !== undefined && ctx.store.get('namespaces', undefined, namespace) === undefined) {
    throw notFound('namespaces', namespace);
  }
}

export function listObjects(ctx: ApiContext, resource: ResourceType, namespace: string | undefined, query: URLSearchParams): KubeObject[] {
  const chosen = selection(resource, namespace, query);
  return ctx.store.list(storedAs(resource), namespace).filter((o) => chosen.matches(o));
}

export function listBody(ctx: ApiContext, resource: ResourceType, items: KubeObject[]) {
  return {
    kind: `${resource.kind}List`,
    apiVersion: apiVersionOf(resource),
    metadata: { resourceVersion: ctx.store.resourceVersion },
    items: items.map((o) => asListItem(inVersion(resource, o))),
  };
}

/** The object as the store holds it (a view's in the stored version). */
export function getStored(ctx: ApiContext, resource: ResourceType, namespace: string | undefined, name: string): KubeObject {
  const found = ctx.store.get(storedAs(resource), namespace, name);
  if (found === undefined) throw notFound(resource.name, name);
  return found;
}

export function getObject(ctx: ApiContext, resource: ResourceType, namespace: string | undefined, name: string): KubeObject {
  return withKind(resource, getStored(ctx, resource, namespace, name));
}

const GENERATED_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function generateSuffix(): string {
  let suffix = '';
  for (let i = 0; i < 5; i += 1) suffix += GENERATED_NAME_ALPHABET[Math.floor(Math.random() * GENERATED_NAME_ALPHABET.length)];
  return suffix;
}

export function createObject(ctx: ApiContext, resource: ResourceType, namespace: string | undefined, body: unknown): KubeObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest(`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`);
  }
  const object = structuredClone(body) as KubeObject;
  object.metadata = typeof object.metadata === 'object' && object.metadata !== null ? object.metadata : {};
  if (object.kind !== undefined && object.kind !== resource.kind) {
    throw badRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${apiVersionOf(resource)})`);
  }
  if (resource.namespaced) {
    if (object.metadata.namespace !== undefined && object.metadata.namespace !== '' && object.metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    object.metadata.namespace = namespace;
  } else {
    delete object.metadata.namespace;
  }
  requireNamespace(ctx, resource, namespace);
  if (!object.metadata.name && object.metadata.generateName) {
    object.metadata.name = `${object.metadata.generateName}${generateSuffix()}`;
  }
  for (const field of ['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
    delete object.metadata[field];
  }
  const problems = resource.validate(object);
  if (problems.length > 0) throw invalid(resource.kind, object.metadata.name ?? '', problems);
  resource.applyDefaults(object);
  if (resource.name === 'pods') {
    ctx.mutatePod?.(object as Pod);
    applySchedulingGatedCondition(object as Pod, formatTime(ctx.now()));
    admitServiceAccount(ctx, object as Pod, namespace);
    // Webhooks run after the built-in mutating plugins (ServiceAccount's among them) and before validating admission.
    ctx.podIdentityWebhook?.(object as Pod, namespace ?? 'default');
    admitPod(ctx, object as Pod, namespace);
  }
  object.kind = resource.kind;
  object.apiVersion = apiVersionOf(resource);
  return withKind(resource, ctx.store.create(resource.name, object));
}

/**
 * The ServiceAccount admission plugin (kubernetes/kubernetes plugin/pkg/admission/serviceaccount/
 * admission.go, Admit): a pod naming a service account that does not exist is refused, 403 with
 * `error looking up service account NS/NAME: serviceaccount "NAME" not found`. `default` always
 * exists on a real cluster (the service account controller makes it in every namespace), so it
 * passes here without an object. Token mounting is not emulated: step pods set
 * automountServiceAccountToken false.
 */
function admitServiceAccount(ctx: ApiContext, pod: Pod, namespace: string | undefined): void {
  const name = typeof pod.spec.serviceAccountName === 'string' && pod.spec.serviceAccountName !== '' ? pod.spec.serviceAccountName : 'default';
  const ns = namespace ?? 'default';
  if (name === 'default' || ctx.store.get('serviceaccounts', ns, name) !== undefined) return;
  throw forbidden('pods', pod.metadata.name ?? '', `error looking up service account ${ns}/${name}: serviceaccount "${name}" not found`);
}

/** Validating admission, after the object itself is valid: the namespace's Pod Security level. */
function admitPod(ctx: ApiContext, pod: Pod, namespace: string | undefined): void {
  const enforced = enforcedLevel(ctx.store.get('namespaces', undefined, namespace ?? 'default'));
  if (enforced === undefined) return;
  const violations = podSecurityViolations(pod, enforced.level);
  if (violations.length === 0) return;
  throw forbidden('pods', pod.metadata.name ?? '', podSecurityRefusal(enforced, violations));
}

/**
 * PUT: the whole object replaced by the body, as the apiserver's update does: same name and
 * namespace, what the server owns (uid, creation time) kept, validated and defaulted as on create,
 * and refused with a Conflict when the body's resourceVersion is not the stored one.
 */
export function replaceObject(ctx: ApiContext, resource: ResourceType, namespace: string | undefined, name: string, body: unknown): KubeObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest(`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`);
  }
  const object = structuredClone(body) as KubeObject;
  object.metadata = typeof object.metadata === 'object' && object.metadata !== null ? object.metadata : {};
  if (object.metadata.name !== name) throw badRequest(`the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  if (resource.namespaced && object.metadata.namespace && object.metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const current = ctx.store.get(resource.name, namespace, name);
  if (current === undefined) throw notFound(resource.name, name);
  const version = object.metadata.resourceVersion;
  if (version !== undefined && version !== '' && version !== current.metadata.resourceVersion) throw conflict(resource.name, name);
  const problems = resource.validate(object);
  if (problems.length > 0) throw invalid(resource.kind, name, problems);
  resource.applyDefaults(object);
  const updated = ctx.store.update(resource.name, namespace, name, (draft) => {
    for (const key of Object.keys(draft)) if (key !== 'metadata') delete draft[key];
    Object.assign(draft, object, {
      kind: resource.kind,
      apiVersion: apiVersionOf(resource),
      metadata: {
        ...object.metadata,
        ...(resource.namespaced ? { namespace } : {}),
        uid: current.metadata.uid,
        creationTimestamp: current.metadata.creationTimestamp,
      },
    });
  });
  if (updated === undefined) throw notFound(resource.name, name);
  return withKind(resource, updated);
}

/**
 * PATCH (merge-patch.ts): the patch applied to the stored object, then stored as an update is:
 * what the server owns (name, namespace, uid, creation time) kept, validated, and refused with a
 * Conflict when the patch names a resourceVersion that is not the stored one.
 */
export function patchObject(ctx: ApiContext, resource: ResourceType, namespace: string | undefined, name: string, patch: unknown): KubeObject {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw badRequest('json: cannot unmarshal the patch into an object');
  requireNamespace(ctx, resource, namespace);
  const current = ctx.store.get(resource.name, namespace, name);
  if (current === undefined) throw notFound(resource.name, name);
  const version = (patch as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion;
  if (typeof version === 'string' && version !== '' && version !== current.metadata.resourceVersion) throw conflict(resource.name, name);
  const merged = mergePatch(current, patch) as KubeObject;
  const { uid, creationTimestamp } = current.metadata;
  merged.metadata = { ...(typeof merged.metadata === 'object' && merged.metadata !== null ? merged.metadata : {}), name, uid, creationTimestamp };
  if (resource.namespaced) merged.metadata.namespace = namespace;
  merged.kind = resource.kind;
  merged.apiVersion = apiVersionOf(resource);
  // A pod's status is the kubelet's and the scheduler's (its own subresource): an update keeps it
  // (kubernetes/kubernetes pkg/registry/core/pod/strategy.go PrepareForUpdate).
  if (resource.name === 'pods') merged['status'] = current['status'];
  const problems = [...resource.validate(merged), ...(resource.name === 'pods' ? podUpdateProblems(current as Pod, merged as Pod) : [])];
  if (problems.length > 0) throw invalid(resource.kind, name, problems);
  const updated = ctx.store.update(
    resource.name,
    namespace,
    name,
    (draft) => {
      for (const key of Object.keys(draft)) delete draft[key];
      Object.assign(draft, merged);
    },
    uid,
  );
  if (updated === undefined) throw notFound(resource.name, name);
  return withKind(resource, updated);
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
}

function deletePod(ctx: ApiContext, pod: Pod, options: DeleteOptions): KubeObject | undefined {
  const { namespace, name, uid } = pod.metadata;
  const period = options.gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
  const phase = pod.status?.phase;
  // The apiserver's rule: an unscheduled or finished pod has nothing to stop, so it goes at once.
  if (period <= 0 || !pod.spec.nodeName || phase === 'Succeeded' || phase === 'Failed') {
    return ctx.store.remove('pods', namespace, name ?? '', uid);
  }
  if (pod.metadata.deletionTimestamp) return pod;
  return ctx.store.update(
    'pods',
    namespace,
    name ?? '',
    (draft) => {
      draft.metadata.deletionTimestamp = formatTime(new Date(ctx.now().getTime() + period * 1000));
      draft.metadata.deletionGracePeriodSeconds = period;
    },
    uid,
  );
}

/**
 * An object with finalizers is only marked: it stays, Terminating, until the controllers that own
 * the finalizers let it go (claim-protection.ts for a claim's).
 */
function markForDeletion(ctx: ApiContext, resource: ResourceType, object: KubeObject): KubeObject | undefined {
  if (object.metadata.deletionTimestamp) return object;
  const { namespace, name, uid } = object.metadata;
  return ctx.store.update(
    resource.name,
    namespace,
    name ?? '',
    (draft) => {
      draft.metadata.deletionTimestamp = formatTime(ctx.now());
      draft.metadata.deletionGracePeriodSeconds = 0;
    },
    uid,
  );
}

function deleteNamespace(ctx: ApiContext, namespace: KubeObject): KubeObject | undefined {
  const name = namespace.metadata.name ?? '';
  if (name === 'default') throw forbidden('namespaces', name, 'this namespace may not be deleted');
  for (const resource of ['pods', 'events', 'secrets', 'serviceaccounts', 'persistentvolumeclaims']) {
    for (const object of ctx.store.list(resource, name)) ctx.store.remove(resource, name, object.metadata.name ?? '');
  }
  const removed = ctx.store.remove('namespaces', undefined, name);
  if (removed === undefined) return undefined;
  return { ...removed, status: { phase: 'Terminating' }, metadata: { ...removed.metadata, deletionTimestamp: formatTime(ctx.now()) } };
}

export function deleteObject(
  ctx: ApiContext,
  resource: ResourceType,
  namespace: string | undefined,
  name: string,
  options: DeleteOptions,
): KubeObject {
  requireNamespace(ctx, resource, namespace);
  const current = ctx.store.get(resource.name, namespace, name);
  if (current === undefined) throw notFound(resource.name, name);
  let result: KubeObject | undefined;
  if (resource.name === 'pods') result = deletePod(ctx, current as Pod, options);
  else if (resource.name === 'namespaces') result = deleteNamespace(ctx, current);
  else if (current.metadata.finalizers?.length) result = markForDeletion(ctx, resource, current);
  else result = ctx.store.remove(resource.name, namespace, name);
  return withKind(resource, result ?? current);
}

export function deleteCollection(
  ctx: ApiContext,
  resource: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
  options: DeleteOptions,
) {
  requireNamespace(ctx, resource, namespace);
  const doomed = listObjects(ctx, resource, namespace, query);
  const deleted = doomed.map((o) => deleteObject(ctx, resource, o.metadata.namespace, o.metadata.name ?? '', options));
  return listBody(ctx, resource, deleted);
}

/** Grace period from the query or from a DeleteOptions body (kubectl sends the body). */
export function deleteOptionsFrom(query: URLSearchParams, body: unknown): DeleteOptions {
  const fromQuery = query.get('gracePeriodSeconds');
  if (fromQuery !== null && fromQuery !== '') {
    const value = Number(fromQuery);
    if (!Number.isInteger(value)) throw badRequest(`invalid value for gracePeriodSeconds: ${fromQuery}`);
    return { gracePeriodSeconds: value };
  }
  const fromBody = (body as { gracePeriodSeconds?: unknown } | undefined)?.gracePeriodSeconds;
  return typeof fromBody === 'number' ? { gracePeriodSeconds: fromBody } : {};
}

/**
 * What an update may change of a pod's spec (kubernetes/kubernetes pkg/apis/core/validation/
 * validation.go ValidatePodUpdate): here, its scheduling gates, which may only be removed
 * (KEP-3521: "only deletion is allowed, but found new scheduling gate 'NAME'"), and nothing else
 * (the real rule also lets images, activeDeadlineSeconds and added tolerations change; no caller
 * of this cluster changes them).
 */
function podUpdateProblems(current: Pod, updated: Pod): FieldProblem[] {
  const before = new Set((current.spec.schedulingGates ?? []).map((g) => g.name));
  const added = (updated.spec?.schedulingGates ?? []).flatMap((gate, i) =>
    before.has(gate.name) ? [] : [forbiddenField(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${gate.name}'`)],
  );
  const { schedulingGates: _was, ...rest } = current.spec;
  const { schedulingGates: _now, ...next } = updated.spec ?? ({} as Pod['spec']);
  const others = JSON.stringify(rest) === JSON.stringify(next) ? [] : [forbiddenField('spec', POD_UPDATE_FIELDS)];
  return [...added, ...others];
}

const POD_UPDATE_FIELDS =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';
