/**
 * The Cause a person reads. When a Lambda task throws, Step Functions' Cause is the runtime's error
 * JSON, `{"errorType","errorMessage","trace"}` (aws-lambda-nodejs-runtime-interface-client
 * src/Errors.js, toRapidResponse; Lambda's own failures, such as a timeout, answer
 * `{"errorMessage","errorType"}`): only the message is meant for people. A Fail state's Cause,
 * and the service's own (States.*), are the text itself. Every reader that shows an Error and
 * Cause to people (the commit status, the check run, `run`, `run --json`, the console, the
 * ended-execution cleanup) goes through this one function. An execution that fails in AwaitRerun
 * (a Lambda task, state-machine.asl.yml) ends with the build's own Cause inside that JSON.
 */
export function plainCause(cause: string): string {
  if (!cause.trimStart().startsWith('{')) return cause;
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown; errorType?: unknown };
    // Both fields, or it is some other JSON a Cause happens to be (a step that printed an object).
    return typeof parsed.errorMessage === 'string' && typeof parsed.errorType === 'string' ? parsed.errorMessage : cause;
  } catch {
    // Not JSON after all: the text is the cause.
    return cause;
  }
}
