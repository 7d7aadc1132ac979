import type { ExecutionEvent } from './execution-history.js';
import { AWAIT_RERUN as RERUN_MAP } from './states.js';
import { ExecutionControlError } from '../execution-errors.js';

/** As Step Functions names the refusal of RedriveExecution. */
export class ExecutionNotRedrivable extends ExecutionControlError {
  override readonly name = 'ExecutionNotRedrivable';
  readonly statusCode = 409;
}

/**
 * Where a redrive of an ended execution goes on, and with what: the state it failed in, entered
 * again with the input it was entered with, as RedriveExecution does ("continues the failed
 * execution from the unsuccessful step and uses the same input"). Only AwaitRerun is worth it: the
 * definition fails there exactly when the build has steps to re-run in a kept workspace
 * (state-machine.asl.yml, CanRerun); a build that failed anywhere else would fail again at once.
 */
export function redriveFrom(events: readonly ExecutionEvent[]): { state: string; input: unknown } {
  const last = events.at(-1);
  if (last?.type !== 'ExecutionFailed') {
    throw new ExecutionNotRedrivable(`Only a failed execution can re-run its failed steps; this one ${last?.type === 'ExecutionSucceeded' ? 'succeeded' : 'has not failed'}.`);
  }
  const entered = events.findLast((e) => e.type === 'StateEntered' && e.state?.name === RERUN_MAP);
  const exited = events.findLast((e) => e.type === 'StateExited' && e.state?.name === RERUN_MAP);
  if (!entered || (exited && events.indexOf(exited) > events.indexOf(entered))) {
    throw new ExecutionNotRedrivable(
      'This build has no steps to re-run: it failed before its steps ran, its workspace was not kept (an ephemeral workspace, or FAILED_WORKSPACE_KEEP_SECONDS is 0), or its cleanup could not reach the cluster. Start a new execution instead.',
    );
  }
  return { state: RERUN_MAP, input: entered.state?.input };
}

/** The execution's first start, which a redrive keeps. */
export function startTimeOf(events: readonly ExecutionEvent[]): string {
  const started = events.find((e) => e.type === 'ExecutionStarted');
  return new Date(started?.timestamp ?? Date.now()).toISOString();
}
