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

const SUFFIX: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * A quantity's value as a number (cores for cpu, bytes for memory): `500m` is 0.5, `1Gi` is
 * 1073741824, `1e3` is 1000 (kubernetes/apimachinery pkg/api/resource/quantity.go's suffixes).
 * Undefined for what is no quantity.
 */
export function quantityValue(value: string | undefined): number | undefined {
  const match = value === undefined ? null : QUANTITY.exec(value.trim());
  if (!match) return undefined;
  const number = Number(match[1]);
  const suffix = match[2];
  if (suffix === undefined) return number;
  if (/^[eE]/.test(suffix)) return number * 10 ** Number(suffix.slice(1));
  return number * SUFFIX[suffix]!;
}
