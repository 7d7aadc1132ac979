/**
 * Step status classification: one poll's pod and events -> pending, running, succeeded, or a
 * terminal failure with a named Error and a readable Cause. Pure: time comes from the observation.
 *
 * Every rule reads one container, the pod's focus (focusContainer): its first init container that
 * has not finished (an ephemeral workspace's checkout, whose exit, start and pull failures are the
 * checkout's: CheckoutFailed, ImagePullFailed naming the init container), else the step container.
 *
 * Priority order (first match wins; each rule says why it sits where it does):
 *  1. Pod gone                              -> StepInterrupted when the events it left (they
 *     outlive it) say it was taken away: Evicted (the kubelet's, Karpenter's), the taint
 *     manager's TaintManagerEviction "Marking for deletion", the node controller's NodeNotReady,
 *     the scheduler's Preempted, Karpenter's Disrupted (classify-disruption.ts); else PodLost
 *     (PodDeleted): someone deleted it.
 *  2. Pod reason DeadlineExceeded           -> StepTimedOut. Before the container: the kubelet
 *     kills it, so its exit code (137) would be the deadline's doing, not the step's.
 *  2a. Pod Pending with no startTime past activeDeadlineSeconds since its creation
 *                                           -> StepTimedOut (NeverStarted): the deadline counts from
 *     the startTime only a kubelet sets, so a pod no node started (never scheduled, or waiting for
 *     capacity all along) would otherwise outlive its timeout for ever (classify-stall.ts).
 *  3. The kubelet ended the pod: pod reason Evicted (node pressure) or Terminated (graceful node
 *     shutdown), or an Evicted event on a pod with no DisruptionTarget yet
 *                                           -> StepInterrupted, with the kubelet's words. Same reason.
 *  3a. Before 3: the kubelet evicted the pod for its own limits ("Usage of EmptyDir volume … exceeds
 *     the limit …", "Pod ephemeral local storage usage exceeds the total limit of containers …",
 *     "Container X exceeded its local ephemeral storage limit …", in its status or its Evicted
 *     event, also one the pod left when gone, rule 1)
 *                                           -> StepFailed (CheckoutFailed for the checkout), its Cause
 *     naming the limit: a fresh pod writes as much and meets the same limit; the node did nothing wrong.
 *  4. Container exited 0 / pod Succeeded    -> succeeded, unless a service ended before the step's
 *     container did (5b's ServiceFailed: the same verdict a poll during the step would have given).
 *     A finished step stays finished even if its pod is being deleted afterwards.
 *  4a. Condition DisruptionTarget=True (EvictionByEvictionAPI: kubectl drain, Karpenter,
 *     cluster-autoscaler; DeletionByPodGC: its node is gone; DeletionByTaintManager; PreemptionByScheduler;
 *     TerminationByKubelet), terminating or already Failed
 *                                           -> StepInterrupted with the condition's reason and
 *     message and the disruption events' words: the cluster took the pod away, and the exit code
 *     that follows (143, 137) is its SIGTERM/SIGKILL. Before 5 (it says who deleted the pod) and
 *     the services (they are stopped with it).
 *  5. Pod being deleted (deletionTimestamp) -> PodLost (PodDeleting): the exit code that follows
 *     would be the deletion's SIGTERM/SIGKILL. StepInterrupted instead when its events say it
 *     was taken away (as in 1: clusters before DisruptionTarget say it only there).
 * 5a-c. Services (the step's sidecars: init containers with restartPolicy Always, which the
 *     kubelet starts in order before the step and always restarts), in this order:
 *     a. an image that cannot be pulled, the focus container's (a service's or the step's): rule 8
 *        as below, checked here when it fails (not while it waits out its grace): a pull failure
 *        of anything comes first, since nothing else in the pod can start without the image;
 *     b. a service ended (terminated, or restarted with its exit in lastState, CrashLoopBackOff),
 *        before the step started or while it ran  -> ServiceFailed at once, exit code in the
 *        Cause, its log tail added by FinishStep. Judged by termination times (the service's end,
 *        or the one before it in lastState, against the step container's end), which stay in the
 *        pod's status, so the verdict does not depend on when the poll comes: a crash during the
 *        step is ServiceFailed even when the first poll to see it comes after the step exited 0
 *        (rule 4). Not an end after the step's own: that is the kubelet stopping the sidecars
 *        because the step ended. Not an end the startup probe caused (a Killing "failed startup
 *        probe" event in that run): that is c;
 *     c. a service not started (its startup probe failing: Unhealthy "Startup probe failed: dial
 *        tcp HOST:PORT: ...") serviceStartGraceSeconds after its first start -> ServiceFailed
 *        naming the port; before that, pending (ServiceStarting) with the probe's words (rule 13).
 *     After 1-5 (the pod's own end says more) and before 6: a service that failed is why the step
 *     failed, if it did (a database gone makes the tests fail), so ServiceFailed wins over
 *     StepFailed. The focus container being a service makes rules 6-13 name it (e.g.
 *     PodConfigError for a service whose Secret is missing).
 *  6. Container terminated non-zero         -> StepFailed: OOMKilled (with the memory limit),
 *     StartError/ContainerCannotRun (command could not start), else exit code + termination
 *     message. Also read from lastState when the kubelet restarted it (RunContainerError,
 *     CrashLoopBackOff). CheckoutFailed instead when the step is the build's checkout: without
 *     the source no later step can run, and git's own words are in the log tail FinishStep adds.
 *  7. Pod Failed without a terminated step  -> PodLost: the node rejected or lost the pod before
 *     the step ran. A container the node could no longer locate (ContainerStatusUnknown, which 6
 *     passes over: its 137 is not the step's) that had started went with its node or the node's
 *     runtime: StepInterrupted, as a node that went away; a fresh pod is what helps. One with no
 *     start time never ran (the kubelet reports those lost when the pod ends): PodLost.
 *  8. Image problems (waiting reason, or the newest container event when the status has none):
 *     InvalidImageName / invalid reference  -> InvalidImage at once;
 *     ErrImageNeverPull                     -> ImagePullFailed at once;
 *     permanent registry words              -> ImagePullFailed at once;
 *     transient or unknown words            -> pending until imagePullGraceSeconds after the
 *                                              first pull failure, then ImagePullFailed.
 *  8a. ImageInspectError not about the reference (the status, or the kubelet's InspectFailed
 *     "Failed to inspect image …": the runtime did not answer ImageStatus; its other InspectFailed,
 *     "Failed to apply default image tag …", is InvalidImageName above)
 *                                           -> pending until imagePullGraceSeconds after the first
 *                                              report, then ContainerRuntimeTimeout: the runtime's
 *                                              trouble, not the image's.
 *  9. CreateContainerConfigError / CreateContainerError -> PodConfigError at once (missing
 *     secret, key or config map: waiting will not create it). RunContainerError -> StepFailed
 *     (CheckoutFailed for the checkout).
 *  9a. Before 9: CreateContainerError / CreateContainerConfigError whose newest words say the
 *     runtime did not answer in time ("context deadline exceeded"; containerd's "failed to reserve
 *     container name … is reserved for …" while it still works on the call that timed out)
 *                                           -> pending until containerRuntimeGraceSeconds after the
 *                                              first such failure (the kubelet retries), then
 *                                              ContainerRuntimeTimeout, which a fresh pod may fix.
 * 10. Workspace (the pod mounts the build's claim):
 *     not yet on a node: the claim's newest provisioning outcome is ProvisioningFailed, or the
 *     scheduler blames the claim (unbound claim, claim not found, volume node affinity conflict,
 *     VolumeBinding prebind errors);
 *     on a node, container still ContainerCreating with no container event yet: the attach/detach
 *     controller's newest word is a FailedAttachVolume (judged even when the kubelet's generic
 *     FailedMount timeout came after it), else the newest FailedMount since the last
 *     SuccessfulAttachVolume;
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
 * 10a. Sandbox (on a node, no container event yet, FailedCreatePodSandBox):
 *     words no retry changes (containerd's "no runtime for \"X\" is configured" for the pod's
 *     RuntimeClass; the kubelet's "can't set `spec.hostUsers: false`, … does not support user
 *     namespaces")                          -> PodConfigError at once, naming what;
 *     otherwise (the CNI out of IP addresses, a container runtime that stopped answering) the
 *     kubelet retries it, so                -> pending until sandboxGraceSeconds after the first
 *                                              failure, then PodLost with the kubelet's words.
 * 10b. Capacity (not yet on a node): the scheduler's reasons are all NodeResourcesFit's ("Insufficient
 *     cpu", "Too many pods", ...; for a pod mounting the workspace claim, apart from the affinity
 *     that keeps it to the claim's node) and no node autoscaler has said a word about the pod
 *                                           -> pending (WaitingForCapacity, the scheduler's words):
 *                                              a fixed-size cluster frees room as other steps end,
 *                                              a queue; until the step's timeout (2a), or an
 *                                              explicit pending-timeout after pod creation, then
 *                                              Unschedulable (classify-stall.ts). Before 11, whose
 *                                              grace is for an autoscaler that may add a node.
 * 11. Unschedulable (PodScheduled=False or FailedScheduling, pod not yet on a node):
 *     pinned by required node affinity to the node holding the workspace volume
 *                                           -> Unschedulable after PINNED_UNSCHEDULABLE_GRACE_SECONDS
 *                                              at most: a new node cannot help, and the short
 *                                              wait only lets the previous step's pod finish
 *                                              leaving the node (its resources count until then);
 *     the newest node autoscaler word on the pod (autoscaler-signals.ts) says none will come:
 *     cluster-autoscaler's NotTriggerScaleUp (max node group size reached, no group fits; not
 *     one naming a group in back-off, which is retried), Karpenter's FailedScheduling "Failed
 *     to schedule pod, ..." (no NodePool or instance type fits)
 *                                           -> Unschedulable at once, with its words;
 *     it says a node is coming: TriggeredScaleUp, Karpenter's Nominated
 *                                           -> pending (WaitingForNode, its words) until
 *                                              unschedulableGraceSeconds after it last said so
 *                                              (and after pod creation), then Unschedulable;
 *     otherwise (no autoscaler word)        -> pending until unschedulableGraceSeconds after pod
 *                                              creation (the autoscaler may add a node), then
 *                                              Unschedulable with the scheduler's words.
 * 12. Container running / pod Running       -> running.
 * 12a. Pod Pending, no container running, the focus container not pulling (its newest event is
 *     not an unanswered Pulling: the kubelet says nothing while it downloads), and no event or
 *     status change about the pod (creation, startTime, conditions, container state times, events,
 *     the claim's before a node) for its pending-timeout (default 5 min)
 *                                           -> PodStalled, naming what is missing: a scheduler's answer
 *                                              (scheduling gates, a schedulerName no scheduler serves,
 *                                              a scheduler that is down), or the kubelet's word on a
 *                                              pod ContainerCreating on its node. After every rule
 *                                              that waits with a bound of its own (8, 10, 10a, 10b,
 *                                              11, 5c), whose words are signals anyway.
 * 13. Otherwise                             -> pending with the kubelet's reason
 *                                              (ContainerCreating, Pulling, …), or, for a pod
 *                                              waiting for its workspace volume, the claim's
 *                                              (ExternalProvisioning, WaitForFirstConsumer, …).
 */
import { CacheContainers } from './cache-containers.js';
import type { CoreV1Event, V1ContainerStateTerminated, V1ContainerStateWaiting, V1Pod } from '@kubernetes/client-node';
import { ErrorNames, type ErrorName } from '../contract/index.js';
import {
  Annotations,
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
  PodConditionTypes,
  PodPhases,
  PodReasons,
  StepReasons,
  TerminatedReasons,
  VolumeEventReasons,
} from './classify-reasons.js';
import {
  carriesPullError,
  eventFirstSeen,
  eventLastSeen,
  hasBackOffDetail,
  isAboutPod,
  isContainerEvent,
  isPodLevelEvent,
  isProvisioningOutcome,
  isPullFailureEvent,
  isVolumeEvent,
  isVolumeFailure,
  latestFirst,
  withOwnWords,
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
  stepContainerName,
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
import { toMillis } from './time.js';
import { buildFailure, readBuildResult, type DockerfileLines } from './build-result.js';
import { isRuntimeInspectFailure, isRuntimeTimeout, ownLimitEviction, sandboxRefusal } from './runtime-failures.js';
import { disruptionCondition, disruptionEventWords, disruptionWhat, eventSpeaker } from './classify-disruption.js';
import { NodeOutlooks, autoscalerSignal, isSchedulerFailure } from './autoscaler-signals.js';
import { WorkspaceVerdicts, blamesClaim, classifyWorkspaceMessage } from './workspace-failure.js';
import { isServiceItself } from './service-containers.js';
import { identityOfServiceAccount } from './service-accounts.js';
import { capacityWait, neverStarted, stalled } from './classify-stall.js';
import {
  endedBeforeStep,
  firstStarted,
  isServiceContainer,
  killedByStartupProbe,
  lastExit,
  lastProbeFailure,
  observedServices,
  probeWords,
  unopenedPorts,
  type ObservedService,
} from './classify-services.js';
import {
  checkoutFailedCause,
  configErrorCause,
  exitCodeCause,
  interruptedCause,
  invalidImageCause,
  neverPullCause,
  noNodeComingCause,
  outOfMemoryCause,
  ownLimitEvictedCause,
  podDeletedCause,
  podDeletingCause,
  podFailedCause,
  pinnedUnschedulableCause,
  pullCredentialsHint,
  pullFailedCause,
  runtimeTimeoutCause,
  runtimeWords,
  portGateExitedCause,
  sandboxFailedCause,
  sandboxRefusedCause,
  serviceExitedCause,
  servicePortsCause,
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
  /** The step itself (not a service that is the focus): what an interruption is about. */
  stepSubject: CauseSubject;
  /** The container the poll is about (see focusContainer). */
  container: string;
  init: boolean;
  /** The focus container is this service of the step (a sidecar) that has not run yet. */
  service?: string;
  /** Every service container of the pod, with its status and events. */
  services: ObservedService[];
  /** The step's own container has started (a service that ends now ends while the step runs). */
  stepStarted: boolean;
  /** When the step's own container ended, if it has: the sidecars are stopped after it. */
  stepFinishedAt?: number;
  waiting?: V1ContainerStateWaiting;
  terminated?: V1ContainerStateTerminated;
  running: boolean;
  /** This container's events, newest first. */
  containerEvents: CoreV1Event[];
  /** Every event about the pod, its containers' too: the newest says when it last moved (classify-stall.ts). */
  events: CoreV1Event[];
  /** Pod-level events (scheduler, eviction, volumes), newest first. */
  podEvents: CoreV1Event[];
  /** The claim the pod mounts (the build's workspace), if any. */
  claim?: string;
  /** The claim's events, newest first; only read while the pod waits for a node. */
  claimEvents: CoreV1Event[];
  /** A build step's pod: where its Dockerfile's instructions are, or true when that is not known. */
  build?: DockerfileLines | true;
  now: number;
  options: ClassifyOptions;
}

function failed(error: ErrorName, reason: string, cause: string, exitCode?: number, service?: string): StepStatus {
  return {
    phase: StepPhases.Failed,
    reason,
    error,
    cause,
    ...(exitCode !== undefined ? { exitCode } : {}),
    ...(service !== undefined ? { service } : {}),
  };
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
  if (pod === null) return gone(observation, identity);
  const facts = gatherFacts(pod, observation, identity, { ...DEFAULT_CLASSIFY_OPTIONS, ...options });
  return (
    timedOut(facts) ??
    neverStarted(facts) ??
    outgrewLimit(facts) ??
    evicted(facts) ??
    succeeded(facts) ??
    disrupted(facts) ??
    beingDeleted(facts) ??
    pullFailed(facts) ??
    serviceFailed(facts) ??
    containerFailed(facts) ??
    podFailed(facts) ??
    imageProblem(facts) ??
    runtimeTimeout(facts) ??
    configProblem(facts) ??
    workspaceProblem(facts) ??
    sandboxRefused(facts) ??
    sandboxProblem(facts) ??
    capacityWait(facts) ??
    unschedulable(facts) ??
    serviceStarting(facts) ??
    stalled(facts) ??
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
  const events = observation.events.filter((e) => isAboutPod(e, pod)).map(withOwnWords);
  // A container the kubelet restarted keeps its real exit in lastState while it waits again.
  const lastTerminated = status?.state?.waiting ? status.lastState?.terminated : undefined;
  const claim = workspaceClaim(pod);
  // An init container is a service (a sidecar), a port gate (a sidecar in the step's own image: its
  // troubles before it runs are the step image's), else the step's own checkout (an ephemeral workspace's).
  const sidecar = init && isServiceContainer(containerSpec(pod, container, true));
  const service = sidecar && isServiceItself(containerSpec(pod, container, true)!) ? container : undefined;
  const subject: CauseSubject = service
    ? { step: identity.step, image, service }
    : sidecar
      ? { step: identity.step, image }
      : init
        ? { step: identity.step, image, checkout: true, initContainer: container }
        : { step: identity.step, image, ...(identity.checkout ? { checkout: true } : {}) };
  const step = containerStatus(pod, stepContainerName(pod));
  const stepFinishedAt = toMillis(step?.state?.terminated?.finishedAt);
  const stepImage = identity.image || containerSpec(pod, stepContainerName(pod))?.image || step?.image || '';
  return {
    pod,
    subject,
    stepSubject: service ? { step: identity.step, image: stepImage } : subject,
    container,
    init,
    ...(service ? { service } : {}),
    services: observedServices(pod, events),
    stepStarted: Boolean(step?.state?.running || step?.state?.terminated || step?.lastState?.terminated),
    ...(stepFinishedAt !== undefined ? { stepFinishedAt } : {}),
    waiting: status?.state?.waiting,
    terminated: status?.state?.terminated ?? lastTerminated,
    running: Boolean(status?.state?.running),
    containerEvents: latestFirst(events.filter((e) => isContainerEvent(e, container, init))),
    events,
    podEvents: latestFirst(events.filter(isPodLevelEvent)),
    ...(claim ? { claim } : {}),
    claimEvents: latestFirst((observation.claimEvents ?? []).map(withOwnWords)),
    ...withBuild(pod),
    now: observation.observedAt.getTime(),
    options,
  };
}

/** The Dockerfile's instruction lines a build step's pod carries (Annotations.dockerfile). */
function withBuild(pod: V1Pod): { build?: DockerfileLines | true } {
  const written = pod.metadata?.annotations?.[Annotations.dockerfile];
  if (written === undefined) return {};
  try {
    const lines = JSON.parse(written) as Partial<DockerfileLines>;
    return { build: typeof lines.file === 'string' && Array.isArray(lines.stages) ? { file: lines.file, stages: lines.stages } : true };
  } catch {
    return { build: true };
  }
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

/** The step's pod is gone: taken away if the events it left say so, else someone deleted it. */
function gone(observation: Observation, identity: StepIdentity): StepStatus {
  const subject: CauseSubject = { step: identity.step, image: identity.image, ...(identity.checkout ? { checkout: true } : {}) };
  const podEvents = latestFirst(observation.events.filter((e) => isAboutPod(e, null) && isPodLevelEvent(e)).map(withOwnWords));
  const said = disruptionEventWords(podEvents);
  const newest = said[0];
  if (!newest) return failed(ErrorNames.PodLost, StepReasons.PodDeleted, podDeletedCause(subject));
  // Evicted for its own limits (rule 3a), and gone since: the same verdict as while it was there.
  const limit = newest.reason === EventReasons.Evicted ? ownLimitEviction(newest.message) : undefined;
  if (limit) {
    const error = subject.checkout ? ErrorNames.CheckoutFailed : ErrorNames.StepFailed;
    return failed(error, PodReasons.Evicted, ownLimitEvictedCause(subject, { limit: limit.limit, words: newest.message }));
  }
  return failed(
    ErrorNames.StepInterrupted,
    newest.reason,
    interruptedCause(subject, { what: disruptionWhat(newest.reason), reason: `the pod is gone; ${newest.reason}`, events: said }),
  );
}

/** The step container's exit, when it ended by the disruption's signal (not a lost container's stand-in 137). */
function exitOf(f: Facts): number | undefined {
  const t = containerStatus(f.pod, stepContainerName(f.pod))?.state?.terminated;
  return t && t.reason !== TerminatedReasons.ContainerStatusUnknown ? t.exitCode : undefined;
}

/**
 * Rule 3a: the kubelet evicted the pod for its own limits (an emptyDir's sizeLimit, its containers'
 * ephemeral-storage limits), not for the node's pressure. The step's failure, not an interruption:
 * a fresh pod writes as much and meets the same limit, and the node did nothing wrong. Before 3,
 * which would call it an interruption and have it retried.
 */
function outgrewLimit(f: Facts): StepStatus | undefined {
  const words = (isEvictedStatus(f.pod) ? f.pod.status?.message : undefined) || f.podEvents.find((e) => e.reason === EventReasons.Evicted)?.message;
  const limit = ownLimitEviction(words);
  if (!limit) return undefined;
  const exitCode = exitOf(f);
  const error = f.stepSubject.checkout ? ErrorNames.CheckoutFailed : ErrorNames.StepFailed;
  return failed(
    error,
    PodReasons.Evicted,
    ownLimitEvictedCause(f.stepSubject, { limit: limit.limit, words, ...(exitCode !== undefined ? { exitCode } : {}) }),
    exitCode,
  );
}

/** The kubelet's own end of the pod: node-pressure eviction, or graceful node shutdown. */
function evicted(f: Facts): StepStatus | undefined {
  const event = f.podEvents.find((e) => e.reason === EventReasons.Evicted);
  const shutdown = isPhase(f.pod, PodPhases.Failed) && f.pod.status?.reason === PodReasons.Terminated;
  if (!isEvictedStatus(f.pod) && !shutdown && !event) return undefined;
  const byStatus = isEvictedStatus(f.pod) || shutdown;
  // Karpenter's "Evicted pod" follows an Eviction API call, whose DisruptionTarget says more (rule 5).
  if (!byStatus && disruptionCondition(f.pod)) return undefined;
  const words = (byStatus ? f.pod.status?.message : undefined) || event?.message;
  const speaker = byStatus || !event ? 'kubelet' : eventSpeaker(event);
  const reason = shutdown ? PodReasons.Terminated : PodReasons.Evicted;
  const events = disruptionEventWords(f.podEvents).filter((e) => e.message !== words?.trim());
  const what = shutdown ? 'its node shut down, and its kubelet stopped the pod' : disruptionWhat(EventReasons.Evicted);
  const exitCode = exitOf(f);
  return failed(
    ErrorNames.StepInterrupted,
    reason,
    interruptedCause(f.stepSubject, { what, reason, words, ...(speaker ? { speaker } : {}), ...(exitCode !== undefined ? { exitCode } : {}), events }),
  );
}

/**
 * DisruptionTarget=True: the Eviction API, PodGC, the taint manager, the scheduler's preemption
 * or the kubelet is ending the pod (or has). After succeeded (a finished step stays finished) and
 * before everything the disruption causes: the deletion itself, services and the step stopped
 * with SIGTERM (143) or SIGKILL (137).
 */
function disrupted(f: Facts): StepStatus | undefined {
  const condition = disruptionCondition(f.pod);
  if (!condition) return undefined;
  const exitCode = exitOf(f);
  return failed(
    ErrorNames.StepInterrupted,
    condition.reason || StepReasons.Disrupted,
    interruptedCause(f.stepSubject, {
      what: disruptionWhat(condition.reason),
      reason: `${PodConditionTypes.DisruptionTarget}: ${condition.reason || 'no reason given'}`,
      ...(condition.message ? { words: condition.message } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
      events: disruptionEventWords(f.podEvents),
    }),
  );
}

function succeeded(f: Facts): StepStatus | undefined {
  // A service that exits, even with 0, has failed the step: it was meant to run beside it.
  if (f.service) return undefined;
  const exitedZero = f.terminated?.exitCode === 0 && !isOomKilled(f.terminated);
  if (exitedZero || (isPhase(f.pod, PodPhases.Succeeded) && !f.terminated)) {
    // A service that ended before the step did failed it (5b), however late the poll that sees it:
    // its end stays in the pod's status (state or lastState) after the step's.
    const built = f.build && !f.init ? readBuildResult(f.terminated?.message) : undefined;
    const pushed = built && 'tags' in built && built.digest && built.tags.length > 0 ? { pushed: { digest: built.digest, tags: built.tags } } : {};
    return serviceEnded(f) ?? { phase: StepPhases.Succeeded, reason: f.terminated?.reason || StepReasons.Succeeded, exitCode: 0, ...pushed };
  }
  return undefined;
}

function beingDeleted(f: Facts): StepStatus | undefined {
  if (!isBeingDeleted(f.pod)) return undefined;
  // Older clusters (before DisruptionTarget) and the node controller say it only in events.
  const said = disruptionEventWords(f.podEvents);
  const newest = said[0];
  if (!newest) return failed(ErrorNames.PodLost, StepReasons.PodDeleting, podDeletingCause(f.subject));
  const exitCode = exitOf(f);
  return failed(
    ErrorNames.StepInterrupted,
    newest.reason,
    interruptedCause(f.stepSubject, {
      what: disruptionWhat(newest.reason),
      reason: `the pod is being deleted; ${newest.reason}`,
      ...(exitCode !== undefined ? { exitCode } : {}),
      events: said,
    }),
  );
}

function containerFailed(f: Facts): StepStatus | undefined {
  const t = f.terminated;
  if (!t) return undefined;
  // The node lost the container (its runtime went away, or it rebooted): not how the step ended.
  if (t.reason === TerminatedReasons.ContainerStatusUnknown && isPhase(f.pod, PodPhases.Failed)) return undefined;
  if (f.service) {
    // Killed because its ports did not open: the grace period decides (serviceFailed, serviceStarting).
    const service = f.services.find((x) => x.name === f.service);
    if (service && killedByStartupProbe(service, t)) return undefined;
    return failed(
      ErrorNames.ServiceFailed,
      t.reason || TerminatedReasons.Error,
      serviceExitedCause(f.subject, { exitCode: t.exitCode, reason: t.reason, message: t.message, signal: t.signal, stepStarted: f.stepStarted }),
      t.exitCode,
      f.service,
    );
  }
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
  // A build step's builder says which part failed (build-result.ts); without its message (it never ran its script), the exit code says it.
  const built = f.build && !f.init ? readBuildResult(t.message) : undefined;
  if (built && 'exitCode' in built) {
    const verdict = buildFailure(f.subject.step, built, f.build === true ? undefined : f.build, identityOfServiceAccount(f.pod.spec?.serviceAccountName));
    return failed(verdict.error, t.reason || TerminatedReasons.Error, verdict.cause, t.exitCode);
  }
  const detail = { exitCode: t.exitCode, reason: t.reason, message: t.message, signal: t.signal };
  return failed(
    error,
    t.reason || TerminatedReasons.Error,
    f.subject.checkout ? checkoutFailedCause(f.subject, detail) : exitCodeCause(f.subject, detail),
    t.exitCode,
  );
}

/**
 * The focus container's image cannot be pulled, and waiting longer will not help: before any
 * service's end, since a service that never ran (or the step that never can) is the first thing
 * to fix. Pending pull failures stay with rule 8, after the others.
 */
function pullFailed(f: Facts): StepStatus | undefined {
  if (f.terminated || isPhase(f.pod, PodPhases.Failed)) return undefined;
  const status = imageProblem(f);
  return status?.phase === StepPhases.Failed ? status : undefined;
}

/** A service's subject for a Cause: the step, the service and its image (a port gate's: its service's). */
function serviceSubject(f: Facts, service: ObservedService): CauseSubject {
  const spec = service.serviceSpec ?? service.spec;
  return { step: f.subject.step, image: spec.image || service.status?.image || '', service: service.service };
}

/** The first service, in start order, that has ended or never opened its ports in time. */
function serviceFailed(f: Facts): StepStatus | undefined {
  for (const service of f.services) {
    const ended = serviceEndedStatus(f, service);
    if (ended) return ended;
    const ports = portsNotOpen(f, service);
    if (ports && ports.waited >= f.options.serviceStartGraceSeconds) {
      return failed(
        ErrorNames.ServiceFailed,
        StepReasons.ServiceNotReady,
        servicePortsCause(serviceSubject(f, service), {
          ports: unopenedPorts(service),
          waitedSeconds: ports.waited,
          graceSeconds: f.options.serviceStartGraceSeconds,
          words: probeWords(lastProbeFailure(service)),
        }),
        undefined,
        service.service,
      );
    }
  }
  return undefined;
}

/** The first service, in start order, that ended before the step did (5b). */
function serviceEnded(f: Facts): StepStatus | undefined {
  for (const service of f.services) {
    const ended = serviceEndedStatus(f, service);
    if (ended) return ended;
  }
  return undefined;
}

/**
 * ServiceFailed for a service that ended before the step's own container did (or while it has
 * not): its current end or, when the kubelet restarted or stopped it since, the one before
 * (endedBeforeStep). Judged by the two containers' termination times, which stay in the pod's
 * status, so a poll during the step and one after it say the same. The kubelet stopping the
 * sidecars after the step's end is not the service's failure, nor an end its startup probe caused.
 */
function serviceEndedStatus(f: Facts, service: ObservedService): StepStatus | undefined {
  const exit = endedBeforeStep(service, f.stepFinishedAt);
  if (!exit) return undefined;
  if (service.gatePort !== undefined) {
    const detail = { container: service.name, port: service.gatePort, image: service.spec.image ?? '', exitCode: exit.exitCode, reason: exit.reason, message: exit.message };
    return failed(ErrorNames.ServiceFailed, exit.reason || TerminatedReasons.Error, portGateExitedCause(serviceSubject(f, service), detail), exit.exitCode);
  }
  const stepExit = f.stepFinishedAt !== undefined ? containerStatus(f.pod, stepContainerName(f.pod))?.state?.terminated?.exitCode : undefined;
  return failed(
    ErrorNames.ServiceFailed,
    exit.reason || TerminatedReasons.Error,
    serviceExitedCause(serviceSubject(f, service), {
      exitCode: exit.exitCode,
      reason: exit.reason,
      message: exit.message,
      signal: exit.signal,
      restarts: service.status?.restartCount ?? 0,
      stepStarted: f.stepStarted,
      ...(stepExit !== undefined ? { stepExitCode: stepExit } : {}),
    }),
    exit.exitCode,
    service.service,
  );
}

/**
 * A service that has run but not started (its startup probe has not passed yet, or gave up and
 * had it restarted), and how long since it first started. Undefined for one that has started, or
 * that never ran (its image, its configuration: the focus rules say why).
 */
function portsNotOpen(f: Facts, service: ObservedService): { waited: number } | undefined {
  const status = service.status;
  if (!status || status.started) return undefined;
  const exit = lastExit(service);
  const probeKilled = exit !== undefined && killedByStartupProbe(service, exit);
  if (!status.state?.running && !probeKilled) return undefined;
  const since = firstStarted(service) ?? startedAt(f.pod) ?? createdAt(f.pod) ?? f.now;
  return { waited: secondsBetween(since, f.now) };
}

/** The step waits for a service's ports: pending, with the probe's words, rather than PodInitializing. */
function serviceStarting(f: Facts): StepStatus | undefined {
  if (f.running && !f.service) return undefined;
  const service = f.services.find((s) => portsNotOpen(f, s));
  if (!service) return undefined;
  const words = probeWords(lastProbeFailure(service));
  const port = service.gatePort !== undefined ? ` (port ${service.gatePort})` : '';
  return pending(StepReasons.ServiceStarting, `service "${service.service}"${port} is starting${words ? `: ${words}` : ''}`);
}

function podFailed(f: Facts): StepStatus | undefined {
  if (!isPhase(f.pod, PodPhases.Failed)) return undefined;
  const reason = f.pod.status?.reason;
  // A container that ran, lost with its node (or the node's runtime): not the step's end. One that
  // never started is reported lost too when its pod ends (kubernetes#104107), with no start time.
  if (f.terminated?.reason === TerminatedReasons.ContainerStatusUnknown && toMillis(f.terminated.startedAt) !== undefined) {
    const label = reason ? `${reason}, ${TerminatedReasons.ContainerStatusUnknown}` : TerminatedReasons.ContainerStatusUnknown;
    const words = f.pod.status?.message || f.terminated.message;
    return failed(
      ErrorNames.StepInterrupted,
      reason || TerminatedReasons.ContainerStatusUnknown,
      interruptedCause(f.stepSubject, {
        what: 'its node lost the running container: the node or its container runtime went away',
        reason: label,
        ...(words ? { words } : {}),
        events: disruptionEventWords(f.podEvents),
      }),
    );
  }
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
  // The kubelet's "Error: <reason>" beside each failure only echoes the one it follows.
  const newest = f.containerEvents.find((e) => !(e.reason === EventReasons.Failed && isKubeletEcho(e.message ?? '')));
  if (!newest || !isPullFailureEvent(newest)) return undefined;
  // The kubelet's two InspectFailed: a reference it cannot parse, or the runtime not answering (8a).
  if (newest.reason === EventReasons.InspectFailed) {
    return isRuntimeInspectFailure(newest.message) ? PullWaitingReasons.ImageInspectError : PullWaitingReasons.InvalidImageName;
  }
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
  if (reason === PullWaitingReasons.ImageInspectError) return inspectProblem(f, reason, words);
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

/**
 * 8a. ImageInspectError about anything but the reference: the runtime did not answer the kubelet's
 * ImageStatus ("Failed to inspect image \"X\": rpc error: code = Unavailable desc = …",
 * kubernetes/kubernetes pkg/kubelet/images/image_manager.go). The runtime's trouble, not the
 * image's, whatever its words: pending for the image pull grace from the first report, then
 * ContainerRuntimeTimeout, which a fresh pod may fix.
 */
function inspectProblem(f: Facts, reason: string, words: string | undefined): StepStatus {
  const waited = secondsBetween(firstPullFailure(f), f.now);
  const grace = f.options.imagePullGraceSeconds;
  if (waited < grace) return pending(reason, words);
  return failed(
    ErrorNames.ContainerRuntimeTimeout,
    reason,
    runtimeTimeoutCause(f.subject, { reason, doing: `answer for ${f.subject.image ? `image "${f.subject.image}"` : 'its image'}`, waitedSeconds: waited, graceSeconds: grace, words }),
  );
}

/** The pull secrets the kubelet had for the pod, as the API returns it (after the service account's were filled in). */
function podPullCredentials(pod: V1Pod): PullCredentials {
  const pullSecrets = (pod.spec?.imagePullSecrets ?? []).map((ref) => ref.name).filter((name): name is string => !!name);
  return { pullSecrets, ...(pod.metadata?.namespace ? { namespace: pod.metadata.namespace } : {}) };
}

function isKubeletEcho(message: string): boolean {
  return /^Error: (ErrImagePull|ImagePullBackOff|InvalidImageName|ErrImageNeverPull|ImageInspectError)$/.test(message.trim());
}

/** The kubelet's own Failed event with the runtime's words ("Error: …"), newest first, not its bare echo of the reason. */
function containerErrorEvents(f: Facts): CoreV1Event[] {
  return f.containerEvents.filter((e) => e.reason === EventReasons.Failed && /^Error: /.test(e.message ?? '') && !isKubeletEcho(e.message ?? ''));
}

/**
 * 9a. CreateContainerError (or CreateContainerConfigError) whose newest words say the runtime did
 * not answer in time: the kubelet's CRI deadline ("context deadline exceeded"), or containerd
 * still busy with the call that timed out ("name … is reserved": runtime-failures.ts). The
 * kubelet retries, so pending until containerRuntimeGraceSeconds after the first such failure,
 * then ContainerRuntimeTimeout, which a fresh pod may fix. Before 9, which takes every other
 * create error for the pod's configuration, at once.
 */
function runtimeTimeout(f: Facts): StepStatus | undefined {
  const reason = f.waiting?.reason;
  if (reason !== ContainerWaitingReasons.CreateContainerConfigError && reason !== ContainerWaitingReasons.CreateContainerError) return undefined;
  const events = containerErrorEvents(f);
  const raw = f.waiting?.message || events[0]?.message;
  if (!isRuntimeTimeout(raw)) return undefined;
  const words = raw ? runtimeWords(raw) : undefined;
  const waited = secondsBetween(firstSeen(f, events.filter((e) => isRuntimeTimeout(e.message))), f.now);
  const grace = f.options.containerRuntimeGraceSeconds;
  if (waited < grace) return pending(reason, words);
  return failed(
    ErrorNames.ContainerRuntimeTimeout,
    reason,
    runtimeTimeoutCause(f.subject, { reason, doing: 'create its container', waitedSeconds: waited, graceSeconds: grace, words }),
  );
}

function configProblem(f: Facts): StepStatus | undefined {
  const reason = f.waiting?.reason;
  const isConfig =
    reason === ContainerWaitingReasons.CreateContainerConfigError ||
    reason === ContainerWaitingReasons.CreateContainerError;
  if (!isConfig && reason !== ContainerWaitingReasons.RunContainerError) return undefined;
  const raw = f.waiting?.message || containerErrorEvents(f)[0]?.message;
  const words = raw ? runtimeWords(raw) : undefined;
  if (isConfig) {
    return failed(ErrorNames.PodConfigError, reason, configErrorCause(f.subject, { reason, words }));
  }
  // The clone's command could not even start: still the checkout failing, as for an exit code.
  if (f.service) return failed(ErrorNames.ServiceFailed, reason, startErrorCause(f.subject, { reason, words }), undefined, f.service);
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
  const blaming = f.podEvents.filter((e) => isSchedulerFailure(e) && blamesClaim(e.message ?? ''));
  const provisioningFailures = f.claimEvents.filter((e) => e.reason === VolumeEventReasons.ProvisioningFailed);
  const outcome = f.claimEvents.find(isProvisioningOutcome);
  if (outcome?.reason === VolumeEventReasons.ProvisioningFailed) {
    return {
      reason: VolumeEventReasons.ProvisioningFailed,
      words: outcome.message ?? '',
      since: firstSeen(f, [...provisioningFailures, ...blaming]),
    };
  }
  const words = unschedulableMessage(f.pod) ?? f.podEvents.find(isSchedulerFailure)?.message;
  if (!words || !blamesClaim(words)) return undefined;
  return { reason: EventReasons.FailedScheduling, words, since: firstSeen(f, blaming) };
}

/**
 * On a node, before the kubelet reached the container (it does only once the volumes are
 * mounted): what keeps the volume away, if anything.
 *
 * The attach/detach controller's newest word on the attach comes first: while it says the attach
 * failed, that is the trouble, whatever the kubelet says after it. The kubelet's own FailedMount
 * ("Unable to attach or mount volumes: … timed out waiting for the condition") only says it gave
 * up waiting, and would hide a refusal that no wait can end (UnauthorizedOperation) behind words
 * that earn the whole grace period. Once the controller says the attach succeeded, the failures
 * before it are over: the newest volume event is judged, and the grace counts from the success.
 */
function attachOrMountFailure(f: Facts): WorkspaceFailure | undefined {
  const creating = !f.waiting || f.waiting.reason === ContainerWaitingReasons.ContainerCreating;
  if (!isPhase(f.pod, PodPhases.Pending) || f.running || !creating || f.containerEvents.length > 0) return undefined;
  const volumeEvents = f.podEvents.filter(isVolumeEvent);
  const attached = volumeEvents.findIndex((e) => e.reason === VolumeEventReasons.SuccessfulAttachVolume);
  // Newest first: the failures since the newest success (all of them when there is none).
  const current = attached < 0 ? volumeEvents : volumeEvents.slice(0, attached);
  const attach = current.find((e) => e.reason === VolumeEventReasons.FailedAttachVolume);
  const newest = attach ?? current[0];
  if (!newest || !isVolumeFailure(newest)) return undefined;
  const successAt = attached < 0 ? undefined : eventLastSeen(volumeEvents[attached]!);
  const since = firstSeen(f, current.filter(isVolumeFailure));
  return {
    reason: newest.reason === VolumeEventReasons.FailedMount ? VolumeEventReasons.FailedMount : VolumeEventReasons.FailedAttachVolume,
    words: newest.message ?? '',
    since: successAt === undefined ? since : Math.max(since, successAt),
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
 * The kubelet's FailedCreatePodSandBox events (newest first) on a pod on a node, before any
 * container event (once one comes, the sandbox exists).
 */
function sandboxFailures(f: Facts): CoreV1Event[] {
  if (!isScheduled(f.pod) || f.running || f.terminated || f.containerEvents.length > 0) return [];
  return f.podEvents.filter((e) => e.reason === EventReasons.FailedCreatePodSandBox);
}

/**
 * 10a, at once: the newest sandbox failure says the pod asks for what its node can never give (a
 * RuntimeClass handler the runtime lacks, user namespaces it does not support: runtime-failures.ts
 * sandboxRefusal). The pod's configuration, like rule 9's: PodConfigError, naming what.
 */
function sandboxRefused(f: Facts): StepStatus | undefined {
  const words = sandboxFailures(f)[0]?.message ?? undefined;
  const refusal = sandboxRefusal(words);
  if (!refusal) return undefined;
  return failed(
    ErrorNames.PodConfigError,
    EventReasons.FailedCreatePodSandBox,
    sandboxRefusedCause(f.subject, { what: refusal.what, ...(words ? { words: runtimeWords(words) } : {}) }),
  );
}

/**
 * On a node whose kubelet cannot make the pod's sandbox, before any container event (once one
 * comes, the sandbox exists): the kubelet retries, so pending within the grace, then PodLost.
 */
function sandboxProblem(f: Facts): StepStatus | undefined {
  const failures = sandboxFailures(f);
  if (failures.length === 0) return undefined;
  const words = failures[0]?.message ?? undefined;
  const waited = secondsBetween(firstSeen(f, failures), f.now);
  if (waited < f.options.sandboxGraceSeconds) return pending(EventReasons.FailedCreatePodSandBox, words);
  return failed(
    ErrorNames.PodLost,
    EventReasons.FailedCreatePodSandBox,
    sandboxFailedCause(f.subject, { waitedSeconds: waited, graceSeconds: f.options.sandboxGraceSeconds, words }),
  );
}

/**
 * How long a pod pinned to its workspace's node may be unschedulable: the previous step's pod,
 * deleted a moment ago, holds its cpu and memory there until it is gone (10 s of grace at most).
 */
export const PINNED_UNSCHEDULABLE_GRACE_SECONDS = 30;

function unschedulable(f: Facts): StepStatus | undefined {
  if (isScheduled(f.pod)) return undefined;
  const event = f.podEvents.find(isSchedulerFailure);
  const signal = autoscalerSignal(f.podEvents);
  if (!isUnschedulableCondition(f.pod) && !event && !signal) return undefined;
  const words = unschedulableMessage(f.pod) ?? event?.message;
  const node = pinnedNode(f.pod);
  const since = createdAt(f.pod) ?? (event ? eventFirstSeen(event) : undefined) ?? f.now;
  const waited = secondsBetween(since, f.now);
  const grace = f.options.unschedulableGraceSeconds;
  if (node && f.claim) {
    if (waited < Math.min(PINNED_UNSCHEDULABLE_GRACE_SECONDS, grace)) return pending(StepReasons.Unschedulable, words);
    return failed(ErrorNames.Unschedulable, StepReasons.Unschedulable, pinnedUnschedulableCause(f.subject, { node, claim: f.claim, words }));
  }
  const said = signal && { autoscaler: signal.autoscaler, words: signal.words, agoSeconds: secondsBetween(signal.at, f.now) };
  if (signal?.outlook === NodeOutlooks.NoneComing) {
    return failed(ErrorNames.Unschedulable, StepReasons.Unschedulable, noNodeComingCause(f.subject, { autoscaler: said!, words }));
  }
  // A node said to be coming is believed for a grace after the autoscaler last said so.
  if (said && said.agoSeconds < grace) return pending(StepReasons.WaitingForNode, said.words || words);
  if (waited < grace) return pending(StepReasons.Unschedulable, words);
  return failed(
    ErrorNames.Unschedulable,
    StepReasons.Unschedulable,
    unschedulableCause(f.subject, { waitedSeconds: waited, graceSeconds: grace, words, ...(said ? { autoscaler: said } : {}) }),
  );
}

function runningOrPending(f: Facts): StepStatus {
  if (f.service && f.running) return pending(StepReasons.ServiceStarting, `service "${f.service}" is starting`);
  if (f.running || (isPhase(f.pod, PodPhases.Running) && !f.waiting)) {
    // The step's time runs from here too: the pod's deadline covers its checkout.
    const reason = !f.init ? StepReasons.Running : f.container === CacheContainers.restore ? StepReasons.RestoringCache : StepReasons.CheckingOut;
    return { phase: StepPhases.Running, reason };
  }
  if (f.waiting?.reason) return pending(f.waiting.reason, f.waiting.message);
  const newest = f.containerEvents[0];
  if (newest?.reason) return pending(newest.reason, newest.message);
  const claimNews = isScheduled(f.pod) ? undefined : f.claimEvents[0];
  if (claimNews?.reason) return pending(claimNews.reason, claimNews.message);
  return pending(StepReasons.Pending);
}
