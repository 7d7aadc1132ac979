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
export function stepPodName(buildId: string, stepName: string, attempt = 0, redrive = 0): string {
  // A retry's pod is a new pod (the old one may still be going): its own name, `-2`, `-3` before the hash.
  // A re-run's (redrive 1, 2...) too, `-r1`: the first run's pod of the step may not be gone yet.
  if (redrive > 0) return buildObjectName(buildId, stepName, { attempt, redrive });
  return attempt === 0 ? buildObjectName(buildId, stepName) : buildObjectName(buildId, stepName, { attempt });
}

/**
 * The build's workspace claim: `<build>-workspace-<hash>`, by the same rules. A step named
 * "workspace" gets the same name for its pod, which is harmless: a pod and a claim never clash.
 */
export function workspaceClaimName(buildId: string): string {
  return buildObjectName(buildId, 'workspace');
}

/** The Secret that keeps an approval step's task token (approval-token.ts). */
export function approvalTokenName(buildId: string, stepName: string): string {
  return buildObjectName(buildId, `approval-${stepName}`);
}

/** The Secret that keeps the task token of a step waiting for approval steps it needs (approval-token.ts). */
export function approvalWaitName(buildId: string, stepName: string): string {
  return buildObjectName(buildId, `awaits-${stepName}`);
}

/** The Secret that hands the build's clone its credentials. */
export function gitCredentialsName(buildId: string): string {
  return buildObjectName(buildId, 'git-credentials');
}

/**
 * The Secret that holds a step's AWS secrets, read by LaunchStep (one per step, every attempt's
 * pod reading it). Step names are DNS labels, so `aws-secrets/NAME` is no other object's part.
 */
export function stepAwsSecretName(buildId: string, stepName: string): string {
  return buildObjectName(buildId, `aws-secrets/${stepName}`);
}

/**
 * The Secret of a build step's registry login (registry-login-secret.ts), one per step: its ECR
 * login over the first pull secret's. `registry-login/NAME` is no other object's part.
 */
export function stepRegistryLoginName(buildId: string, stepName: string): string {
  return buildObjectName(buildId, `registry-login/${stepName}`);
}

function buildObjectName(buildId: string, part: string, run?: { attempt: number; redrive?: number }): string {
  // The first run's hashes stay what they were before re-runs existed: pods of running builds keep their names.
  const hashed = run === undefined ? [buildId, part] : run.redrive === undefined ? [buildId, part, run.attempt] : [buildId, part, run.attempt, run.redrive];
  const hash = createHash('sha256').update(JSON.stringify(hashed)).digest('hex').slice(0, HASH_LENGTH);
  const suffix = run === undefined ? '' : `${run.redrive ? `-r${run.redrive}` : ''}${run.attempt > 0 || !run.redrive ? `-${run.attempt + 1}` : ''}`;
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
