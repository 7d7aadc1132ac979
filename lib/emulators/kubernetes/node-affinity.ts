/**
 * Whether a node satisfies a pod's `nodeSelector` and required node affinity, by the scheduler's
 * NodeAffinity rules: terms are ORed, the requirements of a term ANDed, a term with none matches
 * nothing, NotIn and DoesNotExist match a missing label, Gt and Lt compare integers.
 */
import type { NodeSelectorRequirement, NodeSelectorTerm, Pod } from './objects.js';

export interface NodeIdentity {
  name: string;
  labels: Record<string, string>;
}

function integer(text: string | undefined): number | undefined {
  return text !== undefined && /^-?\d+$/.test(text) ? Number(text) : undefined;
}

function matchesRequirement(value: string | undefined, requirement: NodeSelectorRequirement): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const have = integer(value);
      const bound = integer(values[0]);
      if (have === undefined || bound === undefined) return false;
      return requirement.operator === 'Gt' ? have > bound : have < bound;
    }
  }
}

function matchesTerm(term: NodeSelectorTerm, node: NodeIdentity): boolean {
  const expressions = term.matchExpressions ?? [];
  // metadata.name is the only field a node selector term may match on.
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  return (
    expressions.every((r) => matchesRequirement(node.labels[r.key], r)) &&
    fields.every((r) => matchesRequirement(r.key === 'metadata.name' ? node.name : undefined, r))
  );
}

export function matchesNodeSelection(pod: Pod, node: NodeIdentity): boolean {
  const selector = Object.entries(pod.spec.nodeSelector ?? {});
  if (!selector.every(([key, value]) => node.labels[key] === value)) return false;
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return terms === undefined || terms.some((term) => matchesTerm(term, node));
}
