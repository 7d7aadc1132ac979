/**
 * The Cause a failed step ends with: one readable paragraph naming the step, the image, the
 * reason, and the kubelet's, runtime's or registry's own words. Those words are quoted as given,
 * minus redundant wrapping (the kubelet's "Failed to pull image X:" and gRPC's "rpc error: code =
 * … desc ="), and elided in the middle only when a Cause would grow past MAX_CAUSE_LENGTH.
 */

/** Step Functions shows the Cause in full; beyond this a paragraph stops being readable. */
export const MAX_CAUSE_LENGTH = 1000;
const ELLIPSIS = ' … ';

export interface CauseSubject {
  step: string;
  image: string;
}

/** Keeps the start (what failed) and the end (the registry's verdict) of a long message. */
export function elideMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= ELLIPSIS.length) return text.slice(0, max);
  const keep = max - ELLIPSIS.length;
  const head = Math.ceil(keep / 2);
  return text.slice(0, head).trimEnd() + ELLIPSIS + text.slice(text.length - (keep - head)).trimStart();
}

/** gRPC wraps every runtime error in "rpc error: code = Unknown desc = …", sometimes twice. */
export function stripRpcPrefix(message: string): string {
  return message.replace(/(?:rpc error: code = \w+ desc = )+/g, '');
}

/**
 * The runtime's own error inside a kubelet message:
 * - `Failed to pull image "X": <error>` (event)
 * - `Back-off pulling image "X": ErrImagePull: <error>` (waiting message, kubelet >= 1.32)
 * - `Error: <error>` (container-level Failed event, e.g. `Error: secret "db" not found`)
 * Anything else is returned whole: it is already the kubelet's own words.
 */
export function runtimeWords(message: string): string {
  const text = message.trim();
  const pull = /^Failed to pull image "(?:[^"\\]|\\.)*": ([\s\S]+)$/.exec(text);
  if (pull?.[1]) return stripRpcPrefix(pull[1]).trim();
  const backOff = /^Back-off pulling image "(?:[^"\\]|\\.)*": (?:[A-Za-z]+: )?([\s\S]+)$/.exec(text);
  if (backOff?.[1]) return stripRpcPrefix(backOff[1]).trim();
  const error = /^Error: ([\s\S]+)$/.exec(text);
  if (error?.[1]) return stripRpcPrefix(error[1]).trim();
  return stripRpcPrefix(text).trim();
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/**
 * Joins the runner's sentence with the quoted words, eliding the words (never the runner's
 * sentence, which names step and image) so the whole stays within MAX_CAUSE_LENGTH.
 */
export function composeCause(lead: string, label?: string, words?: string): string {
  const head = sentence(lead);
  const quoted = words?.trim();
  if (!label || !quoted) return elideMiddle(head, MAX_CAUSE_LENGTH);
  const prefix = `${head} ${label}: `;
  const room = Math.max(MAX_CAUSE_LENGTH - prefix.length - 1, 40);
  return prefix + sentence(elideMiddle(quoted, room));
}

function seconds(value: number): string {
  return `${Math.round(value)} s`;
}

function subject(s: CauseSubject): string {
  return `Step "${s.step}" (image "${s.image}")`;
}

export function pullFailedCause(
  s: CauseSubject,
  detail: { reason: string; words?: string; waitedSeconds?: number; graceSeconds?: number },
): string {
  const waited =
    detail.waitedSeconds !== undefined && detail.graceSeconds !== undefined
      ? `; pulling kept failing for ${seconds(detail.waitedSeconds)} (grace period ${seconds(detail.graceSeconds)})`
      : '';
  const lead = `Step "${s.step}" could not start: image "${s.image}" could not be pulled (${detail.reason})${waited}`;
  if (!detail.words) return composeCause(`${lead}. The kubelet reported no registry message`);
  return composeCause(lead, 'The registry said', detail.words);
}

export function neverPullCause(s: CauseSubject, words?: string): string {
  return composeCause(
    `Step "${s.step}" could not start: image "${s.image}" is not present on the node and the step's pull policy is never (ErrImageNeverPull)`,
    'The kubelet said',
    words,
  );
}

export function invalidImageCause(s: CauseSubject, detail: { reason: string; words?: string }): string {
  return composeCause(
    `Step "${s.step}" could not start: "${s.image}" is not a valid image reference (${detail.reason})`,
    'The kubelet said',
    detail.words,
  );
}

export function configErrorCause(s: CauseSubject, detail: { reason: string; words?: string }): string {
  return composeCause(
    `${subject(s)} could not start: its container could not be configured (${detail.reason})`,
    'The kubelet said',
    detail.words,
  );
}

export function startErrorCause(
  s: CauseSubject,
  detail: { reason: string; exitCode?: number; words?: string },
): string {
  const code = detail.exitCode !== undefined ? `, exit code ${detail.exitCode}` : '';
  return composeCause(
    `${subject(s)} could not start its command (${detail.reason}${code})`,
    'The runtime said',
    detail.words,
  );
}

export function outOfMemoryCause(s: CauseSubject, detail: { exitCode?: number; memoryLimit?: string }): string {
  const code = detail.exitCode !== undefined ? `, exit code ${detail.exitCode}` : '';
  const limit = detail.memoryLimit ? ` Its memory limit is ${detail.memoryLimit}; raise resources.memory to give it more` : '';
  return composeCause(`${subject(s)} ran out of memory and was killed (OOMKilled${code}).${limit}`);
}

export function exitCodeCause(
  s: CauseSubject,
  detail: { exitCode: number; reason?: string; message?: string; signal?: number },
): string {
  const reason = detail.reason ? ` (${detail.reason})` : '';
  const signal = detail.signal ? `, killed by signal ${detail.signal}` : '';
  return composeCause(
    `${subject(s)} failed with exit code ${detail.exitCode}${signal}${reason}`,
    'Its termination message',
    detail.message,
  );
}

export function timedOutCause(s: CauseSubject, detail: { deadlineSeconds?: number; words?: string }): string {
  const limit = detail.deadlineSeconds !== undefined ? ` after its limit of ${seconds(detail.deadlineSeconds)}` : '';
  return composeCause(`${subject(s)} timed out${limit} (DeadlineExceeded)`, 'The kubelet said', detail.words);
}

export function podDeletedCause(s: CauseSubject): string {
  return composeCause(`${subject(s)} lost its pod: the pod was deleted before the step finished (PodDeleted)`);
}

export function podDeletingCause(s: CauseSubject): string {
  return composeCause(`${subject(s)} lost its pod: the pod is being deleted before the step finished (PodDeleting)`);
}

export function evictedCause(s: CauseSubject, words?: string): string {
  return composeCause(`${subject(s)} lost its pod: it was evicted from its node (Evicted)`, 'The kubelet said', words);
}

export function podFailedCause(s: CauseSubject, detail: { reason?: string; words?: string }): string {
  const reason = detail.reason ? ` (${detail.reason})` : '';
  return composeCause(`${subject(s)} lost its pod: the node failed it before the step ran${reason}`, 'The kubelet said', detail.words);
}

export function unschedulableCause(
  s: CauseSubject,
  detail: { waitedSeconds: number; graceSeconds: number; words?: string },
): string {
  return composeCause(
    `${subject(s)} could not be placed on any node for ${seconds(detail.waitedSeconds)} (grace period ${seconds(detail.graceSeconds)}, Unschedulable)`,
    'The scheduler said',
    detail.words,
  );
}
