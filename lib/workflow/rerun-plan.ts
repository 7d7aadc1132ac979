import type { Step } from '../pipeline/types.js';

/**
 * The steps a re-run of a failed build runs (AwaitRerun, RerunSteps): those of `steps` that did not
 * succeed, in their order, each needing only the steps that run again with it. A need that
 * succeeded is met already: its output is in the kept workspace and its pod is gone, so waiting
 * for it would wait for ever. `needed` follows: a step nothing re-run needs leaves no pod behind.
 * Pure.
 */
export function rerunPlan(steps: readonly Step[], succeeded: ReadonlySet<string>): Step[] {
  const rerun = steps.filter((step) => !succeeded.has(step.name));
  const names = new Set(rerun.map((step) => step.name));
  const neededAgain = new Set(rerun.flatMap((step) => (step.needs ?? []).filter((need) => names.has(need))));
  return rerun.map((step) => {
    const { needed: _needed, needs, ...rest } = step;
    return {
      ...rest,
      ...(needs !== undefined ? { needs: needs.filter((need) => names.has(need)) } : {}),
      ...(neededAgain.has(step.name) ? { needed: true as const } : {}),
    };
  });
}
