/**
 * Server-side dry run (`?dryRun=All`, or `dryRun: [All]` in DeleteOptions): the request is
 * validated, defaulted and answered exactly as a real one, and nothing is stored, so no controller
 * or kubelet ever sees it (`kubectl run|apply|create|delete --dry-run=server`). Done by handing the
 * verb a store that answers every write from a copy instead of making it.
 */
import { randomUUID } from 'node:crypto';
import { alreadyExists, invalid } from './api-errors.js';
import { notSupported } from './field-errors.js';
import { formatTime } from './objects.js';
import type { ApiContext } from './resource-handlers.js';
import type { ObjectStore } from './store.js';

const ALL = 'All';

/** Which options object the apiserver validates the value in: its name is in the error. */
export type DryRunOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/**
 * Whether the request is a dry run; a value other than `All` is refused as the apiserver refuses
 * it (422, `dryRun: Unsupported value: []string{"X"}: supported values: "All"`).
 */
export function isDryRun(kind: DryRunOptionsKind, query: URLSearchParams, body?: unknown): boolean {
  const fromBody = (body as { dryRun?: unknown } | undefined)?.dryRun;
  const values = [...query.getAll('dryRun'), ...(Array.isArray(fromBody) ? fromBody.map(String) : [])].filter((v) => v !== '');
  if (values.length === 0) return false;
  if (values.some((v) => v !== ALL)) {
    const written = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
    throw invalid(`${kind}.meta.k8s.io`, '', [{ ...notSupported('dryRun', ALL, [ALL]), message: `Unsupported value: ${written}: supported values: "${ALL}"` }]);
  }
  return true;
}

/** The context a verb runs in: the real one, or for a dry run one whose store writes nothing. */
export function contextFor(ctx: ApiContext, dryRun: boolean): ApiContext {
  return dryRun ? { ...ctx, store: previewStore(ctx.store, ctx.now) } : ctx;
}

/** Reads go to the store; create, update and remove answer what they would have written. */
function previewStore(store: ObjectStore, now: ApiContext['now']): ObjectStore {
  const writes: Partial<ObjectStore> = {
    create(resource, object) {
      const name = object.metadata.name ?? '';
      if (store.get(resource, object.metadata.namespace, name) !== undefined) throw alreadyExists(resource, name);
      const answer = structuredClone(object);
      // As a real dry run answers: a uid and creation time, no resourceVersion (nothing was written).
      answer.metadata.uid = randomUUID();
      answer.metadata.creationTimestamp = formatTime(now());
      delete answer.metadata.resourceVersion;
      return answer;
    },
    update(resource, namespace, name, change, uid) {
      const current = store.get(resource, namespace, name);
      if (current === undefined || (uid !== undefined && current.metadata.uid !== uid)) return undefined;
      const draft = structuredClone(current);
      change(draft);
      return draft;
    },
    remove(resource, namespace, name, uid) {
      const current = store.get(resource, namespace, name);
      if (current === undefined || (uid !== undefined && current.metadata.uid !== uid)) return undefined;
      return structuredClone(current);
    },
  };
  return new Proxy(store, {
    get(target, property) {
      if (Object.hasOwn(writes, property)) return writes[property as keyof ObjectStore];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
