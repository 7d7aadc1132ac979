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
  Killing: 'Killing',
  Evicted: 'Evicted',
  DeadlineExceeded: 'DeadlineExceeded',
} as const;

/** Step-level reasons this runner reports for states Kubernetes has no single word for. */
export const StepReasons = {
  PodDeleted: 'PodDeleted',
  PodDeleting: 'PodDeleting',
  Pending: 'Pending',
  Running: 'Running',
  Succeeded: 'Succeeded',
  Unschedulable: 'Unschedulable',
  PodFailed: 'PodFailed',
} as const;
