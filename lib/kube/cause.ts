/**
 * The Cause a failed step ends with: one readable paragraph naming the step, the image, the
 * reason, and the kubelet's, runtime's or registry's own words. Those words are quoted as given,
 * minus redundant wrapping (the kubelet's "Failed to pull image X:" and gRPC's "rpc error: code =
 * … desc ="), and elided in the middle only when a Cause would grow past MAX_CAUSE_LENGTH. PollStep's
 * verdicts compose their paragraph here, and FinishStep ends it here (finishedCause): the log's last
 * lines, the attempt. Every Cause of a step's pod is written in this module.
 */
import { ErrorNames, type ErrorName } from '../contract/index.js';
import { checkImageReference } from '../pipeline/image-reference.js';
import { ecrRegistry } from '../registry/ecr-host.js';
import { EventReasons, VolumeEventReasons } from './classify-reasons.js';

/** Step Functions shows the Cause in full; beyond this a paragraph stops being readable. */
export const MAX_CAUSE_LENGTH = 1000;
const ELLIPSIS = ' … ';

export interface CauseSubject {
  step: string;
  image: string;
  /** The build's checkout step: its Causes say "the checkout", which is what failed for the reader. */
  checkout?: boolean;
  /** The checkout runs as this init container of the step's own pod (an ephemeral workspace). */
  initContainer?: string;
  /** A service of the step (a sidecar in its pod): the Cause names it, and `image` is its image. */
  service?: string;
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
export function composeCause(lead: string, label?: string, words?: string, after?: string): string {
  // A line of advice after the paragraph: the quoted words give way to it.
  const tail = after?.trim() ? `\n${after.trim()}` : '';
  const head = sentence(lead);
  const quoted = words?.trim();
  if (!label || !quoted) return elideMiddle(head, MAX_CAUSE_LENGTH - tail.length) + tail;
  const prefix = `${head} ${label}: `;
  const room = Math.max(MAX_CAUSE_LENGTH - prefix.length - tail.length - 1, 40);
  return prefix + sentence(elideMiddle(quoted, room)) + tail;
}

export function seconds(value: number): string {
  return `${Math.round(value)} s`;
}

export function subject(s: CauseSubject): string {
  if (s.service) return `Service "${s.service}" of step "${s.step}" (image "${s.image}")`;
  if (s.initContainer) return `The checkout of step "${s.step}" (init container "${s.initContainer}")`;
  return s.checkout ? `The checkout (step "${s.step}")` : `Step "${s.step}" (image "${s.image}")`;
}

/** The image a pull is about: an init container's is not the step's own. */
function image(s: CauseSubject): string {
  if (s.service) return `the image "${s.image}" of its service "${s.service}"`;
  return s.initContainer ? `the image "${s.image}" of its checkout (init container "${s.initContainer}")` : `image "${s.image}"`;
}

/** What the pod pulled with, for a Cause about credentials. */
export interface PullCredentials {
  /** The pod's imagePullSecrets (the service account's fill in a pod that names none). */
  pullSecrets: readonly string[];
  namespace?: string;
}

/**
 * The one line a Cause adds when the registry refused the credentials or wanted some: for ECR the
 * node role's permissions (the kubelet logs in with the node's role there), else the pod's pull
 * secrets by name, or that it has none.
 */
export function pullCredentialsHint(image: string, credentials: PullCredentials): string {
  const checked = checkImageReference(image);
  const registry = checked.ok ? checked.image.domain : undefined;
  const ecr = registry ? ecrRegistry(registry) : undefined;
  const where = credentials.namespace ? ` in namespace "${credentials.namespace}"` : '';
  if (ecr) {
    return (
      `What to check: ECR images are pulled with the node's IAM role, which needs ecr:GetAuthorizationToken, ecr:BatchGetImage and ` +
      `ecr:GetDownloadUrlForLayer on this repository (account ${ecr.accountId}, region ${ecr.region}; another account's repository must also allow the role in its repository policy).`
    );
  }
  const login = registry ? `a login for ${registry}` : 'a login for its registry';
  if (credentials.pullSecrets.length === 0) {
    return (
      `What to check: the pod has no pull secrets. If the image is private, create a kubernetes.io/dockerconfigjson Secret with ${login}${where} ` +
      'and name it in the pipeline\'s "pull-secrets" (or the deployment\'s stepPullSecrets).'
    );
  }
  const names = credentials.pullSecrets.map((name) => `"${name}"`).join(', ');
  return `What to check: the pod's pull secrets ${names}${where}: each must exist as a kubernetes.io/dockerconfigjson Secret, and one must hold ${login} that may pull this image.`;
}

export function pullFailedCause(
  s: CauseSubject,
  detail: { reason: string; words?: string; waitedSeconds?: number; graceSeconds?: number; hint?: string },
): string {
  const waited =
    detail.waitedSeconds !== undefined && detail.graceSeconds !== undefined
      ? `; pulling kept failing for ${seconds(detail.waitedSeconds)} (grace period ${seconds(detail.graceSeconds)})`
      : '';
  const lead = `Step "${s.step}" could not start: ${image(s)} could not be pulled (${detail.reason})${waited}`;
  if (!detail.words) return composeCause(`${lead}. The kubelet reported no registry message`, undefined, undefined, detail.hint);
  return composeCause(lead, 'The registry said', detail.words, detail.hint);
}

export function neverPullCause(s: CauseSubject, words?: string): string {
  return composeCause(
    `Step "${s.step}" could not start: ${image(s)} is not present on the node and the step's pull policy is never (ErrImageNeverPull)`,
    'The kubelet said',
    words,
  );
}

export function invalidImageCause(s: CauseSubject, detail: { reason: string; words?: string }): string {
  const what = s.service
    ? `the image "${s.image}" of its service "${s.service}"`
    : s.initContainer
      ? `its checkout's image "${s.image}" (init container "${s.initContainer}")`
      : `"${s.image}"`;
  return composeCause(`Step "${s.step}" could not start: ${what} is not a valid image reference (${detail.reason})`, 'The kubelet said', detail.words);
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

/** The image is git's and the exit code git's: the log tail (FinishStep adds it) says the rest. */
export function checkoutFailedCause(
  s: CauseSubject,
  detail: { exitCode: number; message?: string; signal?: number },
): string {
  const signal = detail.signal ? `, killed by signal ${detail.signal}` : '';
  return composeCause(
    `${subject({ ...s, checkout: true })} failed with exit code ${detail.exitCode}${signal}`,
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

export function podFailedCause(s: CauseSubject, detail: { reason?: string; words?: string }): string {
  const reason = detail.reason ? ` (${detail.reason})` : '';
  return composeCause(`${subject(s)} lost its pod: the node failed it before the step ran${reason}`, 'The kubelet said', detail.words);
}

export function sandboxFailedCause(s: CauseSubject, detail: { waitedSeconds: number; graceSeconds: number; words?: string }): string {
  return composeCause(
    `${subject(s)} lost its pod: for ${seconds(detail.waitedSeconds)} (grace period ${seconds(detail.graceSeconds)}) its node could not make the pod's sandbox (FailedCreatePodSandBox)`,
    'The kubelet said',
    detail.words,
  );
}

/** An autoscaler's word on the pod, as quoted in an Unschedulable Cause. */
export interface AutoscalerWords {
  /** "cluster-autoscaler" or "Karpenter". */
  autoscaler: string;
  words: string;
  /** How long ago it said so. */
  agoSeconds?: number;
}

/** Room each quote gets when a Cause quotes both the autoscaler and the scheduler. */
const SHARED_QUOTE_LENGTH = { autoscaler: 500, scheduler: 260 } as const;

/** The scheduler's words after the autoscaler's, both kept short enough to fit one Cause. */
function withSchedulerWords(lead: string, autoscaler: AutoscalerWords, schedulerWords?: string): string {
  const scheduler = schedulerWords?.trim();
  const tail = scheduler ? ` The scheduler said: ${sentence(elideMiddle(scheduler, SHARED_QUOTE_LENGTH.scheduler))}` : '';
  const quoted = autoscaler.words.trim() ? elideMiddle(autoscaler.words, SHARED_QUOTE_LENGTH.autoscaler) : '';
  return elideMiddle(composeCause(lead, `${autoscaler.autoscaler} said`, quoted) + tail, MAX_CAUSE_LENGTH);
}

export function unschedulableCause(
  s: CauseSubject,
  detail: { waitedSeconds: number; graceSeconds: number; words?: string; autoscaler?: AutoscalerWords },
): string {
  const lead = `${subject(s)} could not be placed on any node for ${seconds(detail.waitedSeconds)} (grace period ${seconds(detail.graceSeconds)}, Unschedulable)`;
  if (!detail.autoscaler) return composeCause(lead, 'The scheduler said', detail.words);
  // A node was said to be coming, and none took the pod within the grace after the last such word.
  const ago = detail.autoscaler.agoSeconds !== undefined ? ` ${seconds(detail.autoscaler.agoSeconds)} ago` : '';
  return withSchedulerWords(
    `${lead}; ${detail.autoscaler.autoscaler} last said a node was coming${ago}, and none has taken the pod`,
    detail.autoscaler,
    detail.words,
  );
}

/** No grace: the cluster's own autoscaler says it will add no node the pod fits. */
export function noNodeComingCause(s: CauseSubject, detail: { autoscaler: AutoscalerWords; words?: string }): string {
  return withSchedulerWords(
    `${subject(s)} could not be placed on any node, and ${detail.autoscaler.autoscaler} will not add one it fits (Unschedulable), so it fails without waiting`,
    detail.autoscaler,
    detail.words,
  );
}

export type WorkspaceFailureReason =
  | typeof VolumeEventReasons.ProvisioningFailed
  | typeof EventReasons.FailedScheduling
  | typeof VolumeEventReasons.FailedAttachVolume
  | typeof VolumeEventReasons.FailedMount;

/** Who reports each workspace failure, and what it means for the step, by the event's reason. */
const WORKSPACE_FAILURES: Record<WorkspaceFailureReason, { failed: string; speaker: string }> = {
  [VolumeEventReasons.ProvisioningFailed]: { failed: 'could not be provisioned', speaker: 'The provisioner said' },
  [EventReasons.FailedScheduling]: { failed: 'kept the pod off every node', speaker: 'The scheduler said' },
  [VolumeEventReasons.FailedAttachVolume]: { failed: 'could not be attached to its node', speaker: 'The attach/detach controller said' },
  [VolumeEventReasons.FailedMount]: { failed: 'could not be mounted', speaker: 'The kubelet said' },
};

/** A controller's multi-line message (AWS SDK errors end in "\n\tstatus code: …") as one paragraph. */
export function volumeWords(message: string): string {
  return stripRpcPrefix(message).replace(/\s+/g, ' ').trim();
}

export function workspaceUnavailableCause(
  s: CauseSubject,
  detail: { claim: string; reason: WorkspaceFailureReason; words?: string; waitedSeconds?: number; graceSeconds?: number },
): string {
  const failure = WORKSPACE_FAILURES[detail.reason];
  const waited =
    detail.waitedSeconds !== undefined && detail.graceSeconds !== undefined
      ? `; it kept failing for ${seconds(detail.waitedSeconds)} (grace period ${seconds(detail.graceSeconds)})`
      : '';
  return composeCause(
    `${subject(s)} could not start: its workspace volume (claim "${detail.claim}") ${failure.failed} (${detail.reason})${waited}`,
    failure.speaker,
    detail.words,
  );
}

/** No grace: the cluster autoscaler adds nodes, it cannot make a pinned pod fit its one node. */
export function pinnedUnschedulableCause(s: CauseSubject, detail: { node: string; claim: string; words?: string }): string {
  return composeCause(
    `${subject(s)} could not be placed: it is pinned to node "${detail.node}" because the build's workspace volume ` +
      `(claim "${detail.claim}") is attached there, and the scheduler cannot place it on that node (Unschedulable). ` +
      'A new node cannot help a pinned step, so it fails without waiting',
    'The scheduler said',
    detail.words,
  );
}

/** How a service ended, as the classifier saw it in the container's status. */
export interface ServiceExit {
  exitCode: number;
  reason?: string;
  message?: string;
  signal?: number;
  /** How many times the kubelet restarted it (a sidecar is always restarted). */
  restarts?: number;
  /** Whether the step's own container had started when the service went. */
  stepStarted: boolean;
  /** The step's own exit code, when it ended after the service did. */
  stepExitCode?: number;
}

/** The service's log tail follows (FinishStep adds it): a database says why it stopped there. */
export function serviceExitedCause(s: CauseSubject, exit: ServiceExit): string {
  const signal = exit.signal ? `, killed by signal ${exit.signal}` : '';
  const reason = exit.reason ? ` (${exit.reason})` : '';
  const when = exit.stepStarted ? 'while the step ran' : 'before the step could start';
  const restarts = exit.restarts ? `; the kubelet restarted it ${exit.restarts} time${exit.restarts === 1 ? '' : 's'}` : '';
  // The step's own end came after: its exit code, even 0, was reached without the service.
  const stepEnd = exit.stepExitCode !== undefined ? `; the step then ended with exit code ${exit.stepExitCode}` : '';
  return composeCause(
    `${subject(s)} exited with exit code ${exit.exitCode}${signal}${reason} ${when}${restarts}${stepEnd}`,
    'Its termination message',
    exit.message,
  );
}

/** The port comes from the probe's own words (dial tcp HOST:PORT) or the container's spec. */
export function servicePortsCause(
  s: CauseSubject,
  detail: { ports: readonly (number | string)[]; waitedSeconds: number; graceSeconds: number; words?: string },
): string {
  const ports =
    detail.ports.length === 0 ? 'its ports' : `${detail.ports.length === 1 ? 'port' : 'ports'} ${detail.ports.join(', ')}`;
  return composeCause(
    `${subject(s)} never opened ${ports}: the step waited ${seconds(detail.waitedSeconds)} for it to accept connections (grace period ${seconds(detail.graceSeconds)}, ServiceNotReady)`,
    'The kubelet said',
    detail.words,
  );
}

/**
 * A port gate (one more sidecar per extra port, idling in the step's image) is the runner's, not
 * the pipeline's: when it ends, say what it is, so no one looks for it in the pipeline file.
 */
export function portGateExitedCause(
  s: CauseSubject,
  gate: { container: string; port: number; image: string; exitCode: number; reason?: string; message?: string },
): string {
  const reason = gate.reason ? ` (${gate.reason})` : '';
  return composeCause(
    `Step "${s.step}" could not wait for port ${gate.port} of its service "${s.service ?? '?'}": the container that checks it ` +
      `("${gate.container}", in the step's image "${gate.image}") exited with exit code ${gate.exitCode}${reason}`,
    'Its termination message',
    gate.message,
  );
}

/** How a step was interrupted, as the classifier read it from the pod, its conditions and events. */
export interface Interruption {
  /** What happened, in the runner's words: "its pod was evicted through the Eviction API …". */
  what: string;
  /** Where the cluster said so: "DisruptionTarget: EvictionByEvictionAPI", "Evicted", an event's reason. */
  reason: string;
  /** The cluster's own words for it: the condition's or the pod status' message. */
  words?: string;
  /** Who said `words` ("the kubelet"), when known. */
  speaker?: string;
  /** The step container's exit code, when it ended: the disruption's SIGTERM (143) or SIGKILL (137). */
  exitCode?: number;
  /** The disruption events about the pod, newest first. */
  events?: readonly { reason: string; speaker?: string; message: string }[];
}

/** Room the condition's own message gets inside the lead, before the events' words. */
const INTERRUPTION_WORDS_LENGTH = 300;

/**
 * Not the step's failure: the cluster took its pod away. The lead names step, image, what
 * happened and the cluster's reason and words; the events' words follow; the exit code, when the
 * container ended, is said to be the disruption's doing.
 */
export function interruptedCause(s: CauseSubject, i: Interruption): string {
  const words = i.words?.trim();
  const quoted = words ? `, ${i.speaker ? `${i.speaker}: ` : ''}"${elideMiddle(words, INTERRUPTION_WORDS_LENGTH)}"` : '';
  const exit = i.exitCode !== undefined ? `. Its container then ended with exit code ${i.exitCode}, which is the interruption's doing, not the step's` : '';
  const events = (i.events ?? []).map((e) => `${e.reason}${e.speaker ? ` (${e.speaker})` : ''}: "${e.message}"`).join('; ');
  return composeCause(`${subject(s)} was interrupted: ${i.what} (${i.reason}${quoted})${exit}`, 'Its events said', events);
}

/**
 * The node's container runtime, not the pipeline: it kept timing out creating the container (or
 * inspecting its image) for the grace period while the kubelet retried (ContainerRuntimeTimeout).
 */
export function runtimeTimeoutCause(
  s: CauseSubject,
  detail: { reason: string; doing: string; waitedSeconds: number; graceSeconds: number; words?: string },
): string {
  return composeCause(
    `${subject(s)} could not start: for ${seconds(detail.waitedSeconds)} (grace period ${seconds(detail.graceSeconds)}) its node's container runtime ` +
      `did not ${detail.doing} in time (${detail.reason}). The node's runtime is overloaded or unwell: not the pipeline's doing`,
    'The kubelet said',
    detail.words,
  );
}

/** Evicted for its own limit: a fresh pod writes as much and meets the same limit. */
export function ownLimitEvictedCause(s: CauseSubject, detail: { limit: string; words?: string; exitCode?: number }): string {
  const exit = detail.exitCode !== undefined ? ` Its container was killed with it (exit code ${detail.exitCode}).` : '';
  return composeCause(
    `${subject(s)} used more local storage than ${detail.limit}, so the kubelet evicted its pod (Evicted).${exit} ` +
      'Write less to the container\'s file system and its emptyDir volumes, or raise the limit',
    'The kubelet said',
    detail.words,
  );
}

/** No retry makes the sandbox: the pod asks for what its node cannot give (PodConfigError). */
export function sandboxRefusedCause(s: CauseSubject, detail: { what: string; words?: string }): string {
  return composeCause(
    `${subject(s)} could not start: its node cannot make the pod's sandbox (FailedCreatePodSandBox): ${detail.what}, which no retry changes`,
    'The kubelet said',
    detail.words,
  );
}

/** What FinishStep knows of a failed step once its logs are kept: what its Cause ends with. */
export interface StepEnding {
  step: string;
  error: ErrorName;
  /** PollStep's Cause, masked. Absent: it gave none. */
  cause?: string;
  /** The end of the step's log as a Cause shows it (causeLogTail), when it logged anything. */
  logTail?: string;
  /** The service that failed (ServiceFailed), and the end of its log as a Cause shows it. */
  service?: { name: string; logTail?: string };
  /** The attempt that failed ("attempt 2 of 3"), whether it was the first, and whether another follows. */
  attempt?: { words: string; first: boolean; retried: boolean };
}

/**
 * The Cause a failed step ends with: PollStep's paragraph, then what a person reads next. A
 * non-zero exit (StepFailed; CheckoutFailed, git's words) gets the log's last lines; a failed
 * service gets its own log's (a database says why it stopped there, not in the step's log). A
 * retried attempt says it is tried again and why; the last of several says it was the last.
 */
export function finishedCause(end: StepEnding): string {
  let cause = end.cause ?? `Step "${end.step}" failed`;
  if (!cause) return cause;
  const exited = end.error === ErrorNames.StepFailed || end.error === ErrorNames.CheckoutFailed;
  if (exited && end.logTail) cause = `${cause}\nLast lines of the log:\n${end.logTail}`;
  if (end.error === ErrorNames.ServiceFailed && end.service?.logTail) cause = `${cause}\nLast lines of the log of service "${end.service.name}":\n${end.service.logTail}`;
  const attempt = end.attempt;
  if (attempt?.retried) {
    cause = `${cause}\nThis was ${attempt.words}: the step is tried again, in a fresh pod on the same workspace (its retry.on has ${end.error}).`;
  } else if (attempt && !attempt.first) {
    cause = `${cause}\nThis was ${attempt.words}, the last its retry allows.`;
  }
  return cause;
}
