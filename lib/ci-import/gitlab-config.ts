/**
 * A `.gitlab-ci.yml` as GitLab reads it before running a job (docs.gitlab.com/ci/yaml/): `!reference`
 * tags resolved, `extends` merged (hashes deeply, anything else replaced, up to 11 levels), and the
 * `default:` keywords (or their old top-level spelling) under each job that does not say its own.
 */
import { listOf, mapOf, REFERENCE_KEY, textOf, textsOf, type SourcePath } from './source.js';
import type { Unconverted } from './types.js';

/** Keys of the file that are not jobs (docs.gitlab.com/ci/yaml/#global-keywords). */
export const GLOBAL_KEYS = ['default', 'include', 'stages', 'variables', 'workflow', 'image', 'services', 'cache', 'before_script', 'after_script', 'types', 'spec'];
/** The `default:` keywords a job inherits when it does not say its own. */
const DEFAULT_KEYS = ['image', 'services', 'cache', 'before_script', 'after_script', 'artifacts', 'timeout', 'retry', 'tags', 'interruptible', 'hooks', 'id_tokens'];
const MAX_EXTENDS_DEPTH = 11;

export interface ResolvedJob {
  name: string;
  config: Record<string, unknown>;
  /** For each key, where it was written (`[job, key]` in the file), for its line. */
  origin: Map<string, SourcePath>;
}

/** Replaces every `!reference [job, key, ...]` by what it names; one that names nothing is reported. */
export function resolveReferences(data: Record<string, unknown>, lineOf: (path: SourcePath) => number): { data: Record<string, unknown>; unconverted: Unconverted[] } {
  const unconverted: Unconverted[] = [];
  const walk = (value: unknown, path: (string | number)[], depth: number): unknown => {
    if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index], depth));
    if (typeof value !== 'object' || value === null) return value;
    const map = value as Record<string, unknown>;
    if (Object.keys(map).length === 1 && REFERENCE_KEY in map) {
      const target = textsOf(map[REFERENCE_KEY]);
      let found: unknown = data;
      for (const key of target) found = mapOf(found)[key];
      if (found === undefined || depth > 10) {
        unconverted.push({ line: lineOf(path), what: `!reference [${target.join(', ')}]`, instead: 'it names nothing in this file (an include\'s?): write what it stands for' });
        return undefined;
      }
      return walk(found, path, depth + 1);
    }
    return Object.fromEntries(Object.entries(map).map(([key, item]) => [key, walk(item, [...path, key], depth)]));
  };
  return { data: walk(data, [], 0) as Record<string, unknown>, unconverted };
}

/** GitLab's merge for `extends`: hashes merge key by key, the extending side winning; lists and scalars are replaced. */
function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = merged[key];
    const isHash = (item: unknown) => typeof item === 'object' && item !== null && !Array.isArray(item);
    merged[key] = isHash(below) && isHash(value) ? deepMerge(below as Record<string, unknown>, value as Record<string, unknown>) : value;
  }
  return merged;
}

/** One job with its `extends` chain merged; a name the file does not have is reported. */
export function resolveJob(data: Record<string, unknown>, name: string, lineOf: (path: SourcePath) => number, unconverted: Unconverted[]): ResolvedJob {
  const expand = (job: string, depth: number): { config: Record<string, unknown>; origin: Map<string, SourcePath> } => {
    const own = mapOf(data[job]);
    let config: Record<string, unknown> = {};
    const origin = new Map<string, SourcePath>();
    if (depth < MAX_EXTENDS_DEPTH) {
      for (const parent of textsOf(own.extends)) {
        if (data[parent] === undefined) {
          unconverted.push({ line: lineOf([job, 'extends']), what: `extends: ${parent}`, instead: 'not in this file (an include\'s?): write what it adds to the job' });
          continue;
        }
        const resolved = expand(parent, depth + 1);
        config = deepMerge(config, resolved.config);
        resolved.origin.forEach((at, key) => origin.set(key, at));
      }
    }
    const { extends: _extends, ...rest } = own;
    config = deepMerge(config, rest);
    for (const key of Object.keys(rest)) origin.set(key, [job, key]);
    return { config, origin };
  };
  const { config, origin } = expand(name, 0);
  // `default:` (or the old top-level keywords) for what the job does not say, unless `inherit: {default: false}`.
  const inherit = mapOf(config.inherit).default;
  const inherited = inherit === false ? [] : Array.isArray(inherit) ? textsOf(inherit) : DEFAULT_KEYS;
  const defaults = mapOf(data.default);
  for (const key of inherited) {
    if (config[key] !== undefined) continue;
    if (defaults[key] !== undefined) {
      config[key] = defaults[key];
      origin.set(key, ['default', key]);
    } else if (data[key] !== undefined && GLOBAL_KEYS.includes(key)) {
      config[key] = data[key];
      origin.set(key, [key]);
    }
  }
  return { name, config, origin };
}

/** The file's `variables` and the job's (each a value, or `{value, description}`), the job's winning. */
export function variablesOf(global: unknown, job: unknown, inheritGlobal: boolean): Record<string, string> {
  const values = (map: unknown) => Object.entries(mapOf(map)).map(([key, value]) => [key, textOf(value) ?? textOf(mapOf(value).value) ?? ''] as const);
  return Object.fromEntries([...(inheritGlobal ? values(global) : []), ...values(job)]);
}

/** `$NAME` and `${NAME}` replaced from `variables`, as GitLab expands an image's name; the rest left. */
export function expandVariables(text: string, variables: Readonly<Record<string, string>>, depth = 0): string {
  const expanded = text.replace(/\$(?:\{(\w+)\}|(\w+))/g, (whole: string, braced?: string, bare?: string) => {
    const value = variables[(braced ?? bare)!];
    return value === undefined || depth > 10 ? whole : expandVariables(value, variables, depth + 1);
  });
  return expanded;
}

/** Script lines, a `!reference` having made a list of lists of them. */
export function scriptOf(value: unknown): string[] {
  return listOf(value).flatMap((item) => (Array.isArray(item) ? scriptOf(item) : textOf(item) === undefined ? [] : [textOf(item)!.replace(/\n$/, '')]));
}
