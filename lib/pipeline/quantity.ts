/**
 * Kubernetes resource quantities (`500m`, `1`, `0.5`, `512Mi`, `1Gi`, `1e3`). Checked here because
 * the API server's rejection would only surface as a PodConfigError after the build started.
 */

export const ResourceKinds = { cpu: 'cpu', memory: 'memory' } as const;
export type ResourceKind = (typeof ResourceKinds)[keyof typeof ResourceKinds];

const QUANTITY = /^(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

const examples: Record<ResourceKind, string> = {
  cpu: 'e.g. 500m, 1 or 0.5',
  memory: 'e.g. 512Mi or 1Gi',
};

/** Why `value` is not a usable quantity for `kind`, or undefined when it is. */
export function quantityProblem(value: string, kind: ResourceKind): string | undefined {
  const match = QUANTITY.exec(value);
  if (!match) {
    const wrongSuffix = /^[\d.]+([a-zA-Z]+)$/.exec(value)?.[1];
    if (wrongSuffix && /^[KMGTPE]i?B$|^[kmgtpe]i?b?$|^K$/.test(wrongSuffix)) {
      return `"${value}" is not a Kubernetes quantity: write binary units as Ki, Mi, Gi (or decimal k, M, G) without "B" (${examples[kind]})`;
    }
    if (value.startsWith('-')) return `"${value}" is negative; ${kind} must be more than zero`;
    return `"${value}" is not a Kubernetes quantity (${examples[kind]})`;
  }
  if (Number(match[1]) === 0) return `"${value}" is zero; ${kind} must be more than zero (or leave it out)`;
  if (kind === ResourceKinds.memory && match[2] === 'm') {
    return `"${value}" means ${value.slice(0, -1)} thousandths of a byte; did you mean "${value.slice(0, -1)}Mi"?`;
  }
  return undefined;
}
