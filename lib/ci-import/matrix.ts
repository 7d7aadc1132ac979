/**
 * Matrices (GitHub's `strategy.matrix`, GitLab's `parallel: matrix`): the pipeline has no `matrix`
 * key yet (lib/pipeline), so the step is written for the first combination and the others are
 * listed, for a person to copy the step once per value.
 */
import { listOf, mapOf, textOf } from './source.js';
import type { Unconverted } from './types.js';

export interface Combination {
  /** Each axis's value in the written combination. */
  values: Record<string, string>;
  /** Each axis's values, as listed. */
  axes: Record<string, string[]>;
  /** `include` / `exclude` lists were given. */
  adjusted: string[];
}

const AXIS_VALUE = (value: unknown) => textOf(value) ?? JSON.stringify(value);

/** The axes of one matrix map (include/exclude apart), and their first values. */
export function firstCombination(matrix: Record<string, unknown>): Combination {
  const axes: Record<string, string[]> = {};
  for (const [axis, values] of Object.entries(matrix)) {
    if (axis === 'include' || axis === 'exclude') continue;
    axes[axis] = listOf(values).map(AXIS_VALUE);
  }
  const adjusted = ['include', 'exclude'].filter((key) => matrix[key] !== undefined);
  // A matrix of `include` entries only runs each entry: the first is the one written.
  const included = Object.keys(axes).length === 0 ? mapOf(listOf(matrix.include)[0]) : {};
  const values = Object.fromEntries([...Object.entries(axes).map(([axis, list]) => [axis, list[0] ?? '']), ...Object.entries(included).map(([key, value]) => [key, AXIS_VALUE(value)])]);
  return { values, axes, adjusted };
}

/** The matrix as one unconverted part (nothing when there is no axis). */
export function matrixUnconverted(combination: Combination, line: number, key: string): Unconverted[] {
  const axes = Object.entries(combination.axes);
  // One value per axis is no matrix: the step written is the only one it makes.
  if (combination.adjusted.length === 0 && axes.every(([, values]) => values.length <= 1)) return [];
  const listed = axes.map(([axis, values]) => `${axis} [${values.join(', ')}]`).join(', ');
  const written = Object.entries(combination.values).map(([axis, value]) => `${axis}=${value}`).join(', ');
  const others = axes.filter(([, values]) => values.length > 1).map(([axis, values]) => `${axis} ${values.slice(1).join(', ')}`);
  const adjusted = combination.adjusted.length > 0 ? `; apply its ${combination.adjusted.join(' and ')} to the copies` : '';
  return [
    {
      line,
      what: `${key} ${listed || '(include)'}`,
      instead: `no matrix here yet: written for ${written} only; copy the step once per other value${others.length > 0 ? ` (${others.join('; ')})` : ''}, with the value in its name and where the step reads it${adjusted}`,
    },
  ];
}
