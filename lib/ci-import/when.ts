/** `when` conditions from several places of a CI file (its triggers, a job's own) as one. */
import type { DraftWhen } from './types.js';

/**
 * Both must hold: events are intersected; the job's own branches and paths win over the file's
 * (they are the narrower in every file seen), status is the job's.
 */
export function mergeWhen(outer: DraftWhen | undefined, inner: DraftWhen | undefined): DraftWhen | undefined {
  const merged: DraftWhen = { ...outer, ...inner };
  if (outer?.event && inner?.event) merged.event = outer.event.filter((event) => inner.event!.includes(event));
  if (merged.paths && merged['paths-ignore']) delete merged[inner?.paths ? 'paths-ignore' : 'paths'];
  return Object.keys(merged).length === 0 ? undefined : merged;
}
