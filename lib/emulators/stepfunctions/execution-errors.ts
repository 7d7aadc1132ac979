/** Why the local server refused to stop or re-run an execution; each carries its HTTP status. */
export abstract class ExecutionControlError extends Error {
  abstract readonly statusCode: number;
}

/** As Step Functions names it. */
export class ExecutionDoesNotExist extends ExecutionControlError {
  override readonly name = 'ExecutionDoesNotExist';
  readonly statusCode = 404;
}

/** Stopping an execution that has already ended changes nothing, so it is refused, not ignored. */
export class ExecutionNotRunning extends ExecutionControlError {
  override readonly name = 'ExecutionNotRunning';
  readonly statusCode = 409;
}
