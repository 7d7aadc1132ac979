/**
 * Required inter-pod affinity, as kube-scheduler's InterPodAffinity plugin filters a node
 * (kubernetes/kubernetes pkg/scheduler/framework/plugins/interpodaffinity, filtering.go):
 *
 * - The pods that count are those the scheduler's cache holds: bound to a node the cluster has and
 *   not terminal (its pod informer leaves out Succeeded and Failed pods, pkg/scheduler/scheduler.go
 *   newPodInformer); a pod being deleted still counts. A pending pod counts for nothing.
 * - An existing pod counts for the incoming pod's terms when it matches every one of them (namespace
 *   and label selector), once per term, under its node's value of that term's topology key.
 * - A node fits when it has every term's topology key and, for each, some counted pod shares its
 *   value; or, the first pod of a series with affinity to itself, when no pod counted at all and the
 *   incoming pod matches all its own terms.
 * Preferred terms and anti-affinity are not filters of this kind and are not looked at.
 */
import type { KubeObject, Pod } from './objects.js';
import { matchesLabels, type LabelRequirement } from './selectors.js';
import type { ObjectStore, StoreEvent } from './store.js';

interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelector | null;
  namespaces?: string[];
  namespaceSelector?: LabelSelector | null;
  topologyKey: string;
  /** The incoming pod's values of these keys are added to the selector (In), or excluded (NotIn). */
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

/** What the filter reads beyond the pod and the node: the cluster's pods, nodes and namespaces. */
export interface AffinityPeers {
  pods: readonly Pod[];
  /** Undefined for a node the cluster does not have: its pods are not in the scheduler's snapshot. */
  nodeLabels(name: string): Record<string, string> | undefined;
  namespaceLabels(name: string): Record<string, string> | undefined;
}

export const NO_PEERS: AffinityPeers = { pods: [], nodeLabels: () => undefined, namespaceLabels: () => undefined };

export function storePeers(store: ObjectStore): AffinityPeers {
  return {
    pods: store.list('pods') as Pod[],
    nodeLabels: (name) => {
      const node = store.get('nodes', undefined, name);
      return node && (node.metadata.labels ?? {});
    },
    namespaceLabels: (name) => store.get('namespaces', undefined, name)?.metadata.labels,
  };
}

export function requiredAffinityTerms(pod: Pod): PodAffinityTerm[] {
  const affinity = pod.spec.affinity?.podAffinity as { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] } | undefined;
  return affinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
}

/** A selector absent matches nothing, an empty one everything (metav1.LabelSelectorAsSelector). */
function requirements(selector: LabelSelector | null | undefined): LabelRequirement[] | undefined {
  if (selector === null || selector === undefined) return undefined;
  const labels = Object.entries(selector.matchLabels ?? {}).map(([key, value]): LabelRequirement => ({ key, op: 'in', values: [value] }));
  const expressions = (selector.matchExpressions ?? []).map((e): LabelRequirement => {
    switch (e.operator) {
      case 'In':
        return { key: e.key, op: 'in', values: e.values ?? [] };
      case 'NotIn':
        return { key: e.key, op: 'notin', values: e.values ?? [] };
      case 'Exists':
        return { key: e.key, op: 'exists' };
      case 'DoesNotExist':
        return { key: e.key, op: 'notexists' };
    }
  });
  return [...labels, ...expressions];
}

/** One term as the scheduler compiles it for the incoming pod (framework.AffinityTerm). */
interface CompiledTerm {
  topologyKey: string;
  selector: LabelRequirement[] | undefined;
  namespaces: readonly string[];
  namespaceSelector: LabelRequirement[] | undefined;
}

function compile(term: PodAffinityTerm, incoming: Pod): CompiledTerm {
  const own = incoming.metadata.labels ?? {};
  const base = requirements(term.labelSelector);
  const keyed = (keys: string[] | undefined, op: 'in' | 'notin') =>
    (keys ?? []).filter((key) => own[key] !== undefined).map((key): LabelRequirement => ({ key, op, values: [own[key]!] }));
  const selector = base && [...base, ...keyed(term.matchLabelKeys, 'in'), ...keyed(term.mismatchLabelKeys, 'notin')];
  // No namespaces and no namespace selector: the incoming pod's own namespace.
  const namespaces = (term.namespaces ?? []).length === 0 && !term.namespaceSelector ? [incoming.metadata.namespace ?? ''] : (term.namespaces ?? []);
  return { topologyKey: term.topologyKey, selector, namespaces, namespaceSelector: requirements(term.namespaceSelector) };
}

function termMatches(term: CompiledTerm, pod: Pod, peers: AffinityPeers): boolean {
  const namespace = pod.metadata.namespace ?? '';
  const inNamespace = term.namespaces.includes(namespace) || (term.namespaceSelector !== undefined && matchesLabels(term.namespaceSelector, peers.namespaceLabels(namespace) ?? {}));
  return inNamespace && term.selector !== undefined && matchesLabels(term.selector, pod.metadata.labels ?? {});
}

function matchesAll(terms: readonly CompiledTerm[], pod: Pod, peers: AffinityPeers): boolean {
  return terms.length > 0 && terms.every((term) => termMatches(term, pod, peers));
}

/** In the scheduler's snapshot: bound, not terminal. */
export function countsForAffinity(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return Boolean(pod.spec.nodeName) && phase !== 'Succeeded' && phase !== 'Failed';
}

/** Whether a node with these labels satisfies the incoming pod's required pod affinity. */
export function satisfiesPodAffinity(incoming: Pod, nodeLabels: Record<string, string>, peers: AffinityPeers): boolean {
  const terms = requiredAffinityTerms(incoming).map((term) => compile(term, incoming));
  if (terms.length === 0) return true;
  const counts = new Map<string, number>();
  const pair = (key: string, value: string) => JSON.stringify([key, value]);
  for (const existing of peers.pods) {
    if (existing.metadata.uid === incoming.metadata.uid || !countsForAffinity(existing)) continue;
    const labels = peers.nodeLabels(existing.spec.nodeName ?? '');
    if (labels === undefined || !matchesAll(terms, existing, peers)) continue;
    for (const term of terms) {
      const value = labels[term.topologyKey];
      if (value !== undefined) counts.set(pair(term.topologyKey, value), (counts.get(pair(term.topologyKey, value)) ?? 0) + 1);
    }
  }
  let podsExist = true;
  for (const term of terms) {
    const value = nodeLabels[term.topologyKey];
    // Every topology key must be on the node, even for the first pod.
    if (value === undefined) return false;
    if ((counts.get(pair(term.topologyKey, value)) ?? 0) <= 0) podsExist = false;
  }
  return podsExist || (counts.size === 0 && matchesAll(terms, incoming, peers));
}

/**
 * A change that can turn the verdict for a pod other than `self`: a pod arriving, going, being
 * bound, relabelled or ending, or a namespace relabelled (the scheduler requeues on these).
 */
export function mayChangePodAffinity(event: StoreEvent, self: string): boolean {
  if (event.resource === 'namespaces') return event.type !== 'MODIFIED' || labelsChanged(event.object, event.previous);
  if (event.resource !== 'pods' || event.object.metadata.uid === self) return false;
  if (event.type !== 'MODIFIED') return true;
  const now = event.object as Pod;
  const before = event.previous as Pod | undefined;
  return before === undefined || labelsChanged(now, before) || countsForAffinity(now) !== countsForAffinity(before) || now.spec.nodeName !== before.spec.nodeName;
}

function labelsChanged(now: KubeObject, before: KubeObject | undefined): boolean {
  return JSON.stringify(now.metadata.labels ?? {}) !== JSON.stringify(before?.metadata.labels ?? {});
}
