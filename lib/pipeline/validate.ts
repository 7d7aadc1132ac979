/**
 * What YAML produced -> the normal form, or every problem by path: the schema (schema.ts) and the
 * rules across steps (cross-step-rules.ts) both run, so one pass reports all, then normalise.ts.
 */
import { crossStepRuleProblems, timeBudgetProblem } from './cross-step-rules.js';
import { normalisePipeline, type PipelineData } from './normalise.js';
import { checkSchema, ProblemKinds, withoutExplainedMissing, type SchemaProblem } from './schema.js';
import { expandSteps } from './matrix-steps.js';
import { buildProblems } from './build.js';

/** `sources`: for each step of the pipeline, the index of the step in the file it came from (a matrix makes several of one). */
export type ValidationResult = { ok: true; pipeline: PipelineData; sources: number[] } | { ok: false; problems: SchemaProblem[] };

/** Validates what YAML produced; every problem is reported, not just the first. */
export function validatePipelineData(data: unknown): ValidationResult {
  if (data === null || data === undefined) {
    return { ok: false, problems: [{ path: [], message: 'the file is empty: a pipeline starts with "version: 1" and a list of "steps"', kind: 'other' }] };
  }
  const checked = checkSchema(data);
  // A step's missing image or commands is a rule across its keys (build.ts, approval.ts): a typo beside it explains it there too.
  const built = buildProblems(data).map((problem) => ({ ...problem, kind: ProblemKinds.other }));
  const problems = withoutExplainedMissing([...(checked.ok ? [] : checked.problems), ...built, ...crossStepRuleProblems(data)]);
  if (problems.length > 0 || !checked.ok) return { ok: false, problems };
  const expanded = expandSteps(checked.data.steps);
  if (!expanded.ok) return { ok: false, problems: expanded.problems };
  const overBudget = timeBudgetProblem(checked.data.steps, checked.data['max-parallel']);
  if (overBudget) return { ok: false, problems: [overBudget] };
  return { ok: true, pipeline: normalisePipeline({ ...checked.data, steps: expanded.steps }), sources: expanded.steps.map((step) => step.source) };
}
