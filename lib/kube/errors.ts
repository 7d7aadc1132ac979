/**
 * The Errors the Kubernetes calls here throw. The others of a step's pod (StepFailed, Unschedulable,
 * PodStalled, ...) are what classifyStep reports as data, not exceptions (a pod's end is not one),
 * so they have a name in lib/contract/errors.ts and no class.
 */
import { ErrorNames, StepRunnerError } from '../contract/index.js';

/** The API refused the step's pod (400/404/422, admission), or its name is another's. */
export class PodConfigError extends StepRunnerError {
  override readonly name = ErrorNames.PodConfigError;
}

/** The build's workspace claim could not be created, or a claim of its name is another build's. */
export class WorkspaceUnavailable extends StepRunnerError {
  override readonly name = ErrorNames.WorkspaceUnavailable;
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
