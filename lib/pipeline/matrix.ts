/**
 * `matrix:` on a step: its axes (each a list of values) and `include` and `exclude` entries, as
 * GitHub Actions' `jobs.<job_id>.strategy.matrix`, turned into the combinations the step runs
 * once each. Pure.
 *
 * The combinations follow GitHub's documented rules ("Running variations of jobs in a workflow",
 * https://docs.github.com/en/actions/how-tos/write-workflows/choose-what-workflows-do/run-job-variations,
 * formerly "Using a matrix for your jobs"), table-tested with its own examples in matrix.test.ts:
 * - the axes' product, each combination in the order the axes are written, the first axis
 *   varying slowest ({version: 10, os: ubuntu}, {version: 10, os: windows}, {version: 12, ...});
 * - `exclude` first: "An excluded configuration only has to be a partial match for it to be
 *   excluded", and "All include combinations are processed after exclude";
 * - then each `include` entry, in order: "the key:value pairs in the object will be added to each
 *   of the matrix combinations if none of the key:value pairs overwrite any of the original
 *   matrix values. If the object cannot be added to any of the matrix combinations, a new matrix
 *   combination will be created instead. Note that the original matrix values will not be
 *   overwritten, but added matrix values can be overwritten." A combination an include created
 *   is not one an entry after it is added to (the docs' `fruit: banana` then `fruit: banana,
 *   animal: cat` make two jobs), and a matrix of `include` alone has one combination per entry.
 *
 * Values are text: each becomes an environment variable of the step, as in GitLab's
 * `parallel:matrix` and Woodpecker; so a value is a YAML scalar (kept as written, `1.10` stays
 * "1.10"), not a list or a map, which GitHub's expressions could read but a variable cannot hold.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { dnsLabelProblem, envNameProblem } from './names.js';

/** What GitHub Actions allows one matrix, as Tekton does: the most steps one `matrix` may expand to. */
export const MAX_MATRIX_EXPANSIONS = 256;

/** The keys of a `matrix` map that are no axis. */
export const MATRIX_LISTS = ['include', 'exclude'] as const;

/** One combination: each variable's value, in the order the axes (then the includes' own keys) came. */
export type MatrixValues = Record<string, string>;

/** A `matrix:` as the schema lets it through. */
export interface MatrixInput {
  /** The axes in the file's order; each has at least one value. */
  axes: [string, string[]][];
  include: MatrixValues[];
  exclude: MatrixValues[];
}

/** Every combination, in GitHub's order: the product less the excluded ones, then the includes' new ones. */
export function expandMatrix(matrix: MatrixInput): MatrixValues[] {
  const product = matrix.axes.length === 0 ? [] : matrix.axes.reduce<MatrixValues[]>((combinations, [axis, values]) => combinations.flatMap((combination) => values.map((value) => ({ ...combination, [axis]: value }))), [{}]);
  const kept = product.filter((combination) => !matrix.exclude.some((entry) => matches(combination, entry)));
  const original = new Set(matrix.axes.map(([axis]) => axis));
  const combinations = kept.map((combination) => ({ ...combination }));
  const added: MatrixValues[] = [];
  for (const entry of matrix.include) {
    // Added to every combination whose original values it does not change; its other keys may overwrite what an earlier include added.
    const fits = combinations.filter((combination) => Object.entries(entry).every(([key, value]) => !original.has(key) || combination[key] === value));
    for (const combination of fits) Object.assign(combination, entry);
    if (fits.length === 0) added.push({ ...entry });
  }
  return [...combinations, ...added];
}

function matches(combination: MatrixValues, entry: MatrixValues): boolean {
  return Object.entries(entry).every(([key, value]) => combination[key] === value);
}

/** How a combination reads where people look: `test (node=18, os=linux)`. */
export function matrixTitle(step: string, values: MatrixValues): string {
  return `${step} (${Object.entries(values).map(([key, value]) => `${key}=${value}`).join(', ')})`;
}

/** Longest a step's name may be: a DNS-1123 label. */
const LABEL_MAX = 63;
const HASH_LENGTH = 8;

/**
 * Each combination's step name, a DNS-1123 label (names.ts) as every step's is: the step's name,
 * then each variable and its value, lower-cased, anything but a letter or digit made `-`
 * (`test-node-18-os-linux`). One too long for a label, or the same as another step's (`taken`)
 * or another combination's, is cut and ends in a hash of the combination instead
 * (`test-node-18-os-ubuntu-22-04-arch-a-1b2c3d4e`), so every name stays unique and the same from
 * build to build.
 */
export function expansionNames(step: string, combinations: readonly MatrixValues[], taken: ReadonlySet<string>): string[] {
  const readable = combinations.map((values) => labelOf([step, ...Object.entries(values).flat()].join('-')));
  const count = new Map<string, number>();
  for (const name of readable) count.set(name, (count.get(name) ?? 0) + 1);
  return readable.map((name, index) => {
    if (name.length <= LABEL_MAX && count.get(name) === 1 && !taken.has(name) && dnsLabelProblem(name) === undefined) return name;
    const hash = createHash('sha256').update(JSON.stringify([step, Object.entries(combinations[index]!)])).digest('hex').slice(0, HASH_LENGTH);
    return `${name.slice(0, LABEL_MAX - HASH_LENGTH - 1).replace(/-+$/, '')}-${hash}`;
  });
}

function labelOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `image` as the schema lets it through when it is written with `${{ matrix.NAME }}`: read per combination (matrix-steps.ts). */
export interface ImageTemplate {
  template: string;
}

/** `${{ matrix.NAME }}` in a step's `image`, GitHub's spelling: the one place a value is written into the file. */
const PLACEHOLDER = /\$\{\{\s*([^}]*?)\s*\}\}/g;
const MATRIX_REFERENCE = /^matrix\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** Whether an image is written with placeholders, to be read once per combination. */
export function isImageTemplate(image: string): boolean {
  return image.includes('${{');
}

/** The variables an image template (or a build's text) names, or what is wrong with it (anything but `${{ matrix.NAME }}`, a `${{` left open). */
export function templateVariables(image: string, into = 'an image'): { ok: true; names: string[] } | { ok: false; reason: string } {
  const names: string[] = [];
  for (const [, inside] of image.matchAll(PLACEHOLDER)) {
    const name = MATRIX_REFERENCE.exec(inside ?? '')?.[1];
    if (name === undefined) return { ok: false, reason: `"\${{ ${inside} }}": only a matrix value, "\${{ matrix.NAME }}", can be written into ${into}` };
    names.push(name);
  }
  if (image.replace(PLACEHOLDER, '').includes('${{')) return { ok: false, reason: 'a "${{" is not closed by "}}"' };
  return { ok: true, names };
}

/** The image for one combination; every name is known (templateVariables said so). */
export function fillImage(image: string, values: MatrixValues): string {
  return image.replace(PLACEHOLDER, (_, inside: string) => values[MATRIX_REFERENCE.exec(inside)![1]!] ?? '');
}

type Describe = (value: unknown) => string;
type Problem = { path: (string | number)[]; message: string };

/**
 * The schema of a step's `matrix:`: a map of axes (`NAME: [values]`) with `include` and `exclude`
 * lists of `NAME: value` maps beside them. The schema's rules are those of each part alone (a
 * name, a value, an exclude naming an axis, at most MAX_MATRIX_EXPANSIONS combinations); what
 * relates it to the rest of the step (its env, its image) is expandSteps'.
 */
export function matrixSchema(describe: Describe) {
  return z.unknown().transform((value, ctx): MatrixInput => {
    const problems: Problem[] = [];
    const matrix = readMatrix(value, describe, problems);
    if (matrix && problems.length === 0) {
      const count = expandMatrix(matrix).length;
      if (count === 0) problems.push({ path: [], message: 'expands to no step at all: every combination is excluded' });
      else if (count > MAX_MATRIX_EXPANSIONS) {
        problems.push({ path: [], message: `expands to ${count} steps; at most ${MAX_MATRIX_EXPANSIONS} are allowed (as GitHub Actions allows one matrix): use fewer values, or exclude some combinations` });
      }
    }
    for (const problem of problems) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
    return problems.length === 0 && matrix ? matrix : z.NEVER;
  });
}

function readMatrix(value: unknown, describe: Describe, problems: Problem[]): MatrixInput | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push({ path: [], message: `must be a map of axes (NAME: [values]), with include and/or exclude beside them, not ${describe(value)}` });
    return undefined;
  }
  const axes: [string, string[]][] = [];
  for (const [name, values] of Object.entries(value)) {
    if ((MATRIX_LISTS as readonly string[]).includes(name)) continue;
    const nameProblem = envNameProblem(name);
    if (nameProblem) problems.push({ path: [name], message: `${nameProblem} (each axis reaches the step as an environment variable of its name)` });
    if (!Array.isArray(values)) {
      problems.push({ path: [name], message: `must be a list of values, not ${describe(values)}` });
      continue;
    }
    if (values.length === 0) problems.push({ path: [name], message: 'must list at least one value' });
    const texts = values.map((item: unknown, index) => scalar(item, [name, index], describe, problems));
    texts.forEach((text, index) => {
      if (text !== undefined && texts.indexOf(text) !== index) problems.push({ path: [name, index], message: `${JSON.stringify(text)} is listed twice` });
    });
    axes.push([name, texts.filter((text): text is string => text !== undefined)]);
  }
  const record = value as Record<string, unknown>;
  const include = entries(record['include'], 'include', describe, problems);
  const exclude = entries(record['exclude'], 'exclude', describe, problems);
  const names = new Set(axes.map(([axis]) => axis));
  exclude.forEach((entry, index) => {
    for (const key of Object.keys(entry)) {
      // GitHub refuses these too ("Matrix exclude key ... does not match any key within the matrix"): such an entry would exclude nothing.
      if (!names.has(key)) problems.push({ path: ['exclude', index, key], message: `"${key}" is no axis of the matrix (${[...names].join(', ') || 'it has none'}), so this would exclude nothing` });
    }
  });
  if (axes.length === 0 && include.length === 0) problems.push({ path: [], message: 'must have at least one axis (NAME: [values]) or an include entry' });
  return { axes, include, exclude };
}

function entries(value: unknown, list: string, describe: Describe, problems: Problem[]): MatrixValues[] {
  if (value === undefined) return [];
  const what = `a list of maps of NAME: value (each ${list === 'include' ? 'a combination to add, or values to add to the combinations it matches' : 'the values of the combinations to leave out'})`;
  if (!Array.isArray(value)) {
    problems.push({ path: [list], message: `must be ${what}, not ${describe(value)}` });
    return [];
  }
  return value.flatMap((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || Object.keys(entry).length === 0) {
      problems.push({ path: [list, index], message: `each entry must be a map of NAME: value, not ${describe(entry)}` });
      return [];
    }
    const values: MatrixValues = {};
    for (const [name, item] of Object.entries(entry)) {
      const nameProblem = envNameProblem(name);
      if (nameProblem) problems.push({ path: [list, index, name], message: nameProblem });
      const text = scalar(item, [list, index, name], describe, problems);
      if (text !== undefined) values[name] = text;
    }
    return [values];
  });
}

/** A value is text; YAML's numbers and booleans as written (the loader keeps their source). */
function scalar(value: unknown, path: (string | number)[], describe: Describe, problems: Problem[]): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  problems.push({ path, message: `must be text (a value becomes an environment variable), not ${describe(value)}` });
  return undefined;
}
