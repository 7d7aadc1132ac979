/** `run --step NAME [--no-needs]`: what the build input asks PrepareBuild to keep, checked first. */
import type { BuildInput } from '../../contract/index.js';
import { selectSteps, UnknownStep, type Pipeline } from '../../pipeline/index.js';
import type { RunOptions } from './run-args.js';
import { UsageError } from './usage.js';

/** BuildInput.only, or undefined for every step; throws UsageError for a name that is no step. */
export function onlyAskedFor(options: Pick<RunOptions, 'steps' | 'noNeeds'>, pipeline: Pick<Pipeline, 'steps'>): BuildInput['only'] {
  if (!options.steps) return undefined;
  const only = { steps: options.steps, needs: !options.noNeeds };
  try {
    selectSteps(pipeline.steps, only);
  } catch (error) {
    if (error instanceof UnknownStep) throw new UsageError(`--step: ${error.message}`);
    throw error;
  }
  return only;
}
