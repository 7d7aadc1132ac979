/**
 * A build of some of its pipeline's steps (BuildInput.only, `run --step`): the steps PrepareBuild
 * plans, and the skipped list with the left-out ones in it, each at its place in the file. Pure.
 */
import type { BuildInput } from '../contract/index.js';
import { InvalidPipeline, selectSteps, UnknownStep, type Step } from '../pipeline/index.js';
import type { SkippedStep } from './state-data.js';

export interface AskedSteps {
  steps: Step[];
  /** planSteps' skipped ones (indexes among `steps`) and the left-out ones, by index in the file. */
  skipped(planned: readonly SkippedStep[]): SkippedStep[];
}

export function askedSteps(steps: readonly Step[], input: Pick<BuildInput, 'only' | 'pipeline'>): AskedSteps {
  if (!input.only) return { steps: [...steps], skipped: (planned) => [...planned] };
  let selected;
  try {
    selected = selectSteps(steps, input.only);
  } catch (error) {
    if (!(error instanceof UnknownStep)) throw error;
    throw new InvalidPipeline(`${input.pipeline.file}: ${error.message}`, { file: input.pipeline.file, field: 'steps' });
  }
  const { kept, leftOut } = selected;
  return {
    steps: selected.steps,
    skipped: (planned) => [...leftOut, ...planned.map((skip) => ({ ...skip, index: kept[skip.index]! }))].sort((a, b) => a.index - b.index),
  };
}
