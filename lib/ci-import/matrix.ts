/**
 * Matrices (GitHub's `strategy.matrix`, GitLab's `parallel: matrix`) as a step's `matrix:`
 * (docs/pipeline.md#matrices): axes, `include` and `exclude` as GitHub spells them, every value
 * text, every name an environment variable's. What cannot be said so (a matrix given as an
 * expression, a value that is a map, GitLab entries with several combinations each) is written
 * for its first combination and listed, as before.
 */
import { MAX_MATRIX_EXPANSIONS, expandMatrix } from '../pipeline/index.js';
import { listOf, mapOf, textOf } from './source.js';
import type { DraftMatrix, Unconverted } from './types.js';

export interface Combination {
  /** Each axis's value in the written combination. */
  values: Record<string, string>;
  /** Each axis's values, as listed. */
  axes: Record<string, string[]>;
  /** `include` / `exclude` lists were given. */
  adjusted: string[];
}

/** A matrix as the step's `matrix:`, and the source's names of its variables. */
export interface ConvertedMatrix {
  matrix: DraftMatrix;
  /** Source name -> the variable's (`node-version` -> `node_version`). */
  names: Record<string, string>;
  /** Notes for the step (a renamed axis). */
  notes: string[];
}

const AXIS_VALUE = (value: unknown) => textOf(value) ?? JSON.stringify(value);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

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

/** `node-version` -> `node_version`: a name the step's environment can hold. */
function envNameOf(name: string): string {
  const replaced = name.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[0-9]/.test(replaced) ? `_${replaced}` : replaced;
}

/** A YAML scalar as text; a list or a map is no variable's value. */
function scalarText(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

/**
 * GitHub's `strategy.matrix` map as a step's `matrix:`, its names made environment variables'
 * (renamed consistently in axes, include and exclude), or why it cannot be.
 */
export function convertGitHubMatrix(matrix: Record<string, unknown>): ConvertedMatrix | { reason: string } {
  const names: Record<string, string> = {};
  const nameOf = (name: string) => (names[name] ??= envNameOf(name));
  const axes: Record<string, string[]> = {};
  for (const [axis, values] of Object.entries(matrix)) {
    if (axis === 'include' || axis === 'exclude') continue;
    if (!Array.isArray(values)) return { reason: `axis ${axis} is not a list of values (${textOf(values) ?? JSON.stringify(values)})` };
    const texts = values.map(scalarText);
    if (texts.some((text) => text === undefined)) return { reason: `axis ${axis} has a value that is a list or a map: a value here is text, an environment variable` };
    if (values.length === 0) return { reason: `axis ${axis} lists no value` };
    axes[nameOf(axis)] = texts as string[];
  }
  const lists: Partial<Record<'include' | 'exclude', Record<string, string>[]>> = {};
  for (const key of ['include', 'exclude'] as const) {
    if (matrix[key] === undefined) continue;
    if (!Array.isArray(matrix[key])) return { reason: `${key} is not a list of entries (${textOf(matrix[key]) ?? ''})` };
    const entries: Record<string, string>[] = [];
    for (const raw of matrix[key] as unknown[]) {
      const entry: Record<string, string> = {};
      for (const [name, value] of Object.entries(mapOf(raw))) {
        const text = scalarText(value);
        if (text === undefined) return { reason: `${key} entry ${name} is a list or a map: a value here is text, an environment variable` };
        entry[nameOf(name)] = text;
      }
      if (Object.keys(entry).length > 0) entries.push(entry);
    }
    lists[key] = entries;
  }
  const problem = matrixProblem(axes, lists.include ?? [], lists.exclude ?? []);
  if (problem) return { reason: problem };
  const renamed = Object.entries(names).filter(([from, to]) => from !== to);
  const targets = Object.values(names);
  if (new Set(targets).size < targets.length) return { reason: `its names ${Object.keys(names).join(', ')} make the same environment variable names once renamed` };
  if (Object.keys(axes).length === 0 && (lists.include ?? []).length === 0) return { reason: 'it has no axis and no include entry' };
  return {
    matrix: { ...axes, ...(lists.include ? { include: lists.include } : {}), ...(lists.exclude ? { exclude: lists.exclude } : {}) },
    names,
    notes: renamed.length === 0 ? [] : [`matrix ${renamed.map(([from, to]) => `${from} is ${to}`).join(', ')}: each value is an environment variable of the step, and a variable's name has only letters, digits and _`],
  };
}

/**
 * GitLab's `parallel: matrix` entries as a step's `matrix:`: one entry's variables are the axes;
 * several entries are `include` entries when each is one combination (every variable one value).
 * Anything else (several entries, one of which lists values) has no such spelling.
 */
export function convertGitLabMatrix(entries: readonly unknown[]): ConvertedMatrix | { reason: string } {
  const maps = entries.map(mapOf);
  const names: Record<string, string> = {};
  for (const map of maps) {
    for (const [name, value] of Object.entries(map)) {
      if (!ENV_NAME.test(name)) return { reason: `${name} is no environment variable's name` };
      const values = Array.isArray(value) ? value : [value];
      if (values.length === 0 || values.some((item) => scalarText(item) === undefined)) return { reason: `${name} is not a value or a list of values` };
      names[name] = name;
    }
  }
  if (maps.length === 1) {
    const axes = Object.fromEntries(Object.entries(maps[0]!).map(([name, value]) => [name, (Array.isArray(value) ? value : [value]).map((item) => scalarText(item)!)]));
    const problem = matrixProblem(axes, [], []);
    return problem ? { reason: problem } : { matrix: axes, names, notes: [] };
  }
  if (maps.some((map) => Object.values(map).some((value) => Array.isArray(value) && value.length > 1))) {
    return { reason: 'several entries, some listing more than one value: `matrix:` here has one set of axes (and include entries of one combination each)' };
  }
  const include = maps.map((map) => Object.fromEntries(Object.entries(map).map(([name, value]) => [name, scalarText(Array.isArray(value) ? value[0] : value)!])));
  return { matrix: { include }, names, notes: [] };
}

/** What the pipeline would refuse of a matrix that reads well (lib/pipeline/matrix.ts): a value twice in an axis, no combination, too many. */
function matrixProblem(axes: Record<string, string[]>, include: Record<string, string>[], exclude: Record<string, string>[]): string | undefined {
  const twice = Object.entries(axes).find(([, values]) => new Set(values).size < values.length);
  if (twice) return `axis ${twice[0]} lists a value twice`;
  const count = expandMatrix({ axes: Object.entries(axes), include, exclude }).length;
  if (count === 0) return 'every combination is excluded';
  if (count > MAX_MATRIX_EXPANSIONS) return `${count} combinations, more than the ${MAX_MATRIX_EXPANSIONS} a step's matrix may make`;
  return undefined;
}

/** The matrix as one unconverted part (nothing when there is no axis). */
export function matrixUnconverted(combination: Combination, line: number, key: string, why: string): Unconverted[] {
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
      instead: `not a step's \`matrix:\` (${why}): written for ${written} only; write the step's \`matrix:\` yourself, or copy the step once per other value${others.length > 0 ? ` (${others.join('; ')})` : ''}${adjusted}`,
    },
  ];
}
