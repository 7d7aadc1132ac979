import { createHash } from 'node:crypto';

/** Kubernetes limits both object names that are DNS-1123 labels and label values to 63 characters. */
export const MAX_LABEL_LENGTH = 63;

const HASH_LENGTH = 8;

/**
 * The pod name of a step: `<build>-<step>`, sanitised and truncated, then a short hash of the exact
 * (buildId, stepName) pair. The name must be the same on every retry of LaunchStep (that is what
 * makes launching idempotent), and sanitising or truncating must never let two different steps
 * share a name, which the hash guarantees: it is taken over the unsanitised pair.
 */
export function stepPodName(buildId: string, stepName: string, attempt = 0): string {
  // A retry's pod is a new pod (the old one may still be going): its own name, `-2`, `-3` before the hash.
  return attempt === 0 ? buildObjectName(buildId, stepName) : buildObjectName(buildId, stepName, attempt);
}

/**
 * The build's workspace claim: `<build>-workspace-<hash>`, by the same rules. A step named
 * "workspace" gets the same name for its pod, which is harmless: a pod and a claim never clash.
 */
export function workspaceClaimName(buildId: string): string {
  return buildObjectName(buildId, 'workspace');
}

/** The Secret that hands the build's clone its credentials. */
export function gitCredentialsName(buildId: string): string {
  return buildObjectName(buildId, 'git-credentials');
}

function buildObjectName(buildId: string, part: string, attempt?: number): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(attempt === undefined ? [buildId, part] : [buildId, part, attempt]))
    .digest('hex')
    .slice(0, HASH_LENGTH);
  const suffix = attempt === undefined ? '' : `-${attempt + 1}`;
  const room = MAX_LABEL_LENGTH - HASH_LENGTH - 1 - suffix.length;
  let readable = dnsLabelPart(`${buildId}-${part}`).slice(0, room).replace(/-+$/, '');
  // A DNS-1123 label may start with a digit, but a leading letter keeps the name valid for the
  // stricter RFC 1035 rules some tools (and Services) apply; build ids are often plain numbers.
  if (!/^[a-z]/.test(readable)) readable = `b${readable}`.slice(0, room).replace(/-+$/, '');
  return `${readable}${suffix}-${hash}`;
}

function dnsLabelPart(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+/, '');
}

/**
 * A label value that Kubernetes accepts: at most 63 characters of `[A-Za-z0-9._-]`, beginning and
 * ending with an alphanumeric (or empty). Lossy by nature, so the exact value travels in an
 * annotation next to it.
 */
export function labelValue(text: string): string {
  return text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(0, MAX_LABEL_LENGTH)
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/[^A-Za-z0-9]+$/, '');
}
