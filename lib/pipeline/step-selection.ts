/**
 * `run --step NAME`: a build of some of a pipeline's steps, the ones asked for and, unless told
 * otherwise, every step they need (through `needs`, or the step above for a step without). Pure:
 * the steps left out are returned with the reason the build lists them as skipped.
 */
import { resolveNeeds, runsSideBySide, type NeedsOf } from './needs.js';
import { suggestKey } from './suggest.js';
import { CHECKOUT_STEP } from './types.js';

/** Which steps a build runs: `steps` by name, and with `needs` what they need, transitively. */
export interface StepSelection {
  steps: readonly string[];
  /** False (`--no-needs`): a step whose needs are left out runs as if they had succeeded. */
  needs: boolean;
}

export const NOT_ASKED_FOR = 'not asked for (--step)';

/** A name asked for that is no step of the pipeline. */
export class UnknownStep extends Error {
  override readonly name = 'UnknownStep';
  constructor(
    readonly unknown: readonly string[],
    readonly known: readonly string[],
  ) {
    const hints = unknown.map((name) => {
      const suggestion = suggestKey(name, known);
      return suggestion ? `"${name}" (did you mean "${suggestion}"?)` : `"${name}"`;
    });
    super(`no step is named ${hints.join(', ')}; the steps are: ${known.join(', ') || '(none)'}`);
  }
}

export interface SelectedSteps<S> {
  /** The steps that stay, in the file's order; in a file that says `needs`, each says all it needs. */
  steps: S[];
  /** Each kept step's index in the original list. */
  kept: number[];
  /** The others, with their index in the original list. */
  leftOut: { name: string; index: number; reason: string }[];
}

/** Throws UnknownStep for a name that is no step; the checkout is no step of the file, and always stays. */
export function selectSteps<S extends NeedsOf>(steps: readonly S[], selection: StepSelection): SelectedSteps<S> {
  const names = steps.map((step) => step.name);
  // A matrix's step of the file, by its own name: every combination of it.
  const asked = selection.steps.flatMap((name) => (names.includes(name) ? [name] : steps.filter((step) => step.matrix?.of === name).map((step) => step.name)));
  const unknown = [...new Set(selection.steps.filter((name) => !names.includes(name) && !steps.some((step) => step.matrix?.of === name)))];
  if (unknown.length > 0) throw new UnknownStep(unknown, names);
  const resolved = resolveNeeds(steps);
  const indexOf = new Map(names.map((name, index) => [name, index]));
  const wanted = new Set(asked);
  if (selection.needs) {
    const queue = [...wanted];
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      for (const need of resolved[indexOf.get(name)!] ?? []) {
        if (indexOf.has(need) && !wanted.has(need)) {
          wanted.add(need);
          queue.push(need);
        }
      }
    }
  }
  // Spelled out, a step's needs no longer depend on which step is above it once others are gone.
  const explicit = runsSideBySide(steps);
  const kept: number[] = [];
  const leftOut: SelectedSteps<S>['leftOut'] = [];
  const selected: S[] = [];
  steps.forEach((step, index) => {
    if (!wanted.has(step.name)) {
      leftOut.push({ name: step.name, index, reason: NOT_ASKED_FOR });
      return;
    }
    kept.push(index);
    const needs = resolved[index]!.filter((need) => wanted.has(need) || need === CHECKOUT_STEP);
    selected.push(explicit ? { ...step, needs } : step);
  });
  return { steps: selected, kept, leftOut };
}
