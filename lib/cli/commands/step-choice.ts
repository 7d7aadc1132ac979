/** `run --step NAME [--no-needs]`: what the build input asks PrepareBuild to keep, checked first. */
import type { BuildInput } from '../../contract/index.js';
import { selectSteps, UnknownStep, type Pipeline } from '../../pipeline/index.js';
import type { RunOptions } from './run-args.js';
import { UsageError } from './usage.js';

/** BuildInput.only, or undefined for every step; throws UsageError for a name that is no step. */
export function onlyAskedFor(options: Pick<RunOptions, 'steps' | 'noNeeds'>, pipeline: Pick<Pipeline, 'steps'>): BuildInput['only'] {
  if (!options.steps) return withoutApprovals(pipeline.steps, undefined);
  const only = { steps: options.steps, needs: !options.noNeeds };
  try {
    return withoutApprovals(selectSteps(pipeline.steps, only).steps, only);
  } catch (error) {
    if (error instanceof UnknownStep) throw new UsageError(`--step: ${error.message}`);
    throw error;
  }
}

/**
 * `run` has no server, so nobody could approve an approval step of its build (POST
 * /executions/NAME/approve is the local server's): refused before anything starts, not left to
 * wait for its timeout.
 */
function withoutApprovals<T>(running: readonly Pick<Pipeline['steps'][number], 'name' | 'approval'>[], only: T): T {
  const approval = running.find((step) => step.approval);
  if (approval) {
    throw new UsageError(
      `step "${approval.name}" is an approval step, and run has no server to approve it through: build this pipeline with step-runner serve (then step-runner approve), or leave the step out with --step`,
    );
  }
  return only;
}
