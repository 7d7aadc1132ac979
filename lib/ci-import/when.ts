/** `when` conditions from several places of a CI file (its triggers, a job's own) as one. */
import type { DraftStep, DraftWhen } from './types.js';

/**
 * Both must hold: events are intersected; the job's own branches and paths win over the file's
 * (they are the narrower in every file seen), status is the job's.
 */
export function mergeWhen(outer: DraftWhen | undefined, inner: DraftWhen | undefined): DraftWhen | undefined {
  const merged: DraftWhen = { ...outer, ...inner };
  // Both hold only for events in both lists; none in common would be a step that never runs: the job's own then.
  const common = outer?.event?.filter((event) => inner?.event?.includes(event));
  if (common && inner?.event) merged.event = common.length > 0 ? common : inner.event;
  if (merged.paths && merged['paths-ignore']) delete merged[inner?.paths ? 'paths-ignore' : 'paths'];
  return Object.keys(merged).length === 0 ? undefined : merged;
}

/**
 * Steps that run only after a failure take no `needs`, and no step may need one
 * (docs/pipeline.md#conditional-steps): their needs are dropped, with a word at each step.
 */
export function settleFailureSteps(steps: readonly DraftStep[]): void {
  const afterFailure = new Set(steps.filter((step) => step.when?.status?.includes('failure')).map((step) => step.name));
  for (const step of steps) {
    if (afterFailure.has(step.name)) {
      if (step.needs && step.needs.length > 0) step.notes.push(`runs once the build has failed, after the steps still running are stopped: it needs nothing (it needed ${step.needs.join(', ')})`);
      delete step.needs;
      continue;
    }
    const dropped = step.needs?.filter((need) => afterFailure.has(need)) ?? [];
    if (dropped.length > 0) {
      step.needs = step.needs!.filter((need) => !afterFailure.has(need));
      step.notes.push(`needed ${dropped.join(', ')}, which runs only after a failure: started without it`);
    }
  }
}
