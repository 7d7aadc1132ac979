/**
 * Step status classification: one poll's pod and events -> pending, running, succeeded, or a
 * terminal failure with a named Error and a readable Cause. Pure: time comes from the observation.
 *
 * Every rule reads one container, the pod's focus (focusContainer): its first init container that
 * has not finished (an ephemeral workspace's checkout, whose exit, start and pull failures are the
 * checkout's: CheckoutFailed, ImagePullFailed naming the init container), else the step container.
 *
 * Priority order (first match wins; each rule says why it sits where it does):
 *  1. Pod gone                              -> PodLost (PodDeleted).
 *  2. Pod reason DeadlineExceeded           -> StepTimedOut. Before the container: the kubelet
 *     kills it, so its exit code (137) would be the deadline's doing, not the step's.
 *  3. Evicted (pod reason or pod event)     -> PodLost, with the kubelet's words. Same reason.
 *  4. Container exited 0 / pod Succeeded    -> succeeded. A finished step stays finished even if
 *     its pod is being deleted afterwards.
 *  5. Pod being deleted (deletionTimestamp) -> PodLost (PodDeleting): the exit code that follows
 *     would be the deletion's SIGTERM/SIGKILL.
 *  6. Container terminated non-zero         -> StepFailed: OOMKilled (with the memory limit),
 *     StartError/ContainerCannotRun (command could not start), else exit code + termination
 *     message. Also read from lastState when the kubelet restarted it (RunContainerError,
 *     CrashLoopBackOff). CheckoutFailed instead when the step is the build's checkout: without
 *     the source no later step can run, and git's own words are in the log tail FinishStep adds.
 *  7. Pod Failed without a terminated step  -> PodLost: the node rejected or lost the pod.
 *  8. Image problems (waiting reason, or the newest container event when the status has none):
 *     InvalidImageName / invalid reference  -> InvalidImage at once;
 *     ErrImageNeverPull                     -> ImagePullFailed at once;
 *     permanent registry words              -> ImagePullFailed at once;
 *     transient or unknown words            -> pending until imagePullGraceSeconds after the
 *                                              first pull failure, then ImagePullFailed.
 *  9. CreateContainerConfigError / CreateContainerError -> PodConfigError at once (missing
 *     secret, key or config map: waiting will not create it). RunContainerError -> StepFailed
 *     (CheckoutFailed for the checkout).
 * 10. Workspace (the pod mounts the build's claim):
 *     not yet on a node: the claim's newest provisioning outcome is ProvisioningFailed, or the
 *     scheduler blames the claim (unbound claim, claim not found, volume node affinity conflict,
 *     VolumeBinding prebind errors);
 *     on a node, container still ContainerCreating with no container event yet: the newest of the
 *     pod's FailedAttachVolume / SuccessfulAttachVolume / FailedMount events is a failure;
 *     permanent words (storage class or claim not found, UnauthorizedOperation, invalid
 *     parameters)                           -> WorkspaceUnavailable at once;
 *     transient or unknown words (Multi-Attach while the previous node detaches, attach and
 *     mount timeouts, DeadlineExceeded)     -> pending until workspaceGraceSeconds after the
 *                                              first such failure, then WorkspaceUnavailable.
 *     After 8 and 9: the kubelet reports image and container problems only once the volumes are
 *     mounted, so a pod that reached them is past its workspace's troubles (and older volume
 *     events say nothing any more). Before 11: a pod the claim keeps off every node is the
 *     workspace's problem, with the provisioner's words and the workspace's grace, not the
 *     autoscaler's.
 * 11. Unschedulable (PodScheduled=False or FailedScheduling, pod not yet on a node):
 *     pinned by required node affinity to the node holding the workspace volume
 *                                           -> Unschedulable after PINNED_UNSCHEDULABLE_GRACE_SECONDS
 *                                              at most: a new node cannot help, and the short
 *                                              wait only lets the previous step's pod finish
 *                                              leaving the node (its resources count until then);
 *     otherwise                             -> pending until unschedulableGraceSeconds after pod
 *                                              creation (the autoscaler may add a node), then
 *                                              Unschedulable with the scheduler's words.
 * 12. Container running / pod Running       -> running.
 * 13. Otherwise                             -> pending with the kubelet's reason
 *                                              (ContainerCreating, Pulling, …), or, for a pod
 *                                              waiting for its workspace volume, the claim's
 *                                              (ExternalProvisioning, WaitForFirstConsumer, …).
 */
import type { CoreV1Event, V1ContainerStateTerminated, V1ContainerStateWaiting, V1Pod } from '@kubernetes/client-node';
import { ErrorNames, type ErrorName } from '../contract/index.js';
import {
  DEFAULT_CLASSIFY_OPTIONS,
  StepPhases,
  type ClassifyOptions,
  type Observation,
  type StepIdentity,
  type StepStatus,
} from './types.js';
import {
  ContainerWaitingReasons,
  EventReasons,
  PodPhases,
  PodReasons,
  StepReasons,
  TerminatedReasons,
  VolumeEventReasons,
} from './classify-reasons.js';
import {
  carriesPullError,
  eventFirstSeen,
  hasBackOffDetail,
  isAboutPod,
  isContainerEvent,
  isPodLevelEvent,
  isProvisioningOutcome,
  isPullFailureEvent,
  isSchedulingFailure,
  isVolumeEvent,
  isVolumeFailure,
  latestFirst,
} from './classify-events.js';
import {
  containerSpec,
  containerStatus,
  createdAt,
  isBeingDeleted,
  isDeadlineExceeded,
  isEvictedStatus,
  isOomKilled,
  isPhase,
  isScheduled,
  isStartError,
  isUnschedulableCondition,
  memoryLimit,
  pinnedNode,
  startedAt,
  focusContainer,
  unschedulableMessage,
  workspaceClaim,
} from './classify-pod.js';
import {
  PullVerdicts,
  PullWaitingReasons,
  classifyPullMessage,
  isAuthPullFailure,
  isInvalidReferenceMessage,
  isPullWaitingReason,
  type PullVerdict,
} from './image-pull.js';
import { WorkspaceVerdicts, blamesClaim, classifyWorkspaceMessage } from './workspace-failure.js';
import {
  checkoutFailedCause,
  configErrorCause,
  evictedCause,
  exitCodeCause,
  invalidImageCause,
  neverPullCause,
  outOfMemoryCause,
  podDeletedCause,
  podDeletingCause,
  podFailedCause,
  pinnedUnschedulableCause,
  pullCredentialsHint,
  pullFailedCause,
  runtimeWords,
  startErrorCause,
  timedOutCause,
  unschedulableCause,
  volumeWords,
  workspaceUnavailableCause,
  type CauseSubject,
  type PullCredentials,
  type WorkspaceFailureReason,
} from './cause.js';

/** Everything the rules read, gathered once per poll. */
interface Facts {
  pod: V1Pod;
  subject: CauseSubject;
  /** The container the poll is about (see focusContainer). */
  container: string;
  init: boolean;
  waiting?: V1ContainerStateWaiting;
  terminated?: V1ContainerStateTerminated;
  running: boolean;
  /** This container's events, newest first. */
  containerEvents: CoreV1Event[];
  /** Pod-level events (scheduler, eviction, volumes), newest first. */
  podEvents: CoreV1Event[];
  /** The claim the pod mounts (the build's workspace), if any. */
  claim?: string;
  /** The claim's events, newest first; only read while the pod waits for a node. */
  claimEvents: CoreV1Event[];
  now: number;
  options: ClassifyOptions;
}

function failed(error: ErrorName, reason: string, cause: string, exitCode?: number): StepStatus {
  return exitCode === undefined
    ? { phase: StepPhases.Failed, reason, error, cause }
    : { phase: StepPhases.Failed, reason, error, cause, exitCode };
}

function pending(reason: string, message?: string): StepStatus {
  return message ? { phase: StepPhases.Pending, reason, message } : { phase: StepPhases.Pending, reason };
}

function secondsBetween(from: number, to: number): number {
  return Math.max(0, (to - from) / 1000);
}

export function classifyStep(
  observation: Observation,
  identity: StepIdentity,
  options: Partial<ClassifyOptions> = {},
): StepStatus {
  const { pod } = observation;
  if (pod === null) {
    return failed(ErrorNames.PodLost, StepReasons.PodDeleted, podDeletedCause(identity));
  }
  const facts = gatherFacts(pod, observation, identity, { ...DEFAULT_CLASSIFY_OPTIONS, ...options });
  return (
    timedOut(facts) ??
    evicted(facts) ??
    succeeded(facts) ??
    beingDeleted(facts) ??
    containerFailed(facts) ??
    podFailed(facts) ??
    imageProblem(facts) ??
    configProblem(facts) ??
    workspaceProblem(facts) ??
    unschedulable(facts) ??
    runningOrPending(facts)
  );
}

function gatherFacts(
  pod: V1Pod,
  observation: Observation,
  identity: StepIdentity,
  options: ClassifyOptions,
): Facts {
  const { name: container, init } = focusContainer(pod);
  const status = containerStatus(pod, container, init);
  const specImage = containerSpec(pod, container, init)?.image;
  const image = (init ? specImage : identity.image || specImage) || status?.image || '';
  const events = observation.events.filter((e) => isAboutPod(e, pod));
  // A container the kubelet restarted keeps its real exit in lastState while it waits again.
  const lastTerminated = status?.state?.waiting ? status.lastState?.terminated : undefined;
  const claim = workspaceClaim(pod);
  // The only init container a step pod has is its own checkout (an ephemeral workspace's).
  const subject: CauseSubject = init
    ? { step: identity.step, image, checkout: true, initContainer: container }
    : { step: identity.step, image, ...(identity.checkout ? { checkout: true } : {}) };
  return {
    pod,
    subject,
    container,
    init,
    waiting: status?.state?.waiting,
    terminated: status?.state?.terminated ?? lastTerminated,
    running: Boolean(status?.state?.running),
    containerEvents: latestFirst(events.filter((e) => isContainerEvent(e, container, init))),
    podEvents: latestFirst(events.filter(isPodLevelEvent)),
    ...(claim ? { claim } : {}),
    claimEvents: latestFirst(observation.claimEvents ?? []),
    now: observation.observedAt.getTime(),
    options,
  };
}

function timedOut(f: Facts): StepStatus | undefined {
  if (!isDeadlineExceeded(f.pod)) return undefined;
  const deadline = f.pod.spec?.activeDeadlineSeconds;
  return failed(
    ErrorNames.StepTimedOut,
    PodReasons.DeadlineExceeded,
    timedOutCause(f.subject, { deadlineSeconds: deadline, words: f.pod.status?.message }),
  );
}

function evicted(f: Facts): StepStatus | undefined {
  const event = f.podEvents.find((e) => e.reason === EventReasons.Evicted);
  if (!isEvictedStatus(f.pod) && !event) return undefined;
  const words = f.pod.status?.message || event?.message;
  return failed(ErrorNames.PodLost, PodReasons.Evicted, evictedCause(f.subject, words));
}

function succeeded(f: Facts): StepStatus | undefined {
  const exitedZero = f.terminated?.exitCode === 0 && !isOomKilled(f.terminated);
  if (exitedZero || (isPhase(f.pod, PodPhases.Succeeded) && !f.terminated)) {
    return { phase: StepPhases.Succeeded, reason: f.terminated?.reason || StepReasons.Succeeded, exitCode: 0 };
  }
  return undefined;
}

function beingDeleted(f: Facts): StepStatus | undefined {
  if (!isBeingDeleted(f.pod)) return undefined;
  return failed(ErrorNames.PodLost, StepReasons.PodDeleting, podDeletingCause(f.subject));
}

function containerFailed(f: Facts): StepStatus | undefined {
  const t = f.terminated;
  if (!t) return undefined;
  const error = f.subject.checkout ? ErrorNames.CheckoutFailed : ErrorNames.StepFailed;
  if (isOomKilled(t)) {
    return failed(
      error,
      TerminatedReasons.OOMKilled,
      outOfMemoryCause(f.subject, { exitCode: t.exitCode, memoryLimit: memoryLimit(f.pod, f.container, f.init) }),
      t.exitCode,
    );
  }
  if (isStartError(t)) {
    return failed(
      error,
      t.reason ?? TerminatedReasons.StartError,
      startErrorCause(f.subject, { reason: t.reason ?? TerminatedReasons.StartError, exitCode: t.exitCode, words: t.message }),
      t.exitCode,
    );
  }
  const detail = { exitCode: t.exitCode, reason: t.reason, message: t.message, signal: t.signal };
  return failed(
    error,
    t.reason || TerminatedReasons.Error,
    f.subject.checkout ? checkoutFailedCause(f.subject, detail) : exitCodeCause(f.subject, detail),
    t.exitCode,
  );
}

function podFailed(f: Facts): StepStatus | undefined {
  if (!isPhase(f.pod, PodPhases.Failed)) return undefined;
  const reason = f.pod.status?.reason;
  return failed(
    ErrorNames.PodLost,
    reason || StepReasons.PodFailed,
    podFailedCause(f.subject, { reason, words: f.pod.status?.message }),
  );
}

/** The waiting reason, or one derived from the newest container event when the status has none. */
function pullReason(f: Facts): string | undefined {
  if (isPullWaitingReason(f.waiting?.reason)) return f.waiting.reason;
  // An init container waits as PodInitializing, where a container says ContainerCreating.
  const quiet = f.waiting?.reason === ContainerWaitingReasons.ContainerCreating || f.waiting?.reason === ContainerWaitingReasons.PodInitializing;
  if (f.waiting?.reason && !quiet) return undefined;
  const newest = f.containerEvents[0];
  if (!newest || !isPullFailureEvent(newest)) return undefined;
  if (newest.reason === EventReasons.InspectFailed) return PullWaitingReasons.InvalidImageName;
  if (newest.reason === EventReasons.ErrImageNeverPull) return PullWaitingReasons.ErrImageNeverPull;
  return newest.reason === EventReasons.BackOff || /ImagePullBackOff/.test(newest.message ?? '')
    ? PullWaitingReasons.ImagePullBackOff
    : PullWaitingReasons.ErrImagePull;
}

/**
 * The most specific words about the pull: the waiting message when it carries the runtime's
 * error (old kubelets for ErrImagePull, newer ones for the back-off too), else the newest event
 * that does, else the bare waiting message.
 */
function pullMessage(f: Facts): string | undefined {
  const waiting = f.waiting?.message?.trim();
  if (waiting && (!/^Back-off pulling image\b/.test(waiting) || hasBackOffDetail(waiting))) return waiting;
  return f.containerEvents.find(carriesPullError)?.message ?? (waiting || undefined);
}

function firstPullFailure(f: Facts): number {
  const starts = f.containerEvents
    .filter(isPullFailureEvent)
    .map(eventFirstSeen)
    .filter((t): t is number => t !== undefined);
  if (starts.length > 0) return Math.min(...starts);
  return startedAt(f.pod) ?? createdAt(f.pod) ?? f.now;
}

function pullVerdict(reason: string, words: string | undefined, image: string): PullVerdict {
  if (reason === PullWaitingReasons.RegistryUnavailable) return PullVerdicts.Transient;
  if (reason === PullWaitingReasons.SignatureValidationFailed) return PullVerdicts.Permanent;
  return words ? classifyPullMessage(words, image) : PullVerdicts.Unknown;
}

function imageProblem(f: Facts): StepStatus | undefined {
  const reason = pullReason(f);
  if (!reason) return undefined;
  const raw = pullMessage(f);
  const words = raw ? runtimeWords(raw) : undefined;
  const isInvalid =
    reason === PullWaitingReasons.InvalidImageName ||
    (reason === PullWaitingReasons.ImageInspectError && words !== undefined && isInvalidReferenceMessage(words));
  if (isInvalid) {
    return failed(ErrorNames.InvalidImage, reason, invalidImageCause(f.subject, { reason, words }));
  }
  if (reason === PullWaitingReasons.ErrImageNeverPull) {
    return failed(ErrorNames.ImagePullFailed, reason, neverPullCause(f.subject, words));
  }
  // Only real runtime words are judged; the bare back-off line names the image and nothing more.
  const judged = words && raw && !/^Back-off pulling image "(?:[^"\\]|\\.)*"$/.test(raw.trim()) ? words : undefined;
  // Refused credentials (or none offered): one more line on what to check.
  const hint = judged && isAuthPullFailure(judged, f.subject.image) ? { hint: pullCredentialsHint(f.subject.image, podPullCredentials(f.pod)) } : {};
  if (pullVerdict(reason, judged, f.subject.image) === PullVerdicts.Permanent) {
    return failed(ErrorNames.ImagePullFailed, reason, pullFailedCause(f.subject, { reason, words: judged, ...hint }));
  }
  const waited = secondsBetween(firstPullFailure(f), f.now);
  if (waited < f.options.imagePullGraceSeconds) return pending(reason, judged ?? raw);
  return failed(
    ErrorNames.ImagePullFailed,
    reason,
    pullFailedCause(f.subject, {
      reason,
      words: judged,
      waitedSeconds: waited,
      graceSeconds: f.options.imagePullGraceSeconds,
      ...hint,
    }),
  );
}

/** The pull secrets the kubelet had for the pod, as the API returns it (after the service account's were filled in). */
function podPullCredentials(pod: V1Pod): PullCredentials {
  const pullSecrets = (pod.spec?.imagePullSecrets ?? []).map((ref) => ref.name).filter((name): name is string => !!name);
  return { pullSecrets, ...(pod.metadata?.namespace ? { namespace: pod.metadata.namespace } : {}) };
}

function isKubeletEcho(message: string): boolean {
  return /^Error: (ErrImagePull|ImagePullBackOff|InvalidImageName|ErrImageNeverPull)$/.test(message.trim());
}

function configProblem(f: Facts): StepStatus | undefined {
  const reason = f.waiting?.reason;
  const isConfig =
    reason === ContainerWaitingReasons.CreateContainerConfigError ||
    reason === ContainerWaitingReasons.CreateContainerError;
  if (!isConfig && reason !== ContainerWaitingReasons.RunContainerError) return undefined;
  const event = f.containerEvents.find(
    (e) => e.reason === EventReasons.Failed && /^Error: /.test(e.message ?? '') && !isKubeletEcho(e.message ?? ''),
  );
  const raw = f.waiting?.message || event?.message;
  const words = raw ? runtimeWords(raw) : undefined;
  if (isConfig) {
    return failed(ErrorNames.PodConfigError, reason, configErrorCause(f.subject, { reason, words }));
  }
  // The clone's command could not even start: still the checkout failing, as for an exit code.
  return failed(f.subject.checkout ? ErrorNames.CheckoutFailed : ErrorNames.StepFailed, reason, startErrorCause(f.subject, { reason, words }));
}

/** What keeps the workspace from the step: the reporting event's reason, its words, and since when. */
interface WorkspaceFailure {
  reason: WorkspaceFailureReason;
  words: string;
  /** The first report of the same trouble: the grace period counts from here. */
  since: number;
}

/** The earliest first-seen time of the events, else the pod's creation. */
function firstSeen(f: Facts, events: readonly CoreV1Event[]): number {
  const starts = events.map(eventFirstSeen).filter((t): t is number => t !== undefined);
  return starts.length > 0 ? Math.min(...starts) : (createdAt(f.pod) ?? f.now);
}

/**
 * Before a node: the provisioner's failure on the claim (unless a later success ended it), else a
 * scheduling failure that blames the claim. The provisioner's words come first: with an unknown
 * storage class the scheduler only says the claim is unbound.
 */
function placementFailure(f: Facts): WorkspaceFailure | undefined {
  const blaming = f.podEvents.filter((e) => isSchedulingFailure(e) && blamesClaim(e.message ?? ''));
  const provisioningFailures = f.claimEvents.filter((e) => e.reason === VolumeEventReasons.ProvisioningFailed);
  const outcome = f.claimEvents.find(isProvisioningOutcome);
  if (outcome?.reason === VolumeEventReasons.ProvisioningFailed) {
    return {
      reason: VolumeEventReasons.ProvisioningFailed,
      words: outcome.message ?? '',
      since: firstSeen(f, [...provisioningFailures, ...blaming]),
    };
  }
  const words = unschedulableMessage(f.pod) ?? f.podEvents.find(isSchedulingFailure)?.message;
  if (!words || !blamesClaim(words)) return undefined;
  return { reason: EventReasons.FailedScheduling, words, since: firstSeen(f, blaming) };
}

/**
 * On a node, before the kubelet reached the container (it does only once the volumes are
 * mounted): the newest attach or mount report, if it is a failure.
 */
function attachOrMountFailure(f: Facts): WorkspaceFailure | undefined {
  const creating = !f.waiting || f.waiting.reason === ContainerWaitingReasons.ContainerCreating;
  if (!isPhase(f.pod, PodPhases.Pending) || f.running || !creating || f.containerEvents.length > 0) return undefined;
  const newest = f.podEvents.find(isVolumeEvent);
  if (!newest || !isVolumeFailure(newest)) return undefined;
  return {
    reason: newest.reason === VolumeEventReasons.FailedMount ? VolumeEventReasons.FailedMount : VolumeEventReasons.FailedAttachVolume,
    words: newest.message ?? '',
    since: firstSeen(f, f.podEvents.filter(isVolumeFailure)),
  };
}

function workspaceProblem(f: Facts): StepStatus | undefined {
  if (!f.claim) return undefined;
  const failure = isScheduled(f.pod) ? attachOrMountFailure(f) : placementFailure(f);
  if (!failure) return undefined;
  const words = volumeWords(failure.words) || undefined;
  const detail = { claim: f.claim, reason: failure.reason, words };
  if (classifyWorkspaceMessage(failure.words) === WorkspaceVerdicts.Permanent) {
    return failed(ErrorNames.WorkspaceUnavailable, failure.reason, workspaceUnavailableCause(f.subject, detail));
  }
  const waited = secondsBetween(failure.since, f.now);
  if (waited < f.options.workspaceGraceSeconds) return pending(failure.reason, words);
  return failed(
    ErrorNames.WorkspaceUnavailable,
    failure.reason,
    workspaceUnavailableCause(f.subject, { ...detail, waitedSeconds: waited, graceSeconds: f.options.workspaceGraceSeconds }),
  );
}

/**
 * How long a pod pinned to its workspace's node may be unschedulable: the previous step's pod,
 * deleted a moment ago, holds its cpu and memory there until it is gone (10 s of grace at most).
 */
export const PINNED_UNSCHEDULABLE_GRACE_SECONDS = 30;

function unschedulable(f: Facts): StepStatus | undefined {
  if (isScheduled(f.pod)) return undefined;
  const event = f.podEvents.find(isSchedulingFailure);
  if (!isUnschedulableCondition(f.pod) && !event) return undefined;
  const words = unschedulableMessage(f.pod) ?? event?.message;
  const node = pinnedNode(f.pod);
  const since = createdAt(f.pod) ?? (event ? eventFirstSeen(event) : undefined) ?? f.now;
  const waited = secondsBetween(since, f.now);
  if (node && f.claim) {
    if (waited < Math.min(PINNED_UNSCHEDULABLE_GRACE_SECONDS, f.options.unschedulableGraceSeconds)) return pending(StepReasons.Unschedulable, words);
    return failed(ErrorNames.Unschedulable, StepReasons.Unschedulable, pinnedUnschedulableCause(f.subject, { node, claim: f.claim, words }));
  }
  if (waited < f.options.unschedulableGraceSeconds) return pending(StepReasons.Unschedulable, words);
  return failed(
    ErrorNames.Unschedulable,
    StepReasons.Unschedulable,
    unschedulableCause(f.subject, { waitedSeconds: waited, graceSeconds: f.options.unschedulableGraceSeconds, words }),
  );
}

function runningOrPending(f: Facts): StepStatus {
  if (f.running || (isPhase(f.pod, PodPhases.Running) && !f.waiting)) {
    // The step's time runs from here too: the pod's deadline covers its checkout.
    return { phase: StepPhases.Running, reason: f.init ? StepReasons.CheckingOut : StepReasons.Running };
  }
  if (f.waiting?.reason) return pending(f.waiting.reason, f.waiting.message);
  const newest = f.containerEvents[0];
  if (newest?.reason) return pending(newest.reason, newest.message);
  const claimNews = isScheduled(f.pod) ? undefined : f.claimEvents[0];
  if (claimNews?.reason) return pending(claimNews.reason, claimNews.message);
  return pending(StepReasons.Pending);
}
