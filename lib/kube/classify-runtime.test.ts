/**
 * Verdicts where one reason covers a passing fault and a lasting one, told apart by the node's own
 * words (runtime-failures.ts): a runtime that did not create the container in time, a sandbox no
 * retry makes, an eviction for the pod's own limits, an image the runtime could not inspect. Real
 * pods and events at one poll; every message is the kubelet's or containerd's format string
 * filled in, cited beside it. Times are seconds after T0 (builders.ts).
 */
import { describe, expect, it } from '@jest/globals';
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { classifyStep } from './classify.js';
import { MAX_CAUSE_LENGTH } from './cause.js';
import { isRuntimeInspectFailure, isRuntimeTimeout, ownLimitEviction, sandboxRefusal } from './runtime-failures.js';
import { DEFAULT_CLASSIFY_OPTIONS, type ClassifyOptions, type StepIdentity, type StepStatus } from './types.js';
import { observe, podEvent, running, stepPod, terminated, waiting } from '../../test/fixtures/kube/builders.js';

const build: StepIdentity = { step: 'build', image: 'node:22-alpine' };
const POD_UID = '6f1c2d3e-0000-4000-8000-00000000b042';
/** containerd's name for the step's container (internal/cri/server/helpers.go makeContainerName). */
const CRI_NAME = `step_b-42-build_ci_${POD_UID}_0`;
const RUNTIME_GRACE = DEFAULT_CLASSIFY_OPTIONS.containerRuntimeGraceSeconds;
const PULL_GRACE = DEFAULT_CLASSIFY_OPTIONS.imagePullGraceSeconds;
const SANDBOX_GRACE = DEFAULT_CLASSIFY_OPTIONS.sandboxGraceSeconds;

interface Case {
  name: string;
  /** Where the words come from. */
  source: string;
  pod: V1Pod | null;
  events: (pod: V1Pod) => CoreV1Event[];
  at: number;
  identity?: StepIdentity;
  options?: Partial<ClassifyOptions>;
  expected: { phase: StepStatus['phase']; error?: string; reason?: string; exitCode?: number; words: string[] };
}

function check(c: Case): void {
  const identity = c.identity ?? build;
  const eventPod = c.pod ?? stepPod({ step: identity.step, image: identity.image });
  const status = classifyStep(observe(c.pod, c.events(eventPod), c.at), identity, c.options);
  expect(status.phase).toBe(c.expected.phase);
  if (c.expected.reason) expect(status.reason).toBe(c.expected.reason);
  if (status.phase === 'failed') {
    expect(status.error).toBe(c.expected.error);
    if (c.expected.exitCode !== undefined) expect(status.exitCode).toBe(c.expected.exitCode);
    expect(status.cause.length).toBeLessThanOrEqual(MAX_CAUSE_LENGTH);
    expect(status.cause).toContain(`"${identity.step}"`);
    for (const word of c.expected.words) expect(status.cause).toContain(word);
  } else {
    expect(c.expected.error).toBeUndefined();
    const message = 'message' in status ? (status.message ?? '') : '';
    for (const word of c.expected.words) expect(message).toContain(word);
  }
}

// --- 1. the runtime did not create the container in time ---------------------------------------

/**
 * kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer: a failed
 * CreateContainer puts gRPC's message in the waiting state (CreateContainerError) and in a Failed
 * event "Error: <message>"; the kubelet's deadline on the call reads "context deadline exceeded".
 */
const DEADLINE = 'context deadline exceeded';
/** containerd internal/cri/server/container_create.go with internal/registrar/registrar.go's ReservedErr. */
const RESERVED = `failed to reserve container name "${CRI_NAME}": name "${CRI_NAME}" is reserved for "3f9c1d7e2b5a40e8a1c6d9b0f4e7a2c5d8b1e4f7a0c3d6b9e2f5a8c1d4b7e0a3"`;
/** Newer containerd: the same, with the hint (container_create.go, errors.As ReservedErr). */
const RESERVED_NEWER = `failed to reserve container name "${CRI_NAME}"; check if another CreateContainer request is in progress: name "${CRI_NAME}" is reserved for "9d2b6f0a4c8e"`;

const createFailures = (pod: V1Pod, words: { message: string; first: number; last?: number; count?: number }[]) =>
  words.map((w) => podEvent(pod, { reason: 'Failed', message: `Error: ${w.message}`, first: w.first, ...(w.last !== undefined ? { last: w.last } : {}), ...(w.count !== undefined ? { count: w.count } : {}) }));

const timedOutPod = stepPod({ phase: 'Pending', state: waiting('CreateContainerError', DEADLINE), startedAt: 1 });
const reservedPod = stepPod({ phase: 'Pending', state: waiting('CreateContainerError', RESERVED), startedAt: 1 });
const reservedNewerPod = stepPod({ phase: 'Pending', state: waiting('CreateContainerError', RESERVED_NEWER), startedAt: 1 });
/** The waiting message is the kubelet's reason only; the words are in the event (kubelets that leave the message out). */
const eventOnlyPod = stepPod({ phase: 'Pending', state: waiting('CreateContainerConfigError'), startedAt: 1 });

const runtimeCases: Case[] = [
  {
    name: 'CreateContainerError "context deadline exceeded": pending while the kubelet retries',
    source: 'kuberuntime_container.go startContainer (ErrCreateContainer, "Error: %v")',
    pod: timedOutPod,
    events: (pod) => createFailures(pod, [{ message: DEADLINE, first: 3, last: 125, count: 2 }]),
    at: 130,
    expected: { phase: 'pending', reason: 'CreateContainerError', words: [DEADLINE] },
  },
  {
    name: 'CreateContainerError "context deadline exceeded" past the grace: ContainerRuntimeTimeout, not PodConfigError',
    source: 'as above, the runtime still not answering',
    pod: timedOutPod,
    events: (pod) => createFailures(pod, [{ message: DEADLINE, first: 3, last: RUNTIME_GRACE, count: 3 }]),
    at: 3 + RUNTIME_GRACE,
    expected: {
      phase: 'failed',
      error: 'ContainerRuntimeTimeout',
      reason: 'CreateContainerError',
      words: ['(image "node:22-alpine")', "container runtime did not create its container in time (CreateContainerError)", `grace period ${RUNTIME_GRACE} s`, DEADLINE, "not the pipeline's doing"],
    },
  },
  {
    name: 'containerd "name is reserved" after a timed-out call: pending, the grace counted from the first timeout',
    source: 'containerd internal/cri/server/container_create.go, internal/registrar/registrar.go',
    pod: reservedPod,
    events: (pod) => createFailures(pod, [{ message: DEADLINE, first: 3 }, { message: RESERVED, first: 125, last: 200, count: 4 }]),
    at: 2 + RUNTIME_GRACE,
    expected: { phase: 'pending', reason: 'CreateContainerError', words: ['is reserved for'] },
  },
  {
    name: 'containerd "name is reserved" past the grace from the first timeout: ContainerRuntimeTimeout',
    source: 'as above',
    pod: reservedPod,
    events: (pod) => createFailures(pod, [{ message: DEADLINE, first: 3 }, { message: RESERVED, first: 125, last: 300, count: 6 }]),
    at: 4 + RUNTIME_GRACE,
    expected: { phase: 'failed', error: 'ContainerRuntimeTimeout', words: [`failed to reserve container name "${CRI_NAME}"`] },
  },
  {
    name: 'newer containerd\'s "check if another CreateContainer request is in progress": pending',
    source: 'containerd internal/cri/server/container_create.go (errors.As registrar.ReservedErr)',
    pod: reservedNewerPod,
    events: (pod) => createFailures(pod, [{ message: RESERVED_NEWER, first: 3 }]),
    at: 60,
    expected: { phase: 'pending', words: ['check if another CreateContainer request is in progress'] },
  },
  {
    name: 'the words only in the event, on CreateContainerConfigError: pending',
    source: 'kuberuntime_container.go: generateContainerConfig errors are CreateContainerConfigError with the same event',
    pod: eventOnlyPod,
    events: (pod) => createFailures(pod, [{ message: DEADLINE, first: 3 }]),
    at: 60,
    expected: { phase: 'pending', reason: 'CreateContainerConfigError', words: [DEADLINE] },
  },
  {
    name: 'the grace comes from the options',
    source: 'ClassifyOptions.containerRuntimeGraceSeconds',
    pod: timedOutPod,
    events: (pod) => createFailures(pod, [{ message: DEADLINE, first: 3 }]),
    at: 70,
    options: { containerRuntimeGraceSeconds: 60 },
    expected: { phase: 'failed', error: 'ContainerRuntimeTimeout', words: ['grace period 60 s'] },
  },
  {
    name: 'a missing Secret after a timeout: the newest words decide, PodConfigError at once',
    source: 'kuberuntime_container.go generateContainerConfig: "secret \\"ci-db\\" not found" (CreateContainerConfigError)',
    pod: stepPod({ phase: 'Pending', state: waiting('CreateContainerConfigError', 'secret "ci-db" not found'), startedAt: 1 }),
    events: (pod) => createFailures(pod, [{ message: DEADLINE, first: 3 }, { message: 'secret "ci-db" not found', first: 130 }]),
    at: 131,
    expected: { phase: 'failed', error: 'PodConfigError', reason: 'CreateContainerConfigError', words: ['secret "ci-db" not found'] },
  },
];

// --- 2. evicted for the pod's own limits ----------------------------------------------------------

/** kubernetes/kubernetes pkg/kubelet/eviction/helpers.go emptyDirMessageFmt, podEphemeralStorageMessageFmt, containerEphemeralStorageMessageFmt. */
const EMPTY_DIR = 'Usage of EmptyDir volume "workspace" exceeds the limit "4Gi". ';
const POD_LIMIT = 'Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. ';
const CONTAINER_LIMIT = 'Container step exceeded its local ephemeral storage limit "1Gi". ';
/** nodeLowMessageFmt + thresholdMetMessageFmt + containerMessageFmt: the node's pressure, not the pod's limit. */
const NODE_PRESSURE =
  'The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 9521344Ki. Container step was using 12Gi, request is 0, has larger consumption of ephemeral-storage. ';

/** evictPod: phase Failed, reason Evicted, the message; the container killed at once (grace 0: SIGKILL). */
const evictedFor = (message: string, o: { checkout?: boolean } = {}) =>
  stepPod({
    ...(o.checkout ? { step: 'clone', image: 'alpine/git:v2.54.0' } : {}),
    phase: 'Failed',
    reason: 'Evicted',
    message,
    state: terminated(137, 'Error', { started: 5, finished: 300 }),
  });
const evictedEvent = (message: string) => (pod: V1Pod) => [podEvent(pod, { reason: 'Evicted', type: 'Warning', container: null, message, first: 300 })];

const limitCases: Case[] = [
  {
    name: 'emptyDir over its sizeLimit: StepFailed naming the volume and the limit, not StepInterrupted',
    source: 'eviction_manager.go emptyDirLimitEviction',
    pod: evictedFor(EMPTY_DIR),
    events: evictedEvent(EMPTY_DIR),
    at: 301,
    expected: { phase: 'failed', error: 'StepFailed', reason: 'Evicted', exitCode: 137, words: ['the size limit 4Gi of its emptyDir volume "workspace"', EMPTY_DIR.trim(), 'raise the limit'] },
  },
  {
    name: 'the pod over its containers\' total ephemeral-storage limit: StepFailed',
    source: 'eviction_manager.go podEphemeralStorageLimitEviction',
    pod: evictedFor(POD_LIMIT),
    events: evictedEvent(POD_LIMIT),
    at: 301,
    expected: { phase: 'failed', error: 'StepFailed', words: ["the pod's ephemeral-storage limit of 2Gi"] },
  },
  {
    name: 'a container over its ephemeral-storage limit, only the event yet (the pod still Running): StepFailed',
    source: 'eviction_manager.go containerEphemeralStorageLimitEviction; the event comes before the status (evictPod records it first)',
    pod: stepPod({ phase: 'Running', state: running(5) }),
    events: evictedEvent(CONTAINER_LIMIT),
    at: 301,
    expected: { phase: 'failed', error: 'StepFailed', reason: 'Evicted', words: ['the ephemeral-storage limit 1Gi of its container "step"'] },
  },
  {
    name: 'the pod gone, its own-limit Evicted event left: still StepFailed',
    source: 'events outlive the pod (rule 1)',
    pod: null,
    events: evictedEvent(CONTAINER_LIMIT),
    at: 400,
    expected: { phase: 'failed', error: 'StepFailed', reason: 'Evicted', words: ['ephemeral-storage limit 1Gi'] },
  },
  {
    name: 'the checkout over its limit: CheckoutFailed',
    source: 'as the emptyDir case',
    identity: { step: 'clone', image: 'alpine/git:v2.54.0', checkout: true },
    pod: evictedFor(EMPTY_DIR, { checkout: true }),
    events: evictedEvent(EMPTY_DIR),
    at: 301,
    expected: { phase: 'failed', error: 'CheckoutFailed', words: ['emptyDir volume "workspace"'] },
  },
  {
    name: 'node pressure is still the node\'s: StepInterrupted',
    source: 'eviction_manager.go synchronize (nodeLowMessageFmt)',
    pod: evictedFor(NODE_PRESSURE),
    events: evictedEvent(NODE_PRESSURE),
    at: 301,
    expected: { phase: 'failed', error: 'StepInterrupted', reason: 'Evicted', words: ['low on resource: ephemeral-storage'] },
  },
];

// --- 3. a sandbox no retry makes ------------------------------------------------------------------

/** pkg/kubelet/kuberuntime/kuberuntime_manager.go SyncPod: FailedCreatePodSandBox "Failed to create pod sandbox: %v". */
const sandboxEvent = (message: string, first = 2, last = 40, count = 4) => (pod: V1Pod) => [
  podEvent(pod, { reason: 'FailedCreatePodSandBox', type: 'Warning', container: null, message: `Failed to create pod sandbox: ${message}`, first, last, count }),
];
const sandboxPod = stepPod({ phase: 'Pending', state: waiting('ContainerCreating'), startedAt: 1 });

const sandboxCases: Case[] = [
  {
    name: 'no runtime handler for the RuntimeClass (containerd 1.7): PodConfigError at once',
    source: 'containerd internal/cri/config/config.go GetSandboxRuntime, wrapped in podsandbox/sandbox_run.go',
    pod: sandboxPod,
    events: sandboxEvent('rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "kata" is configured'),
    at: 41,
    expected: {
      phase: 'failed',
      error: 'PodConfigError',
      reason: 'FailedCreatePodSandBox',
      words: ['no handler "kata" for the pod\'s RuntimeClass', 'no retry changes', 'failed to get sandbox runtime: no runtime for "kata" is configured'],
    },
  },
  {
    name: 'no runtime handler for the RuntimeClass (containerd 2): PodConfigError at once',
    source: 'containerd internal/cri/server/sandbox_run.go "unable to get OCI runtime for sandbox %q: %w"',
    pod: sandboxPod,
    events: sandboxEvent('rpc error: code = Unknown desc = unable to get OCI runtime for sandbox "0b5f3c9e7d1a": no runtime for "runsc" is configured', 2, 2, 1),
    at: 3,
    expected: { phase: 'failed', error: 'PodConfigError', words: ['no handler "runsc"'] },
  },
  {
    name: 'hostUsers: false on a runtime without user namespaces: PodConfigError at once',
    source: 'kubernetes/kubernetes pkg/kubelet/userns/userns_manager.go GetOrCreateUserNamespaceMappings',
    pod: sandboxPod,
    events: sandboxEvent("can't set `spec.hostUsers: false`, runtime does not support user namespaces"),
    at: 41,
    expected: { phase: 'failed', error: 'PodConfigError', words: ['user namespace (hostUsers: false)', "its node's container runtime does not support"] },
  },
  {
    name: 'hostUsers: false on a RuntimeClass handler without them: PodConfigError naming it',
    source: 'as above, runtimeHandler != ""',
    pod: sandboxPod,
    events: sandboxEvent('can\'t set `spec.hostUsers: false`, RuntimeClass handler "kata" does not support user namespaces'),
    at: 41,
    expected: { phase: 'failed', error: 'PodConfigError', words: ['RuntimeClass handler "kata" does not support'] },
  },
  {
    name: 'the CNI out of addresses is still waited out',
    source: 'aws/amazon-vpc-cni-k8s "failed to assign an IP address to container"',
    pod: sandboxPod,
    events: sandboxEvent(
      'rpc error: code = Unknown desc = failed to setup network for sandbox "0b5f3c9e7d1a": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container',
    ),
    at: SANDBOX_GRACE - 10,
    expected: { phase: 'pending', reason: 'FailedCreatePodSandBox', words: ['failed to assign an IP address'] },
  },
];

// --- 4. an image the runtime could not inspect --------------------------------------------------

/**
 * pkg/kubelet/images/image_manager.go EnsureImageExists: GetImageRef failing is InspectFailed "Failed
 * to inspect image %q: %v" and the waiting reason ImageInspectError; the error is the CRI client's
 * gRPC status when containerd's socket does not answer.
 */
const INSPECT = `Failed to inspect image "node:22-alpine": rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: connection refused"`;
const INSPECT_DEADLINE = 'Failed to inspect image "node:22-alpine": rpc error: code = DeadlineExceeded desc = context deadline exceeded';
/** The other InspectFailed: a reference the kubelet cannot parse (applyDefaultImageTag). */
const BAD_TAG = 'Failed to apply default image tag "node:": couldn\'t parse image reference "node:": invalid reference format';
const inspectEvent = (message: string, first = 2, last = 2, count = 1) => (pod: V1Pod) => [
  podEvent(pod, { reason: 'InspectFailed', type: 'Warning', message, first, last, count }),
  podEvent(pod, { reason: 'Failed', message: 'Error: ImageInspectError', first, last, count }),
];

const inspectCases: Case[] = [
  {
    name: 'the runtime not answering ImageStatus, only the event yet: pending, not InvalidImage',
    source: 'image_manager.go EnsureImageExists (FailedToInspectImage, ErrImageInspect)',
    pod: stepPod({ phase: 'Pending', state: waiting('ContainerCreating'), startedAt: 1 }),
    events: inspectEvent(INSPECT),
    at: 10,
    expected: { phase: 'pending', reason: 'ImageInspectError', words: ['connection error'] },
  },
  {
    name: 'ImageInspectError in the status within the pull grace: pending',
    source: 'as above, the waiting state',
    pod: stepPod({ phase: 'Pending', state: waiting('ImageInspectError', INSPECT_DEADLINE), startedAt: 1 }),
    events: inspectEvent(INSPECT_DEADLINE, 2, 40, 3),
    at: 41,
    expected: { phase: 'pending', reason: 'ImageInspectError', words: [DEADLINE] },
  },
  {
    name: 'ImageInspectError past the pull grace: ContainerRuntimeTimeout, not the image\'s failure',
    source: 'as above',
    pod: stepPod({ phase: 'Pending', state: waiting('ImageInspectError', INSPECT), startedAt: 1 }),
    events: inspectEvent(INSPECT, 2, PULL_GRACE, 5),
    at: 2 + PULL_GRACE,
    expected: {
      phase: 'failed',
      error: 'ContainerRuntimeTimeout',
      reason: 'ImageInspectError',
      words: ['did not answer for image "node:22-alpine" in time (ImageInspectError)', `grace period ${PULL_GRACE} s`, 'containerd.sock'],
    },
  },
  {
    name: 'a reference the kubelet cannot parse is still InvalidImage at once',
    source: 'image_manager.go applyDefaultImageTag (ErrInvalidImageName)',
    identity: { step: 'build', image: 'node:' },
    pod: stepPod({ image: 'node:', phase: 'Pending', state: waiting('ContainerCreating'), startedAt: 1 }),
    events: inspectEvent(BAD_TAG),
    at: 3,
    expected: { phase: 'failed', error: 'InvalidImage', reason: 'InvalidImageName', words: ['invalid reference format'] },
  },
];

describe('classifyStep: the node\'s words tell a passing fault from a lasting one', () => {
  describe.each([
    ['a runtime that did not create the container in time (ContainerRuntimeTimeout)', runtimeCases],
    ['an eviction for the pod\'s own limits (StepFailed)', limitCases],
    ['a sandbox no retry makes (PodConfigError)', sandboxCases],
    ['an image the runtime could not inspect', inspectCases],
  ])('%s', (_title, cases) => {
    it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => check(c));
  });
});

describe('runtime-failures', () => {
  it('takes no word for a timeout that a name could hold', () => {
    expect(isRuntimeTimeout('failed to create containerd task: failed to create shim task: OCI runtime create failed: exec: "deadline": executable file not found in $PATH')).toBe(false);
    expect(isRuntimeTimeout(undefined)).toBe(false);
  });

  it('reads no limit into node pressure or another eviction', () => {
    expect(ownLimitEviction(NODE_PRESSURE)).toBeUndefined();
    expect(ownLimitEviction('Evicted pod')).toBeUndefined();
    expect(ownLimitEviction(POD_LIMIT)).toEqual({ limit: "the pod's ephemeral-storage limit of 2Gi (its containers' limits together)" });
  });

  it('refuses no sandbox for words the kubelet retries', () => {
    expect(sandboxRefusal('Failed to create pod sandbox: rpc error: code = DeadlineExceeded desc = context deadline exceeded')).toBeUndefined();
    expect(sandboxRefusal(undefined)).toBeUndefined();
  });

  it('tells the runtime\'s InspectFailed from the reference\'s', () => {
    expect(isRuntimeInspectFailure(INSPECT)).toBe(true);
    expect(isRuntimeInspectFailure(BAD_TAG)).toBe(false);
  });
});
