/**
 * The errors of running a step on Kubernetes. PodConfigError and KubernetesUnavailable are thrown
 * by the API calls here; the others are what classifyStep reports as data (a pod's end is not an
 * exception), named by the same classes so every Error of the contract has one.
 */
import { ErrorNames, StepRunnerError } from '../contract/index.js';

export class ImagePullFailed extends StepRunnerError {
  override readonly name = ErrorNames.ImagePullFailed;
}

export class PodConfigError extends StepRunnerError {
  override readonly name = ErrorNames.PodConfigError;
}

export class Unschedulable extends StepRunnerError {
  override readonly name = ErrorNames.Unschedulable;
}

export class StepFailed extends StepRunnerError {
  override readonly name = ErrorNames.StepFailed;
}

export class StepTimedOut extends StepRunnerError {
  override readonly name = ErrorNames.StepTimedOut;
}

export class PodLost extends StepRunnerError {
  override readonly name = ErrorNames.PodLost;
}

/** The build's checkout (its `clone` step) exited non-zero: git's own words are in the Cause. */
export class CheckoutFailed extends StepRunnerError {
  override readonly name = ErrorNames.CheckoutFailed;
}

/** The build's workspace volume could not be provisioned, bound, attached or mounted. */
export class WorkspaceUnavailable extends StepRunnerError {
  override readonly name = ErrorNames.WorkspaceUnavailable;
}

/**
 * A service of the step (a sidecar in its pod) exited, kept restarting, or never opened its ports
 * within the grace period: the step cannot run against it, and waiting would not bring it back.
 */
export class ServiceFailed extends StepRunnerError {
  override readonly name = ErrorNames.ServiceFailed;
}

/**
 * The cluster took a running step's pod away (evicted, preempted, its node drained, tainted, shut
 * down or gone), with the cluster's words: not the step's failure, and safe to run again in a
 * fresh pod on the same workspace.
 */
export class StepInterrupted extends StepRunnerError {
  override readonly name = ErrorNames.StepInterrupted;
}

/**
 * The node's container runtime did not create the step's container (or answer for its image) within
 * the grace period, while the kubelet kept asking: the node's trouble, safe to run again in a fresh pod.
 */
export class ContainerRuntimeTimeout extends StepRunnerError {
  override readonly name = ErrorNames.ContainerRuntimeTimeout;
}

/**
 * Nothing about the step's pod moved for its pending-timeout: no scheduler answered, or its node
 * left it ContainerCreating without a word (classify-stall.ts).
 */
export class PodStalled extends StepRunnerError {
  override readonly name = ErrorNames.PodStalled;
}

export class KubernetesUnavailable extends StepRunnerError {
  override readonly name = ErrorNames.KubernetesUnavailable;
  constructor(
    message: string,
    /** The API call that kept failing, e.g. "create pod ci/build-1-test". */
    readonly operation: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
