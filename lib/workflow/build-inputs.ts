/**
 * A build's inputs (BuildRef.inputs) against its pipeline's `inputs:`: the values every step then
 * sees as CI_INPUT_<NAME> (build-environment.ts), defaults filled in, or the build refused before
 * anything of it is made. The webhook refuses bad inputs itself (422) when it reads the pipeline;
 * this is the check for what it could not see: a schedule's inputs against the pipeline file at
 * the commit its ref points at when it fires.
 */
import type { BuildInput } from '../contract/index.js';
import { InvalidPipeline, inputsProblemMessage, resolveInputs, type InputProblem, type Pipeline } from '../pipeline/index.js';

export function withResolvedInputs(input: BuildInput, pipeline: Pipeline): BuildInput {
  const resolved = resolveInputs(pipeline.inputs, input.build.inputs);
  if (!resolved.ok) throw inputsRefused(pipeline.file, resolved.problems);
  if (Object.keys(resolved.values).length === 0 && input.build.inputs === undefined) return input;
  return { ...input, build: { ...input.build, inputs: resolved.values } };
}

/** Every input that does not fit, named, as one InvalidPipeline at the file's `inputs`; `run --input` refuses with it too. */
export function inputsRefused(file: string, problems: readonly InputProblem[]): InvalidPipeline {
  return new InvalidPipeline(inputsProblemMessage(file, problems), { file, field: 'inputs' });
}
