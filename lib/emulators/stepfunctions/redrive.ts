/**
 * "Re-run failed steps": a redrive (redrive-plan.ts, redrive-definition.ts) of a build that has
 * steps to re-run. The engine redrives what Step Functions would; the local server also refuses up
 * front a build whose redrive could only fail again at once, saying why.
 */
import type { ExecutionEvent } from './execution-history.js';
import { endedStatus, ExecutionNotRedrivable, type RedrivePlan } from './redrive-plan.js';
import { AWAIT_RERUN } from './states.js';

export { ExecutionNotRedrivable, RedriveNotEmulated } from './redrive-plan.js';

/**
 * The definition fails in AwaitRerun exactly when the build has steps to re-run in a kept
 * workspace (state-machine.asl.yml, CanRerun); a redrive of a build that failed anywhere else
 * would enter that state again and fail at once, so it is refused with the reason.
 */
export function refuseWithoutStepsToRerun(plan: RedrivePlan, events: readonly ExecutionEvent[]): void {
  if (plan.state === AWAIT_RERUN) return;
  const status = endedStatus(events);
  if (status === 'ABORTED' || status === 'TIMED_OUT') {
    throw new ExecutionNotRedrivable(
      `This build ${status === 'ABORTED' ? 'was stopped' : 'timed out'}: the cleanup deleted its pods and its workspace claim, so it has no steps to re-run. Step Functions would go on from ${plan.state}, where it stood, without them. Start a new execution instead.`,
    );
  }
  throw new ExecutionNotRedrivable(
    'This build has no steps to re-run: it failed before its steps ran, its workspace was not kept (an ephemeral workspace, or FAILED_WORKSPACE_KEEP_SECONDS is 0), or its cleanup could not reach the cluster. Start a new execution instead.',
  );
}

/** The execution's first start, which a redrive keeps. */
export function startTimeOf(events: readonly ExecutionEvent[]): string {
  const started = events.find((e) => e.type === 'ExecutionStarted');
  return new Date(started?.timestamp ?? Date.now()).toISOString();
}
