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
  Evicted: 'Evicted',
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
} as const;

export const PodConditionReasons = {
  Unschedulable: 'Unschedulable',
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
  PodFailed: 'PodFailed',
  /** A service runs but has not opened its ports yet: the step's container waits for it. */
  ServiceStarting: 'ServiceStarting',
  /** A service never opened its ports within the grace period. */
  ServiceNotReady: 'ServiceNotReady',
} as const;
