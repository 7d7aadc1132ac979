/**
 * Reason words the kubelet, the scheduler and the API server write into pod status and events.
 * They are Kubernetes' own spellings; the classifier compares against these constants only.
 */

/** Container `state.waiting.reason` values other than the image pull ones (see image-pull.ts). */
export const ContainerWaitingReasons = {
  ContainerCreating: 'ContainerCreating',
  PodInitializing: 'PodInitializing',
  CreateContainerConfigError: 'CreateContainerConfigError',
  CreateContainerError: 'CreateContainerError',
  RunContainerError: 'RunContainerError',
  CrashLoopBackOff: 'CrashLoopBackOff',
} as const;

/** Container `state.terminated.reason` values. */
export const TerminatedReasons = {
  Completed: 'Completed',
  Error: 'Error',
  OOMKilled: 'OOMKilled',
  /** containerd: the runtime could not start the process (exit code 128). */
  StartError: 'StartError',
  /** dockershim's name for the same. */
  ContainerCannotRun: 'ContainerCannotRun',
  ContainerStatusUnknown: 'ContainerStatusUnknown',
} as const;

/** `status.reason` of a pod the kubelet ended. */
export const PodReasons = {
  DeadlineExceeded: 'DeadlineExceeded',
  /** The kubelet's node-pressure eviction: "The node was low on resource: memory. …". */
  Evicted: 'Evicted',
  /** Graceful node shutdown (pkg/kubelet/nodeshutdown): "Pod was terminated in response to imminent node shutdown.". */
  Terminated: 'Terminated',
} as const;

export const PodPhases = {
  Pending: 'Pending',
  Running: 'Running',
  /** The pod's checkout init container is running (an ephemeral workspace). */
  CheckingOut: 'CheckingOut',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  Unknown: 'Unknown',
} as const;

export const PodConditionTypes = {
  PodScheduled: 'PodScheduled',
  /**
   * Set True (with one of DisruptionReasons) on a pod about to be, or just, ended by something
   * other than its own containers (Kubernetes docs "Pod disruption conditions", stable in 1.31).
   */
  DisruptionTarget: 'DisruptionTarget',
} as const;

/**
 * DisruptionTarget reasons (k8s.io/api core/v1), with the message each writer sets: the Eviction
 * API (pkg/registry/core/pod/storage/eviction.go), PodGC (pkg/controller/podgc), the taint
 * manager (pkg/controller/tainteviction), the scheduler's preemption and the kubelet (node-pressure
 * eviction, graceful node shutdown).
 */
export const DisruptionReasons = {
  /** "Eviction API: evicting": kubectl drain, Karpenter's and cluster-autoscaler's node removal. */
  EvictionByEvictionAPI: 'EvictionByEvictionAPI',
  /** "PodGC: node no longer exists". */
  DeletionByPodGC: 'DeletionByPodGC',
  /** "Taint manager: deleting due to NoExecute taint" (a node not ready or unreachable for 300 s). */
  DeletionByTaintManager: 'DeletionByTaintManager',
  /** "default-scheduler: preempting to accommodate a higher priority pod". */
  PreemptionByScheduler: 'PreemptionByScheduler',
  /** The kubelet's eviction message, or "Pod was terminated in response to imminent node shutdown.". */
  TerminationByKubelet: 'TerminationByKubelet',
} as const;

export const PodConditionReasons = {
  Unschedulable: 'Unschedulable',
  /**
   * PodScheduled=False while spec.schedulingGates is not empty: set by the API server when the pod
   * is created (kubernetes/kubernetes pkg/registry/core/pod/strategy.go applySchedulingGatedCondition).
   */
  SchedulingGated: 'SchedulingGated',
} as const;

/** Event `reason` values (pkg/kubelet/events/event.go and the scheduler). */
export const EventReasons = {
  Scheduled: 'Scheduled',
  FailedScheduling: 'FailedScheduling',
  Pulling: 'Pulling',
  Pulled: 'Pulled',
  /** Shared by "Failed to pull image …", "Error: ErrImagePull" and "Error: secret … not found". */
  Failed: 'Failed',
  BackOff: 'BackOff',
  InspectFailed: 'InspectFailed',
  ErrImageNeverPull: 'ErrImageNeverPull',
  Created: 'Created',
  Started: 'Started',
  /** Also "Container NAME failed startup probe, will be restarted" when a startup probe gives up. */
  Killing: 'Killing',
  /** A probe failed (Warning): "Startup probe failed: dial tcp 10.0.0.5:5432: connect: connection refused". */
  Unhealthy: 'Unhealthy',
  Evicted: 'Evicted',
  DeadlineExceeded: 'DeadlineExceeded',
  /** The kubelet could not make the pod's sandbox: its network (CNI out of IPs) or its runtime. Retried. */
  FailedCreatePodSandBox: 'FailedCreatePodSandBox',
} as const;

/**
 * Pod events that say the pod was taken away from its step, by whom (pkg/controller/tainteviction,
 * pkg/controller/nodelifecycle, kube-scheduler's preemption, Karpenter's terminator
 * pkg/controllers/node/termination/terminator/events). They outlive the pod, so a pod that is gone
 * can still be told apart from one someone deleted. Evicted is shared by the kubelet's node-pressure
 * eviction and Karpenter's drain ("Evicted pod").
 */
export const DisruptionEventReasons = {
  Evicted: EventReasons.Evicted,
  /** Normal: "Marking for deletion Pod ci/b-42-build" (and "Cancelling deletion of Pod …", which is not one). */
  TaintManagerEviction: 'TaintManagerEviction',
  /** Warning, node-controller: "Node is not ready". */
  NodeNotReady: 'NodeNotReady',
  /** Normal, the scheduler: "Preempted by pod 5f3a… on node ip-…". */
  Preempted: 'Preempted',
  /** Normal, Karpenter: "Deleting the pod to accommodate the terminationTime … of the node. …". */
  Disrupted: 'Disrupted',
} as const;

/** What the taint manager writes when it marks a pod, as opposed to when it cancels that. */
export const TAINT_EVICTION_PREFIX = 'Marking for deletion';

/**
 * Event `reason` values node autoscalers write on a pending pod: cluster-autoscaler's
 * (cluster-autoscaler/processors/status/eventing_scale_up_processor.go) and Karpenter's
 * (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/events.go). Karpenter's
 * refusal reuses the scheduler's FailedScheduling, told apart by its words
 * (KARPENTER_REFUSAL_PREFIX in autoscaler-signals.ts).
 */
export const AutoscalerEventReasons = {
  /** cluster-autoscaler (Normal): "pod triggered scale-up: [{eks-ng-1 2->3 (max: 10)}]". */
  TriggeredScaleUp: 'TriggeredScaleUp',
  /** cluster-autoscaler (Normal): "pod didn't trigger scale-up: 1 max node group size reached". */
  NotTriggerScaleUp: 'NotTriggerScaleUp',
  /** Karpenter (Normal): "Pod should schedule on: nodeclaim/default-tn8fg". */
  Nominated: 'Nominated',
} as const;

/**
 * Event `reason` values about a pod's volumes and its claim: the attach/detach controller and the
 * kubelet on the pod (pkg/volume/util/operationexecutor, pkg/kubelet/volumemanager), the
 * PersistentVolume controller and the external provisioner on the claim (pkg/controller/volume/
 * persistentvolume, sig-storage-lib-external-provisioner).
 */
export const VolumeEventReasons = {
  /** Pod: "Multi-Attach error for volume …", "AttachVolume.Attach failed for volume …". */
  FailedAttachVolume: 'FailedAttachVolume',
  /** Pod: "AttachVolume.Attach succeeded for volume …". */
  SuccessfulAttachVolume: 'SuccessfulAttachVolume',
  /** Pod: "MountVolume.MountDevice failed …", "Unable to attach or mount volumes: …". */
  FailedMount: 'FailedMount',
  /** Claim (Warning): the storage class is missing, or the provisioner's CreateVolume failed. */
  ProvisioningFailed: 'ProvisioningFailed',
  /** Claim (Normal): "Successfully provisioned volume pvc-…". */
  ProvisioningSucceeded: 'ProvisioningSucceeded',
  /** Claim (Normal): "External provisioner is provisioning volume for claim …". */
  Provisioning: 'Provisioning',
  /** Claim (Normal): the PersistentVolume controller waits for an external provisioner. */
  ExternalProvisioning: 'ExternalProvisioning',
  /** Claim (Normal): a WaitForFirstConsumer claim has no scheduled pod yet. */
  WaitForFirstConsumer: 'WaitForFirstConsumer',
} as const;

/** `involvedObject.kind` of the objects whose events a poll reads. */
export const InvolvedKinds = {
  Pod: 'Pod',
  PersistentVolumeClaim: 'PersistentVolumeClaim',
} as const;

/** Node labels the classifier reads in a pod's affinity. */
export const NodeLabels = {
  /** What a pod pinned to one node selects on (the kubelet sets it to the node's name). */
  hostname: 'kubernetes.io/hostname',
} as const;

/** Step-level reasons this runner reports for states Kubernetes has no single word for. */
export const StepReasons = {
  PodDeleted: 'PodDeleted',
  PodDeleting: 'PodDeleting',
  Pending: 'Pending',
  Running: 'Running',
  /** The pod's checkout init container is running (an ephemeral workspace). */
  CheckingOut: 'CheckingOut',
  /** The pod's cache restore init container is running: the step's commands come after it. */
  RestoringCache: 'RestoringCache',
  Succeeded: 'Succeeded',
  Unschedulable: 'Unschedulable',
  /** Unschedulable, but the cluster's autoscaler says a node is coming for the pod. */
  WaitingForNode: 'WaitingForNode',
  /**
   * Unschedulable for capacity alone (Insufficient cpu, Too many pods...) on a cluster with no node
   * autoscaler: other pods ending will make room, so the step waits (classify-stall.ts).
   */
  WaitingForCapacity: 'WaitingForCapacity',
  /** No event or status change about the pod for its pending-timeout (PodStalled). */
  Stalled: 'Stalled',
  /** The step's timeout passed before any node started its pod (so activeDeadlineSeconds never could). */
  NeverStarted: 'NeverStarted',
  PodFailed: 'PodFailed',
  /** A service runs but has not opened its ports yet: the step's container waits for it. */
  ServiceStarting: 'ServiceStarting',
  /** A service never opened its ports within the grace period. */
  ServiceNotReady: 'ServiceNotReady',
  /** A pod marked DisruptionTarget under a reason this runner does not know yet. */
  Disrupted: 'Disrupted',
} as const;
