/**
 * What kube-scheduler, the persistent volume controller and a CSI external-provisioner write about
 * placement and volumes, word for word: users read these in `kubectl describe` and lib/kube
 * classifies pods and claims on them, so they live here, in one place, each with where it comes from.
 *
 * kube-scheduler (v1.27+), FailedScheduling events and the PodScheduled condition:
 * - layout "0/N nodes are available: <why>. preemption: 0/N nodes are available: <count> <why>.":
 *   pkg/scheduler/framework/types.go (FitError.Error); a PreFilter rejection is quoted once with no
 *   node count, a Filter rejection per node ("1 node(s) ..."); seen in kubernetes/kubernetes#119967.
 * - "persistentvolumeclaim %q not found" (the lister's NotFound) and "persistentvolumeclaim %q is
 *   being deleted": pkg/scheduler/framework/plugins/volumebinding/volume_binding.go (podHasPVCs);
 *   seen as "0/1 nodes are available: persistentvolumeclaim "jenkins-pv-claim" not found. preemption:
 *   0/1 nodes are available: 1 Preemption is not helpful for scheduling."
 * - "pod has unbound immediate PersistentVolumeClaims": the same file (PreFilter); seen in
 *   apache/apisix-helm-chart#346 and open-metadata/openmetadata-helm-charts#417.
 * - "node(s) didn't match Pod's node affinity/selector": plugins/nodeaffinity (ErrReasonPod); seen
 *   in kubernetes/kubernetes#119967 and k3s-io/k3s#9350.
 * - "node(s) didn't match pod affinity rules": plugins/interpodaffinity (ErrReasonAffinityRulesNotMatch,
 *   UnschedulableAndUnresolvable); seen in tektoncd/pipeline#2769 (the affinity assistant's pods,
 *   beside the older plugin's second reason, since merged into one plugin).
 * - "Insufficient cpu|memory", "Too many pods" with "No preemption victims found for incoming pod":
 *   plugins/noderesources/fit.go (fitsRequest), against the node's allocatable less what the pods
 *   already bound there request.
 * - "Preemption is not helpful for scheduling": plugins/defaultpreemption, for rejections preemption
 *   cannot fix (UnschedulableAndUnresolvable).
 *
 * persistentvolume-controller (pkg/controller/volume/persistentvolume/pv_controller.go), claim events:
 * - WaitForFirstConsumer "waiting for first consumer to be created before binding" (Normal); seen in
 *   kubernetes-sigs/nfs-ganesha-server-and-external-provisioner#105.
 * - ProvisioningFailed `storageclass.storage.k8s.io "NAME" not found` (Warning, the class lister's
 *   NotFound); seen in ZP-AlwaysWin/K8S-FastDFS#6 and ethersphere/helm#143.
 * - FailedBinding "no persistent volumes available for this claim and no storage class is set"
 *   (Normal); seen in kubernetes/kubernetes#44370.
 * - ExternalProvisioning (Normal), the wording of v1.28+ (older: "waiting for a volume to be created,
 *   either by external provisioner ..."); seen on EKS with 'ebs.csi.aws.com'.
 * CSI external-provisioner (kubernetes-csi/external-provisioner, via sig-storage-lib-external-provisioner):
 * - Provisioning `External provisioner is provisioning volume for claim "NS/NAME"` and
 *   ProvisioningSucceeded "Successfully provisioned volume pvc-UID", from the component
 *   "<driver>_<controller pod>_<uuid>"; seen in kubernetes-sigs/aws-ebs-csi-driver#419.
 * - The claim annotations of a provisioned EBS claim on EKS: bottlerocket-os/bottlerocket#3556.
 */

/** The scheduler's preemption verdicts, by whether evicting pods could ever make room. */
export const Preemption = {
  notHelpful: 'Preemption is not helpful for scheduling',
  noVictims: 'No preemption victims found for incoming pod',
} as const;

/** The cluster has one node: every count below is of one node. */
const NODES = 1;

function fitError(why: string, preemption: string): string {
  return `0/${NODES} nodes are available: ${why}. preemption: 0/${NODES} nodes are available: ${NODES} ${preemption}.`;
}

/** A PreFilter plugin turned the pod away before any node was looked at (its message, no count). */
export function preFilterRejection(message: string): string {
  return fitError(message, Preemption.notHelpful);
}

/** Filter plugins turned the node away, for these reasons. */
export function nodeRejection(reasons: readonly string[], preemption: string): string {
  return fitError(reasons.map((r) => `${NODES} ${r}`).join(', '), preemption);
}

export const Scheduling = {
  claimNotFound: (claim: string) => `persistentvolumeclaim "${claim}" not found`,
  claimBeingDeleted: (claim: string) => `persistentvolumeclaim "${claim}" is being deleted`,
  unboundImmediateClaims: 'pod has unbound immediate PersistentVolumeClaims',
  nodeAffinityMismatch: "node(s) didn't match Pod's node affinity/selector",
  /** The InterPodAffinity plugin: no pod the pod's required affinity needs is beside this node. */
  podAffinityMismatch: "node(s) didn't match pod affinity rules",
  insufficient: (resource: 'cpu' | 'memory') => `Insufficient ${resource}`,
  /** NodeResourcesFit: the node runs as many pods as its `pods` capacity (fit.go). */
  tooManyPods: 'Too many pods',
  /** The NodeUnschedulable plugin: the node is cordoned (spec.unschedulable). */
  nodeUnschedulable: 'node(s) were unschedulable',
  /** kube-scheduler's ErrNoNodesAvailable: there is no node at all (it was deleted). */
  noNodes: 'no nodes available to schedule pods',
} as const;

export interface ClaimEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** Events about claims, as their components record them. */
export const ClaimEvents = {
  waitForFirstConsumer: (): ClaimEvent => ({
    type: 'Normal',
    reason: 'WaitForFirstConsumer',
    message: 'waiting for first consumer to be created before binding',
  }),
  classNotFound: (className: string): ClaimEvent => ({
    type: 'Warning',
    reason: 'ProvisioningFailed',
    message: `storageclass.storage.k8s.io "${className}" not found`,
  }),
  noClass: (): ClaimEvent => ({
    type: 'Normal',
    reason: 'FailedBinding',
    message: 'no persistent volumes available for this claim and no storage class is set',
  }),
  externalProvisioning: (provisioner: string): ClaimEvent => ({
    type: 'Normal',
    reason: 'ExternalProvisioning',
    message: `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
  }),
  provisioning: (namespace: string, claim: string): ClaimEvent => ({
    type: 'Normal',
    reason: 'Provisioning',
    message: `External provisioner is provisioning volume for claim "${namespace}/${claim}"`,
  }),
  provisioningSucceeded: (volume: string): ClaimEvent => ({
    type: 'Normal',
    reason: 'ProvisioningSucceeded',
    message: `Successfully provisioned volume ${volume}`,
  }),
} as const;

export const PV_CONTROLLER = 'persistentvolume-controller';

/** Annotations the controllers write on a claim. */
export const ClaimAnnotations = {
  /** Written by the scheduler: the node a WaitForFirstConsumer claim's volume is made for. */
  selectedNode: 'volume.kubernetes.io/selected-node',
  storageProvisioner: 'volume.kubernetes.io/storage-provisioner',
  betaStorageProvisioner: 'volume.beta.kubernetes.io/storage-provisioner',
  bindCompleted: 'pv.kubernetes.io/bind-completed',
  boundByController: 'pv.kubernetes.io/bound-by-controller',
} as const;
