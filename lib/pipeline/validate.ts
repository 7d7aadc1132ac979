/**
 * What YAML produced -> the normal form, or every problem by path: the schema (schema.ts) and the
 * rules across steps (cross-step-rules.ts) both run, so one pass reports all, then normalise.ts.
 */
import { crossStepRuleProblems, timeBudgetProblem } from './cross-step-rules.js';
import { normalisePipeline, type PipelineData } from './normalise.js';
import { checkSchema, ProblemKinds, withoutExplainedMissing, type SchemaProblem } from './schema.js';
import { buildProblems } from './build.js';

export type ValidationResult = { ok: true; pipeline: PipelineData } | { ok: false; problems: SchemaProblem[] };

/** Validates what YAML produced; every problem is reported, not just the first. */
export function validatePipelineData(data: unknown): ValidationResult {
  if (data === null || data === undefined) {
    return { ok: false, problems: [{ path: [], message: 'the file is empty: a pipeline starts with "version: 1" and a list of "steps"', kind: 'other' }] };
  }
  const checked = checkSchema(data);
  const built = buildProblems(data).map((problem) => ({ ...problem, kind: ProblemKinds.other }));
  const problems = withoutExplainedMissing([...(checked.ok ? [] : checked.problems), ...built, ...crossStepRuleProblems(data)]);
  if (problems.length > 0 || !checked.ok) return { ok: false, problems };
  const overBudget = timeBudgetProblem(checked.data.steps);
  if (overBudget) return { ok: false, problems: [overBudget] };
  return { ok: true, pipeline: normalisePipeline(checked.data) };
}
