/** The errors of reading a pipeline file: both reject it before anything starts. */
import { ErrorNames, StepRunnerError } from '../contract/index.js';

/** Where in a pipeline file a problem was found; every field is optional because YAML may not say. */
export interface PipelineLocation {
  file: string;
  step?: string;
  field?: string;
  line?: number;
  column?: number;
}

/** One problem of a rejected file, readable on its own (file, line, step, field, what is wrong). */
export interface LocatedProblem {
  message: string;
  location: PipelineLocation;
}

export class InvalidPipeline extends StepRunnerError {
  override readonly name = ErrorNames.InvalidPipeline;
  constructor(
    message: string,
    readonly location: PipelineLocation,
    /** Every problem found, when there were several; the message is the first of them. */
    readonly problems: readonly LocatedProblem[] = [{ message, location }],
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
    /** Every bad image reference of the file; the message is the first of them. */
    readonly problems: readonly LocatedProblem[] = [{ message, location: location ?? { file: '' } }],
  ) {
    super(message);
  }
}
