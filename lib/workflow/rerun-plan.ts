import type { Step } from '../pipeline/types.js';

/**
 * The steps a re-run of a failed build runs (AwaitRerun, RerunSteps): those of `steps` that did not
 * succeed, in their order, each needing only the steps that run again with it. A need that
 * succeeded is met already: its output is in the kept workspace and its pod is gone, so waiting
 * for it would wait for ever. `needed` and `awaits` follow: a step nothing re-run needs leaves no pod behind, and an approval
 * given (FinishApproval records it as FinishStep records a step) is not asked again.
 * Pure.
 */
export function rerunPlan(steps: readonly Step[], succeeded: ReadonlySet<string>): Step[] {
  const rerun = steps.filter((step) => !succeeded.has(step.name));
  const names = new Set(rerun.map((step) => step.name));
  const neededAgain = new Set(rerun.flatMap((step) => (step.needs ?? []).filter((need) => names.has(need))));
  return rerun.map((step) => {
    const { needed: _needed, needs, awaits, ...rest } = step;
    const awaitsAgain = (awaits ?? []).filter((need) => names.has(need));
    return {
      ...rest,
      ...(needs !== undefined ? { needs: needs.filter((need) => names.has(need)) } : {}),
      ...(awaitsAgain.length > 0 ? { awaits: awaitsAgain } : {}),
      ...(neededAgain.has(step.name) ? { needed: true as const } : {}),
    };
  });
}
