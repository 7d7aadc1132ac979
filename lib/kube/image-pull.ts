/**
 * Image pull failures: the kubelet's waiting reasons and a judgement of the runtime's words.
 *
 * The verdict decides whether a step fails on the first report (the image will never come) or
 * keeps polling for a grace period (the registry may recover). Wording differs per runtime
 * (containerd, CRI-O, dockershim, the Docker daemon through cri-dockerd) and per registry, so the
 * patterns are phrases taken from real messages (see test/fixtures/kube/, and
 * docker-pull-messages.json there for the Docker daemon's, recorded against a real dockerd), not
 * single words that an image name could contain.
 */
import { mentionsEcrRegistry } from '../registry/ecr-host.js';

/** Container waiting reasons the kubelet sets while an image cannot be pulled (pkg/kubelet/images/types.go). */
export const PullWaitingReasons = {
  ErrImagePull: 'ErrImagePull',
  ImagePullBackOff: 'ImagePullBackOff',
  InvalidImageName: 'InvalidImageName',
  ErrImageNeverPull: 'ErrImageNeverPull',
  ImageInspectError: 'ImageInspectError',
  RegistryUnavailable: 'RegistryUnavailable',
  SignatureValidationFailed: 'SignatureValidationFailed',
} as const;
export type PullWaitingReason = (typeof PullWaitingReasons)[keyof typeof PullWaitingReasons];

const pullWaitingReasons: ReadonlySet<string> = new Set(Object.values(PullWaitingReasons));

export function isPullWaitingReason(reason: string | undefined): reason is PullWaitingReason {
  return reason !== undefined && pullWaitingReasons.has(reason);
}

export const PullVerdicts = {
  /** The image will not appear by waiting: not found, no access, bad reference. */
  Permanent: 'permanent',
  /** The registry or the network failed for now: rate limits, timeouts, DNS, 5xx. */
  Transient: 'transient',
  /** Words we do not recognise; callers treat them as transient (see classifyPullMessage). */
  Unknown: 'unknown',
} as const;
export type PullVerdict = (typeof PullVerdicts)[keyof typeof PullVerdicts];

/** HTTP statuses as registries and runtimes print them, with the standard phrase after the code. */
const STATUS_PHRASES: Record<string, string> = {
  '401': 'unauthorized',
  '403': 'forbidden',
  '404': 'not found',
  '429': 'too many requests',
  '500': 'internal server error',
  '502': 'bad gateway',
  '503': 'service unavailable',
  '504': 'gateway timeout',
};
const PERMANENT_STATUSES = ['401', '403', '404'];
const TRANSIENT_STATUSES = ['429', '500', '502', '503', '504'];

/**
 * A status code counts only in context: followed by its phrase ("401 Unauthorized") or preceded
 * by "status"/"status code" ("unexpected status code 403", "status: 429"). A bare number may be
 * part of a digest, a port or a tag and says nothing.
 */
function mentionsStatus(text: string, code: string): boolean {
  const phrase = STATUS_PHRASES[code] ?? '';
  const withPhrase = new RegExp(`(?<![\\w.])${code}\\s+${phrase.replace(/ /g, '\\s+')}\\b`, 'i');
  const afterStatusWord = new RegExp(`\\bstatus(?:\\s+code)?\\s*[:=]?\\s*${code}(?![\\w.])`, 'i');
  return withPhrase.test(text) || afterStatusWord.test(text);
}

/**
 * A registry's DENIED with nothing after it, as the Docker daemon repeats it: `Error response from
 * daemon: denied`, `…/manifests/latest": denied.`, `error from registry: denied` (ghcr.io without
 * a login). Only as the whole answer after a colon or on a line of its own, so a local
 * `permission denied` is not taken for the registry's refusal.
 */
const BARE_DENIED = /(?:^|:\s)denied(?:\.|\s*$)/im;

/**
 * The Docker daemon's words when the registry asked for a login and the kubelet had none to give
 * (containerd says `401 Unauthorized` there). Not for ECR: the kubelet's ECR login comes from the
 * node's role and lapses now and then (kubernetes/kubernetes#74297, #83348), so those words are
 * worth the grace period.
 */
const NO_LOGIN = /\bno basic auth credentials\b/i;

function noLoginOutsideEcr(text: string, message: string, image?: string): boolean {
  return NO_LOGIN.test(text) && !mentionsEcrRegistry(message) && !(image && mentionsEcrRegistry(image));
}

const PERMANENT_PATTERNS: readonly RegExp[] = [
  /\bnot found\b/i, // containerd "…: not found", dockershim "manifest for x not found"
  /\bmanifest unknown\b/i,
  /\bname unknown\b/i,
  /\bunauthorized\b/i,
  /\bauthentication required\b/i,
  /\baccess denied\b/i, // "pull access denied for x"
  /\bdenied:/i, // "denied: requested access to the resource is denied"
  /\bis denied\b/i,
  /repository does not exist/i,
  /may require 'docker login'/i,
  /\binsufficient_scope\b/i,
  /invalid reference format/i,
  /no image found in manifest list/i, // CRI-O: no image for this node's platform
  /did not resolve to an alias/i, // CRI-O short names with no search registries
  /\bnot in the local image catalog\b/i, // the embedded cluster (process mode): no entry, nothing to wait for
  BARE_DENIED,
];

const TRANSIENT_PATTERNS: readonly RegExp[] = [
  /\btoomanyrequests\b/i,
  /\btoo many requests\b/i,
  /\bpull rate limit\b/i,
  /\bi\/o timeout\b/i,
  /\bhandshake timeout\b/i,
  /\bClient\.Timeout\b/,
  /\btimed out\b/i, // "connect: connection timed out"
  /\bdeadline exceeded\b/i,
  /\bno such host\b/i,
  /\bserver misbehaving\b/i,
  /temporary failure in name resolution/i,
  /\bconnection refused\b/i,
  /\bconnection reset\b/i,
  /\bnetwork is unreachable\b/i,
  /\bEOF\b/, // Go's io.EOF; upper case only, so it never matches inside an image name
  /\bRegistryUnavailable\b/,
  /registry is unavailable/i,
  // The transport never agreed: an untrusted or wrong certificate, TLS refused, plain HTTP where
  // HTTPS was expected. A registry or proxy being reconfigured; the grace period bounds the wait.
  /\bx509: /,
  /\bremote error: tls: /,
  /\btls: first record does not look like a TLS handshake\b/,
  /\bserver gave HTTP response to HTTPS client\b/,
];

/** Removes quoted text (image references, URLs) and the image's own name, which prove nothing. */
function withoutNames(message: string, image?: string): string {
  let text = message.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  if (image) {
    const repository = image.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
    for (const name of [image, repository]) {
      if (!name) continue;
      // Whole references only: a short repository name ("go") must not cut words out of the text.
      const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      text = text.replace(new RegExp(`(?<![\\w./-])${escaped}(?![\\w.-])`, 'g'), '');
    }
  }
  return text;
}

/**
 * Judges a pull error message (the kubelet's "Failed to pull image …" event, the waiting message,
 * or the runtime's error alone).
 *
 * Transient signals win over permanent ones: a throttled or unreachable registry often fails its
 * token endpoint too ("failed to authorize: … 503 Service Unavailable"), and a wrong "transient"
 * costs only the grace period while a wrong "permanent" fails a build that would have passed.
 *
 * Unrecognised words give `unknown`, which the step classifier treats as transient: the wording
 * varies across runtimes, versions and mirrors, so failing at once on words we have never seen
 * would turn a registry hiccup into a red build, while the grace period still bounds the wait.
 */
export function classifyPullMessage(message: string, image?: string): PullVerdict {
  const text = withoutNames(message, image);
  if (soundsTransient(text)) return PullVerdicts.Transient;
  if (
    PERMANENT_PATTERNS.some((p) => p.test(text)) ||
    PERMANENT_STATUSES.some((c) => mentionsStatus(text, c)) ||
    noLoginOutsideEcr(text, message, image)
  ) {
    return PullVerdicts.Permanent;
  }
  return PullVerdicts.Unknown;
}

function soundsTransient(text: string): boolean {
  return TRANSIENT_PATTERNS.some((p) => p.test(text)) || TRANSIENT_STATUSES.some((c) => mentionsStatus(text, c));
}

/**
 * A registry that refused the credentials or wanted some (401, 403), in the wordings of
 * containerd, CRI-O, the Docker daemon and the registries: `unauthorized`, `authentication required`,
 * `pull access denied`, `denied:` (or a bare `denied`), `403 Forbidden`, `no basic auth credentials`.
 */
const AUTH_PATTERNS: readonly RegExp[] = [
  /\bunauthorized\b/i,
  /\bunauthenticated\b/i,
  /\bauthentication required\b/i,
  /\bauthorization failed\b/i,
  /\baccess denied\b/i,
  /\bdenied:/i,
  /\bis denied\b/i,
  /\bforbidden\b/i,
  /may require 'docker login'/i,
  /may require authorization/i,
  /\binsufficient_scope\b/i,
  NO_LOGIN, // Docker daemon and ECR (dockershim, containerd): the node had no login to offer
  BARE_DENIED,
];

/**
 * Whether a pull failed on credentials (or their absence), so the Cause can say what to check:
 * the pod's pull secrets, or for ECR the node's role. Words that sound transient too (a throttled
 * token endpoint) are not: credentials are not what to fix then.
 */
export function isAuthPullFailure(message: string, image?: string): boolean {
  const text = withoutNames(message, image);
  if (soundsTransient(text)) return false;
  return AUTH_PATTERNS.some((p) => p.test(text)) || ['401', '403'].some((c) => mentionsStatus(text, c));
}

export function isPermanentPullFailure(message: string, image?: string): boolean {
  return classifyPullMessage(message, image) === PullVerdicts.Permanent;
}

/** True for transient and for unknown words: both mean "keep polling until the grace period". */
export function isRetryablePullFailure(message: string, image?: string): boolean {
  return !isPermanentPullFailure(message, image);
}

/**
 * The kubelet's wording for a reference it cannot parse (InvalidImageName, InspectFailed "Failed to
 * apply default image tag …"). Its other InspectFailed, "Failed to inspect image …" with
 * ImageInspectError, is the runtime not answering (runtime-failures.ts isRuntimeInspectFailure).
 */
export function isInvalidReferenceMessage(message: string): boolean {
  return /invalid reference format|couldn't parse image reference/i.test(message);
}
