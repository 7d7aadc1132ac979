/**
 * AwaitRerun (state-machine.asl.yml): the state a failed build with steps to re-run fails in, so
 * that "Re-run failed steps" (Step Functions' RedriveExecution) can go on from it. A redrive
 * "continues the failed execution from the unsuccessful step": it schedules a failed Task again,
 * with its input, its Retry counts reset ("Redriving executions" in the Step Functions guide). Its
 * Parameters are read again then, `$$.Execution.RedriveCount` among them, so the invocation a
 * redrive schedules sees a count higher than the one the build failed at and lets the build go on.
 * Pure: the decision only; the handler (handlers.ts) is its Lambda plumbing.
 */
import type { BuildRef, CaughtFailure } from '../../contract/index.js';

/** AwaitRerun's Parameters. */
export interface AwaitRerunInput {
  /** For the log lines' keys only. */
  build?: BuildRef;
  /**
   * `$$.Execution.RedriveCount` when the build failed, as RerunGate (a Pass) recorded it: a state
   * that succeeded is never run again by a redrive, so this stays what it was.
   */
  failedAt: number;
  /** `$$.Execution.RedriveCount` as this invocation was scheduled. */
  redrive: number;
  /** The build's failure, as ReadFailure left it: the Error and the readable Cause. */
  failure: CaughtFailure;
}

/** The build's Error, when the Catch output had none (a Catch always names one: a fallback only). */
export const UNNAMED_FAILURE = 'BuildFailed';

/**
 * The build's own failure, thrown again so that the execution ends with it. Lambda reports a thrown
 * error as `errorType` = its `name` and `errorMessage` = its `message`, and Step Functions takes
 * errorType as the Error (aws-lambda-nodejs-runtime-interface-client src/Errors.js,
 * toRapidResponse): the console shows the build's Error, and its Cause is the JSON that holds the
 * build's Cause as errorMessage (lib/contract/lambda-error.ts reads it back). The name is the
 * build's, whichever it is, so it is not one of the named classes of lib/contract.
 */
export class BuildFailure extends Error {
  constructor(failure: CaughtFailure) {
    super(failure.Cause ?? '');
    this.name = failure.Error || UNNAMED_FAILURE;
    // The JSON's `trace` is this stack split into lines (toRapidResponse): one line that says
    // where the JSON comes from reads better in the console than this module's frames.
    this.stack = `${this.name}: the build's failure, ended again by AwaitRerun until "Re-run failed steps" (a redrive) lets the build go on`;
  }
}

/** Bad Parameters: the definition and this function disagree. */
export class InvalidAwaitRerunInput extends Error {
  override readonly name = 'InvalidAwaitRerunInput';
}

/**
 * Redriven since the build failed: returns, and RerunSteps sends the steps that did not succeed
 * through RunSteps again. Not: throws the build's failure.
 */
export function awaitRerun(input: AwaitRerunInput): { redriven: number } {
  const { failedAt, redrive, failure } = input ?? {};
  if (!Number.isInteger(failedAt) || !Number.isInteger(redrive)) {
    throw new InvalidAwaitRerunInput(`AwaitRerun: failedAt and redrive must be redrive counts (whole numbers); got ${JSON.stringify({ failedAt, redrive })}`);
  }
  if (redrive > failedAt) return { redriven: redrive };
  throw new BuildFailure(failure ?? {});
}
