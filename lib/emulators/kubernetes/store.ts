import { randomUUID } from 'node:crypto';
import { alreadyExists } from './api-errors.js';
import type { Clock } from './clock.js';
import { formatTime, keyOf, type KubeObject } from './objects.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: WatchEventType;
  resource: string;
  object: KubeObject;
  /** The object before a MODIFIED, so a selector watch can tell "left the selection" apart. */
  previous?: KubeObject;
  resourceVersion: number;
}

export type StoreListener = (event: StoreEvent) => void;

/**
 * Every object of the cluster, as etcd holds them for the apiserver: one resourceVersion counter for
 * all writes, a bounded history so watches can resume from a resourceVersion, and listeners.
 * Stored objects are never mutated in place (writes store a fresh copy), so events and snapshots can
 * be shared with readers; readers must not mutate what they get.
 */
export class ObjectStore {
  private revision = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly history: StoreEvent[] = [];
  private readonly listeners = new Set<StoreListener>();

  constructor(
    private readonly now: Clock,
    private readonly historyLimit = 10_000,
  ) {}

  get resourceVersion(): string {
    return String(this.revision);
  }

  /** The oldest resourceVersion a watch can still resume from. */
  get oldestResumable(): number {
    const first = this.history[0];
    return first === undefined ? this.revision : first.resourceVersion - 1;
  }

  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.bucket(resource).get(keyOf(namespace, name));
  }

  /** Sorted by namespace then name, the order etcd's keys give a real list. */
  list(resource: string, namespace?: string): KubeObject[] {
    const all = [...this.bucket(resource).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return all.map(([, o]) => o).filter((o) => namespace === undefined || o.metadata.namespace === namespace);
  }

  create(resource: string, object: KubeObject): KubeObject {
    const name = object.metadata.name ?? '';
    const key = keyOf(object.metadata.namespace, name);
    const bucket = this.bucket(resource);
    if (bucket.has(key)) throw alreadyExists(resource, name);
    const stored = structuredClone(object);
    stored.metadata.uid = randomUUID();
    stored.metadata.creationTimestamp = formatTime(this.now());
    stored.metadata.resourceVersion = this.bump();
    bucket.set(key, stored);
    this.emit({ type: 'ADDED', resource, object: stored, resourceVersion: this.revision });
    return stored;
  }

  /**
   * Applies `change` to a copy of the object and stores it (MODIFIED) unless nothing changed.
   * `uid` guards against writing to a newer object that reused the name.
   */
  update(
    resource: string,
    namespace: string | undefined,
    name: string,
    change: (draft: KubeObject) => void,
    uid?: string,
  ): KubeObject | undefined {
    const bucket = this.bucket(resource);
    const key = keyOf(namespace, name);
    const current = bucket.get(key);
    if (current === undefined || (uid !== undefined && current.metadata.uid !== uid)) return undefined;
    const draft = structuredClone(current);
    change(draft);
    draft.metadata.resourceVersion = current.metadata.resourceVersion;
    if (JSON.stringify(draft) === JSON.stringify(current)) return current;
    draft.metadata.resourceVersion = this.bump();
    bucket.set(key, draft);
    this.emit({ type: 'MODIFIED', resource, object: draft, previous: current, resourceVersion: this.revision });
    return draft;
  }

  remove(resource: string, namespace: string | undefined, name: string, uid?: string): KubeObject | undefined {
    const bucket = this.bucket(resource);
    const key = keyOf(namespace, name);
    const current = bucket.get(key);
    if (current === undefined || (uid !== undefined && current.metadata.uid !== uid)) return undefined;
    bucket.delete(key);
    // The DELETED event carries the deletion's resourceVersion, as the apiserver sends it.
    const gone = structuredClone(current);
    gone.metadata.resourceVersion = this.bump();
    this.emit({ type: 'DELETED', resource, object: gone, resourceVersion: this.revision });
    return gone;
  }

  /** Events after `resourceVersion`, or undefined when the history no longer reaches back that far. */
  eventsSince(resourceVersion: number): StoreEvent[] | undefined {
    if (resourceVersion < this.oldestResumable) return undefined;
    return this.history.filter((e) => e.resourceVersion > resourceVersion);
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private bump(): string {
    this.revision += 1;
    return String(this.revision);
  }

  private bucket(resource: string): Map<string, KubeObject> {
    let bucket = this.objects.get(resource);
    if (bucket === undefined) {
      bucket = new Map();
      this.objects.set(resource, bucket);
    }
    return bucket;
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length > this.historyLimit) this.history.shift();
    for (const listener of [...this.listeners]) listener(event);
  }
}
