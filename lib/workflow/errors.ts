/**
 * The errors a build can end with. Each class's `name` is the `Error` the Step Functions console
 * shows (Lambda reports `errorType` from `error.name`), so the names are a contract: see design.md.
 * The message is the Cause: one readable paragraph naming the step, the image and the reason.
 */
export const ErrorNames = {
  InvalidPipeline: 'InvalidPipeline',
  InvalidImage: 'InvalidImage',
  ImagePullFailed: 'ImagePullFailed',
  PodConfigError: 'PodConfigError',
  Unschedulable: 'Unschedulable',
  StepFailed: 'StepFailed',
  StepTimedOut: 'StepTimedOut',
  PodLost: 'PodLost',
  KubernetesUnavailable: 'KubernetesUnavailable',
} as const;

export type ErrorName = (typeof ErrorNames)[keyof typeof ErrorNames];

export abstract class StepRunnerError extends Error {
  abstract override readonly name: ErrorName;
}

/** Where in a pipeline file a problem was found; every field is optional because YAML may not say. */
export interface PipelineLocation {
  file: string;
  step?: string;
  field?: string;
  line?: number;
  column?: number;
}

export class InvalidPipeline extends StepRunnerError {
  override readonly name = ErrorNames.InvalidPipeline;
  constructor(
    message: string,
    readonly location: PipelineLocation,
    /** Every problem found, when there were several; the message is the first of them. */
    readonly problems: readonly { message: string; location: PipelineLocation }[] = [{ message, location }],
  ) {
    super(message);
  }
}

export class InvalidImage extends StepRunnerError {
  override readonly name = ErrorNames.InvalidImage;
  constructor(
    message: string,
    readonly image: string,
    readonly location?: PipelineLocation,
  ) {
    super(message);
  }
}

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
