/**
 * A build none of whose steps runs: what its commit status (or check run) says instead of "Build
 * succeeded", and what PrepareBuild logs when `when.paths` cannot be decided. Pure.
 *
 * Such a build still reports success: a branch protection rule that requires the status would
 * otherwise wait forever for a build that never came (as GitHub Actions' path-filtered required
 * workflows do).
 */
import type { BuildChanges } from '../contract/index.js';
import type { SkippedStep } from './state-data.js';

/** The reasons step-plan.ts gives for a step `when.paths` or `when.paths-ignore` skips (paths.ts words them). */
const PATH_REASON = /^(the pipeline's )?when\.paths(-ignore)?: /;
const PIPELINE_PATH_REASON = /^the pipeline's when\.paths(-ignore)?: /;
const NEEDS_REASON = /^it needs ".*", which is skipped$/;

/** Whether every step is skipped by paths: its own, the pipeline's, or those of a step it needs. */
export function skippedByPaths(skipped: readonly SkippedStep[]): boolean {
  return skipped.some((step) => PATH_REASON.test(step.reason)) && skipped.every((step) => PATH_REASON.test(step.reason) || NEEDS_REASON.test(step.reason));
}

/** The status description of a build that runs no step (`skipped`: every step of its file, with why). */
export function skippedBuildDescription(skipped: readonly SkippedStep[]): string {
  const pipelineReason = skipped.find((step) => PIPELINE_PATH_REASON.test(step.reason))?.reason;
  if (pipelineReason && skipped.every((step) => step.reason === pipelineReason)) return `Skipped by ${pipelineReason}`;
  if (skippedByPaths(skipped)) {
    return skipped.length === 1 ? `Skipped by ${skipped[0]!.reason}` : `Skipped by when.paths: the change touches none of the ${skipped.length} steps' files`;
  }
  return skipped.length === 1 ? `Skipped: the only step's when does not hold (${skipped[0]!.reason})` : `Skipped: the when of each of the ${skipped.length} steps does not hold for this build`;
}

/**
 * What PrepareBuild logs when a file filters by paths but the build cannot tell (the steps then
 * run as though their files had changed); undefined when it can.
 */
export function undecidedPathsNote(changes: BuildChanges | undefined): string | undefined {
  if (!changes) return 'when.paths is not decided: the build has no change to decide it from (a manual run, a re-run, or a local run without --changed or --base), so no step is skipped by its paths';
  if (!changes.known) return `when.paths is not decided: ${changes.why}, so no step is skipped by its paths`;
  return undefined;
}
