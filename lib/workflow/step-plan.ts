/**
 * Which of a pipeline's steps a build runs, in what order, and after which others: decided once,
 * by PrepareBuild, from the delivery (`when`) and the steps' `needs`. Pure.
 */
import type { BuildChanges } from '../contract/index.js';
import { CHECKOUT_STEP, pathsSkipReason, resolveNeeds, runOrder, runsAfterFailure, runsSideBySide, skipReason, type BuildFacts, type PathFilter, type Step } from '../pipeline/index.js';
import type { SkippedStep } from './state-data.js';

export interface StepPlan {
  /**
   * The steps that run, each after the steps it needs. Without `needs` in the file: the file's
   * order, one at a time, and no step carries `needs`. With it: every step says what it needs
   * (`checkout` for those that need nothing else; `[]` when there is no checkout step either),
   * and a step another one needs says `needed`.
   */
  running: Step[];
  skipped: SkippedStep[];
  /** The steps that run only once the build has failed (`when: {status: [failure]}`), in the file's order, without `when`. */
  afterFailure: Step[];
  /** Whether the steps may run side by side (the file says `needs`). */
  parallel: boolean;
  /** Whether any step needs the checkout step (named `checkout`) as such. */
  checkoutNeeded: boolean;
}

/** What `when.paths` is decided from: the build's change, and the pipeline's own filter. */
export interface ChangedPaths {
  changes?: BuildChanges | undefined;
  pipeline?: PathFilter | undefined;
}

/**
 * A step whose `when` does not hold is skipped, and so is a step that names a skipped step in
 * its `needs`. A step that only followed a skipped one (no `needs`) runs after what that one
 * would have run after. `checkout`: the build's checkout step, when it is a step of its own.
 * `when.paths` (the pipeline's, then the step's) is one more condition of the step's, so a step
 * it skips is skipped as a branch would skip it, the steps that need it with it.
 */
export function planSteps(steps: readonly Step[], build: BuildFacts, checkout?: string, paths: ChangedPaths = {}): StepPlan {
  const parallel = runsSideBySide(steps);
  const raw = resolveNeeds(steps);
  const byName = new Map(steps.map((step, index) => [step.name, index]));
  const skipWhy = new Map<string, string>();
  // Each step's needs among the steps that run, skipped ones resolved through their own.
  const effective = new Map<string, string[]>();
  // Neither skipped steps nor those that run after a failure are in the way of the others.
  const outOfFlow = (name: string) => skipWhy.has(name) || (byName.has(name) && runsAfterFailure(steps[byName.get(name)!]!.when));
  for (const index of runOrder(steps, raw)) {
    const step = steps[index]!;
    const own = skipReason(step.when, build) ?? pathsSkipReason(paths.pipeline, paths.changes, "the pipeline's when") ?? pathsSkipReason(step.when, paths.changes);
    const explicitSkipped = (step.needs ?? []).find((need) => skipWhy.has(need));
    if (own !== undefined) skipWhy.set(step.name, own);
    else if (explicitSkipped !== undefined) skipWhy.set(step.name, `it needs "${explicitSkipped}", which is skipped`);
    const through = raw[index]!.flatMap((need) => (outOfFlow(need) && byName.has(need) ? (effective.get(need) ?? []) : [need]));
    effective.set(step.name, [...new Set(through)]);
  }
  const skipped = steps.flatMap((step, index) => (skipWhy.has(step.name) ? [{ name: step.name, index, reason: skipWhy.get(step.name)! }] : []));
  const afterFailure = steps.filter((step) => !skipWhy.has(step.name) && runsAfterFailure(step.when)).map(withoutCondition);
  const kept = steps.filter((step) => !outOfFlow(step.name));
  if (!parallel) return { running: kept.map(withoutCondition), skipped, afterFailure, parallel, checkoutNeeded: false };

  const needsOf = (step: Step) => {
    // `clone` in a file's needs is the checkout, whether or not it is a step of its own here.
    const needs = effective.get(step.name)!.filter((need) => need !== CHECKOUT_STEP && need !== checkout);
    return needs.length > 0 || checkout === undefined ? needs : [checkout];
  };
  const resolved = kept.map((step) => ({ step, needs: needsOf(step) }));
  const needed = new Set(resolved.flatMap(({ needs }) => needs));
  const approvals = new Set(kept.flatMap((step) => (step.approval ? [step.name] : [])));
  // The approvals a step waits for, directly or through the steps it needs: all of them before it
  // waits for a pod, or it would look for as long as an approval before it takes.
  const needsByName = new Map(resolved.map(({ step, needs }) => [step.name, needs]));
  const awaitedApprovals = (name: string, seen = new Set<string>()): string[] => {
    const found: string[] = [];
    for (const need of needsByName.get(name) ?? []) {
      if (seen.has(need)) continue;
      seen.add(need);
      if (approvals.has(need)) found.push(need);
      found.push(...awaitedApprovals(need, seen));
    }
    return [...new Set(found)];
  };
  const order = runOrder(resolved.map(({ step, needs }) => ({ name: step.name, needs })), resolved.map(({ needs }) => needs));
  const planned = order.map((index) => {
    const { step, needs } = resolved[index]!;
    // `needs: []` (no checkout step to wait for): it starts as soon as its iteration does.
    const kept = needed.has(step.name);
    const awaits = awaitedApprovals(step.name);
    return { ...withoutCondition(step), needs, ...(kept ? { needed: true as const } : {}), ...(awaits.length > 0 ? { awaits } : {}) };
  });
  // The steps that wait for an approval last: iterations take the Map's slots (max-parallel) in
  // order and hold them while they wait, so the steps that need no approval start first and run on
  // while it waits. Still after their needs: a step that needs one that awaits an approval awaits it too.
  const running = [...planned.filter((step) => !step.awaits), ...planned.filter((step) => step.awaits)];
  return { running, skipped, afterFailure, parallel, checkoutNeeded: checkout !== undefined && needed.has(checkout) };
}

/** `when` is decided here; the state data stays small without it. */
function withoutCondition(step: Step): Step {
  const { when: _when, ...rest } = step;
  return rest;
}
