/**
 * What the node's own words say about a pod's trouble, where the same reason covers a passing
 * fault and a lasting one: a container the runtime did not create in time (CreateContainerError),
 * a sandbox the runtime can never make (FailedCreatePodSandBox), an eviction for the pod's own
 * limits (Evicted), an image the runtime could not inspect (InspectFailed). Pure; the classifier
 * (classify.ts) decides where in its order each counts. The patterns are the kubelet's and
 * containerd's format strings, cited beside each; never single words a name could contain.
 */

/**
 * The container runtime did not answer a CreateContainer in time, and the kubelet will ask again:
 * - the kubelet's own deadline on the CRI call (--runtime-request-timeout, 2 min by default): gRPC's
 *   "context deadline exceeded", which the kubelet puts in the waiting message and in a Failed
 *   event "Error: context deadline exceeded" (kubernetes/kubernetes pkg/kubelet/kuberuntime/
 *   kuberuntime_container.go startContainer: `return s.Message(), ErrCreateContainer`);
 * - containerd still creating the container the timed-out call asked for, so the retry's name is
 *   taken: "failed to reserve container name \"step_b-42-build_ci_<uid>_0\": name \"…\" is
 *   reserved for \"<id>\"" (containerd internal/cri/server/container_create.go, the registrar's
 *   ReservedErr in internal/registrar/registrar.go); newer containerd adds "; check if another
 *   CreateContainer request is in progress" before the colon.
 * A runtime under load recovers, so these are worth a grace period and a fresh pod, not the
 * pipeline's blame (Tekton waits for them too: default-create-container-error-timeout).
 */
const RUNTIME_TIMEOUT_PATTERNS: readonly RegExp[] = [
  /\bcontext deadline exceeded\b/i,
  /\bfailed to reserve (?:container|sandbox) name\b/i,
  /\bname "[^"]*" is reserved for\b/i,
];

export function isRuntimeTimeout(words: string | undefined): boolean {
  return words !== undefined && RUNTIME_TIMEOUT_PATTERNS.some((p) => p.test(words));
}

/**
 * A sandbox the node can never make for this pod, whatever the retries: the kubelet's
 * FailedCreatePodSandBox event is "Failed to create pod sandbox: <error>" (pkg/kubelet/kuberuntime/
 * kuberuntime_manager.go SyncPod), and these errors come from the pod's spec meeting the node:
 * - no runtime handler for the pod's RuntimeClass: containerd's GetSandboxRuntime "no runtime for
 *   \"kata\" is configured" (internal/cri/config/config.go), wrapped "unable to get OCI runtime
 *   for sandbox \"<id>\": …" (internal/cri/server/sandbox_run.go) or, in older releases, "failed to
 *   get sandbox runtime: …" (internal/cri/server/podsandbox/sandbox_run.go);
 * - `hostUsers: false` on a runtime without user namespaces: the kubelet's "can't set
 *   `spec.hostUsers: false`, runtime does not support user namespaces" or "…, RuntimeClass handler
 *   \"X\" does not support user namespaces" (pkg/kubelet/userns/userns_manager.go
 *   GetOrCreateUserNamespaceMappings), returned unwrapped through NamespacesForPod.
 */
export interface SandboxRefusal {
  /** What about the pod the node cannot do, in the runner's words. */
  what: string;
}

export function sandboxRefusal(words: string | undefined): SandboxRefusal | undefined {
  if (!words) return undefined;
  const handler = /\bno runtime for "((?:[^"\\]|\\.)*)" is configured\b/.exec(words);
  if (handler) {
    return { what: `its node's container runtime has no handler "${handler[1]}" for the pod's RuntimeClass` };
  }
  const userns = /\bcan't set `spec\.hostUsers: false`, (?:RuntimeClass handler "((?:[^"\\]|\\.)*)"|runtime) does not support user namespaces\b/.exec(words);
  if (userns) {
    const runtime = userns[1] !== undefined ? `its node's RuntimeClass handler "${userns[1]}"` : "its node's container runtime";
    return { what: `the pod asks for a user namespace (hostUsers: false), which ${runtime} does not support` };
  }
  return undefined;
}

/**
 * The kubelet's eviction for the pod's own limits, not the node's pressure
 * (kubernetes/kubernetes pkg/kubelet/eviction/helpers.go, eviction_manager.go localStorageEviction):
 * - emptyDirMessageFmt "Usage of EmptyDir volume %q exceeds the limit %q. ";
 * - podEphemeralStorageMessageFmt "Pod ephemeral local storage usage exceeds the total limit of containers %s. ";
 * - containerEphemeralStorageMessageFmt "Container %s exceeded its local ephemeral storage limit %q. ".
 * The pod status (reason Evicted) and the Warning Evicted event carry the same words; the kubelet
 * sets no DisruptionTarget condition for these (evictPod with a nil condition). A fresh pod writes
 * as much and meets the same limit, so it is the step's failure.
 */
export interface OwnLimitEviction {
  /** Which limit, in the runner's words: `the size limit 4Gi of its emptyDir volume "workspace"`. */
  limit: string;
}

export function ownLimitEviction(words: string | undefined): OwnLimitEviction | undefined {
  if (!words) return undefined;
  const emptyDir = /\bUsage of EmptyDir volume "((?:[^"\\]|\\.)*)" exceeds the limit "((?:[^"\\]|\\.)*)"/.exec(words);
  if (emptyDir) return { limit: `the size limit ${emptyDir[2]} of its emptyDir volume "${emptyDir[1]}"` };
  const pod = /\bPod ephemeral local storage usage exceeds the total limit of containers (\S+?)\.?(?:\s|$)/.exec(words);
  if (pod) return { limit: `the pod's ephemeral-storage limit of ${pod[1]} (its containers' limits together)` };
  const container = /\bContainer (\S+) exceeded its local ephemeral storage limit "((?:[^"\\]|\\.)*)"/.exec(words);
  if (container) return { limit: `the ephemeral-storage limit ${container[2]} of its container "${container[1]}"` };
  return undefined;
}

/**
 * The kubelet's two InspectFailed events (pkg/kubelet/images/image_manager.go EnsureImageExists):
 * "Failed to apply default image tag %q: %v" is a reference it cannot parse (InvalidImageName), and
 * "Failed to inspect image %q: %v" is the runtime failing to answer ImageStatus (ImageInspectError,
 * e.g. "rpc error: code = Unavailable desc = connection error: …"): the runtime's trouble, not the image's.
 */
export function isRuntimeInspectFailure(message: string | undefined): boolean {
  return /^Failed to inspect image\b/.test(message?.trim() ?? '');
}
