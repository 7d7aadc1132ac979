import type { Step } from '../pipeline/types.js';

/**
 * Whether FinishFailedStep leaves a failed step's pod to the build's cleanup: a combination of a
 * matrix with `fail-fast: false` (the definition's KeepGoing), whose failure ends its iteration
 * without failing the Map. Nothing then stops the steps that have not started, and one that needs
 * it, or needs a step that will never start because of it, may look for the first time long after
 * (held back by `max-parallel`): its pod, Failed, is what WaitForNeeds finds then
 * (needs-verdict.ts: any step of the build failed), and the step ends unlaunched (NeedsNeverMet)
 * instead of waiting for a need that can never succeed. Any other failed step's pod goes at once:
 * its failure fails the Map, which stops every step still waiting. Pure.
 */
export function keepsFailedPod(step: Pick<Step, 'matrix'>): boolean {
  return step.matrix?.failFast === false;
}
