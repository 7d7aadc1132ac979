/**
 * `needs`: which steps a step starts after. Pure.
 *
 * A step without `needs` starts after the step above it, so a file that never says `needs` runs
 * its steps one at a time, in order, as it always did. `needs: [a, b]` replaces that with exactly
 * those steps, and `needs: []` starts the step with the build (after the checkout, which every
 * step needs: the workspace holds the source).
 */
import { suggestKey } from './suggest.js';

/**
 * A step as the rules see it: its name and its `needs` as written (absent: the step above), and
 * the step of the file it is a combination of, when a `matrix` made it.
 */
export interface NeedsOf {
  name: string;
  needs?: readonly string[];
  matrix?: { of: string };
}

/** A problem with one step's `needs`; `entry` is the position in its list, when one entry is wrong. */
export interface NeedsProblem {
  step: number;
  entry?: number;
  message: string;
}

/** Whether any step says `needs`, or is a matrix's: only then may steps run side by side. */
export function runsSideBySide(steps: readonly NeedsOf[]): boolean {
  return steps.some((step) => step.needs !== undefined || step.matrix !== undefined);
}

/**
 * Unknown names, a step needing itself, a name listed twice, and cycles. `checkout`: the name of
 * the checkout step, which a step may name although it is no step of the file.
 */
export function needsProblems(steps: readonly NeedsOf[], checkout?: string): NeedsProblem[] {
  const names = steps.map((step) => step.name);
  const known = new Set(names);
  const problems: NeedsProblem[] = [];
  steps.forEach((step, index) => {
    const seen = new Set<string>();
    (step.needs ?? []).forEach((need, entry) => {
      if (need === step.name) {
        problems.push({ step: index, entry, message: `"${need}" is this step itself: a step cannot wait for itself` });
      } else if (seen.has(need)) {
        problems.push({ step: index, entry, message: `"${need}" is listed twice` });
      } else if (!known.has(need) && need !== checkout) {
        const suggestion = suggestKey(need, names);
        problems.push({
          step: index,
          entry,
          message: `no step is named "${need}"` + (suggestion ? ` (did you mean "${suggestion}"?)` : names.length > 0 ? ` (the steps are: ${names.join(', ')})` : ''),
        });
      }
      seen.add(need);
    });
  });
  if (problems.length > 0) return problems;
  const cycle = findCycle(steps);
  if (cycle) {
    const spelled = cycle.map((index, i) => {
      const next = `"${names[cycle[(i + 1) % cycle.length]!]}"`;
      return steps[index]!.needs === undefined ? `"${names[index]}" comes after ${next} (no needs: the step above it)` : `"${names[index]}" needs ${next}`;
    });
    problems.push({
      step: cycle[0]!,
      message: `the steps wait for each other in a circle, so none of them could start: ${spelled.join(', ')}`,
    });
  }
  return problems;
}

/**
 * Each step's needs as names, `needs` or else the step above; the first step, and a step with
 * `needs: []`, need only `first` (the checkout) when there is one. Names outside `steps` (a skipped
 * step, the checkout) are kept: the caller decides what they mean.
 */
export function resolveNeeds(steps: readonly NeedsOf[], first?: string): string[][] {
  return steps.map((step, index) => {
    const needs = step.needs ?? stepAbove(steps, index);
    const own = needs.filter((need) => need !== first);
    // A step that needs another needs the checkout through it.
    return first === undefined || own.length > 0 ? [...own] : [first];
  });
}

/**
 * What a step without `needs` comes after: the step above it, or every combination of the matrix
 * above it; a matrix's own combinations all come after what is above the first of them.
 */
function stepAbove(steps: readonly NeedsOf[], index: number): string[] {
  const own = steps[index]!.matrix?.of;
  let above = index - 1;
  while (above >= 0 && own !== undefined && steps[above]!.matrix?.of === own) above--;
  if (above < 0) return [];
  const matrix = steps[above]!.matrix?.of;
  return matrix === undefined ? [steps[above]!.name] : steps.filter((step) => step.matrix?.of === matrix).map((step) => step.name);
}

/**
 * An order in which every step comes after the steps it needs: the file's order wherever the
 * needs allow (a step that needs one further down moves just below it). Throws on a cycle, which
 * needsProblems reports first.
 */
export function runOrder(steps: readonly NeedsOf[], needs: readonly (readonly string[])[]): number[] {
  const indexOf = new Map(steps.map((step, index) => [step.name, index]));
  const waitingOn = needs.map((list) => new Set(list.filter((name) => indexOf.has(name))));
  const order: number[] = [];
  const done = new Set<string>();
  while (order.length < steps.length) {
    const next = steps.findIndex((step, index) => !done.has(step.name) && [...waitingOn[index]!].every((name) => done.has(name)));
    if (next < 0) throw new Error('the steps\' needs form a cycle');
    order.push(next);
    done.add(steps[next]!.name);
  }
  return order;
}

/** The first cycle of `needs` found, as step indexes in the order each needs the next. */
function findCycle(steps: readonly NeedsOf[]): number[] | undefined {
  const indexOf = new Map(steps.map((step, index) => [step.name, index]));
  const needs = resolveNeeds(steps).map((list) => list.flatMap((name) => (indexOf.has(name) ? [indexOf.get(name)!] : [])));
  const state = new Array<'new' | 'open' | 'done'>(steps.length).fill('new');
  const path: number[] = [];
  const visit = (index: number): number[] | undefined => {
    state[index] = 'open';
    path.push(index);
    for (const need of needs[index]!) {
      if (state[need] === 'open') return path.slice(path.indexOf(need));
      if (state[need] === 'new') {
        const found = visit(need);
        if (found) return found;
      }
    }
    path.pop();
    state[index] = 'done';
    return undefined;
  };
  for (let index = 0; index < steps.length; index++) {
    if (state[index] !== 'new') continue;
    const found = visit(index);
    if (found) return found;
  }
  return undefined;
}
