/**
 * Workspace volume failures: which scheduler words blame the pod's claim, and a judgement of the
 * provisioner's, controller's and kubelet's words.
 *
 * The verdict decides whether a step fails on the first report (the volume will never come: a
 * missing storage class or claim, a provisioner without permission, parameters EC2 refuses) or
 * keeps polling for the workspace grace period (the volume is on its way: the previous step's pod
 * still detaching, an attach or a mount timing out, the API throttling). The patterns are phrases
 * from real messages (test/fixtures/kube/workspace-messages.json), never single words a claim,
 * volume or storage class name could contain.
 */

export const WorkspaceVerdicts = {
  /** Waiting will not make the volume: fail at once. */
  Permanent: 'permanent',
  /** The volume may still come: keep polling until the grace period is over. */
  Transient: 'transient',
} as const;
export type WorkspaceVerdict = (typeof WorkspaceVerdicts)[keyof typeof WorkspaceVerdicts];

/**
 * What the scheduler says when the claim, not the nodes' capacity, keeps the pod off every node
 * (the VolumeBinding, VolumeZone and VolumeRestrictions plugins).
 */
const CLAIM_SCHEDULING_PATTERNS: readonly RegExp[] = [
  /\bunbound immediate PersistentVolumeClaims\b/i,
  /\bpersistentvolumeclaim "" not found/i,
  /\bvolume node affinity conflict\b/i,
  /\bbind(?:ing)? volumes\b/i, // VolumeBinding prebind errors: "binding volumes: …", "Failed to bind volumes: …"
  /\bprovisioning failed for PVC\b/i,
];

const PERMANENT_PATTERNS: readonly RegExp[] = [
  /\bstorageclass\.storage\.k8s\.io "" not found/i, // the PersistentVolume controller
  /\bpersistentvolumeclaim "" not found/i, // the scheduler
  /\bUnauthorizedOperation\b/, // EC2: the driver's IAM role lacks ec2:CreateVolume / AttachVolume
  /\bnot authorized to perform\b/i, // the same, and STS refusing the driver's web identity
  /\bInvalidParameter(?:Value|Combination)?\b/, // EC2 refusing the storage class's parameters
  /\bcode = InvalidArgument\b/, // the CSI driver refusing them before EC2
  /\binvalid AccessModes\b/i, // in-tree provisioners: an access mode the volume type lacks
];

const TRANSIENT_PATTERNS: readonly RegExp[] = [
  /\bMulti-Attach error\b/i, // the previous pod's node has not detached the volume yet
  /\bdeadline ?exceeded\b/i, // gRPC DeadlineExceeded, "context deadline exceeded"
  /\btimed out\b/i, // "timed out waiting for the condition"
  /\btimeout\b/i, // "attachment timeout for volume vol-…"
  /\bRequestCanceled\b/,
  /\bcode = (?:Aborted|Unavailable|ResourceExhausted)\b/,
  /\b(?:RequestLimitExceeded|Throttling)\b/,
  /\bis being deleted\b/, // "volume attachment is being deleted"
  /\bbut was attaching\b/, // "expected device to be attached but was attaching"
  /\balready in progress\b/i,
  /\bunbound immediate PersistentVolumeClaims\b/i, // a claim still being bound
  /\bvolume node affinity conflict\b/i, // no node in the volume's zone yet (the autoscaler may add one)
  /\bprovisioning failed for PVC\b/i, // the provisioner gave the node up; the scheduler picks again
  /\bnot found in the list of registered CSI drivers\b/i, // a new node's CSI plugin still registering
];

/** Quoted names (claims, volumes, classes) prove nothing and must not match a pattern. */
function withoutNames(message: string): string {
  return message.replace(/"(?:[^"\\]|\\.)*"/g, '""');
}

/** A scheduling failure caused by the pod's claim rather than by the nodes. */
export function blamesClaim(schedulerWords: string): boolean {
  const text = withoutNames(schedulerWords);
  return CLAIM_SCHEDULING_PATTERNS.some((p) => p.test(text));
}

/**
 * Judges a workspace failure message (ProvisioningFailed, FailedScheduling, FailedAttachVolume,
 * FailedMount). Transient signals win over permanent ones and unknown words count as transient,
 * as for image pulls (image-pull.ts): a wrong "transient" costs the grace period, a wrong
 * "permanent" fails a build that would have passed.
 */
export function classifyWorkspaceMessage(message: string): WorkspaceVerdict {
  const text = withoutNames(message);
  if (TRANSIENT_PATTERNS.some((p) => p.test(text))) return WorkspaceVerdicts.Transient;
  if (PERMANENT_PATTERNS.some((p) => p.test(text))) return WorkspaceVerdicts.Permanent;
  return WorkspaceVerdicts.Transient;
}
