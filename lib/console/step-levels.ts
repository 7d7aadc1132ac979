/**
 * Which steps of a build the page draws side by side: each step's depth in the needs graph (the
 * longest chain of needs before it), so the steps that may run at the same time share a row and
 * each row comes after every step its steps need. Pure, and no HTML: step-list.ts draws the rows.
 */

export interface LeveledStep {
  name: string;
  /**
   * The steps it starts after. Undefined: it follows the entry above it, as every step of a
   * sequential pipeline does, and as a skipped step is drawn (the state data keeps no needs for it).
   */
  needs?: readonly string[];
}

/**
 * Row d holds the positions (in `steps`) of the steps at depth d, in their given order. A name in
 * `needs` that is not among `steps` counts as met from the start (e.g. a checkout not listed).
 */
export function needsLevels(steps: readonly LeveledStep[]): number[][] {
  const byName = new Map(steps.map((step, position) => [step.name, position]));
  const depths: number[] = [];
  const visiting = new Set<number>();
  const depthOf = (position: number): number => {
    const known = depths[position];
    if (known !== undefined) return known;
    // Cycles are rejected before a build starts; a page must still not loop on a damaged history.
    if (visiting.has(position)) return 0;
    visiting.add(position);
    const needs = steps[position]!.needs;
    const before =
      needs === undefined
        ? position > 0
          ? [position - 1]
          : []
        : needs.flatMap((name) => {
            const found = byName.get(name);
            return found === undefined || found === position ? [] : [found];
          });
    const depth = before.length === 0 ? 0 : 1 + Math.max(...before.map(depthOf));
    visiting.delete(position);
    return (depths[position] = depth);
  };
  const levels: number[][] = [];
  steps.forEach((_, position) => (levels[depthOf(position)] ??= []).push(position));
  // Depths are contiguous (a step at depth d needs one at d - 1), but a sparse array would be a bug to draw.
  return levels.filter((level) => level !== undefined);
}

/** Whether the steps say what they need: then the page draws rows; else today's single column. */
export function usesNeeds(steps: readonly LeveledStep[]): boolean {
  return steps.some((step) => step.needs !== undefined);
}
