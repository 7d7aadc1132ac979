/**
 * `cache:` and `artifacts:` (issue 26): what a step restores before its commands and saves after
 * them, and what it keeps once it ends. The pipeline lists caches for every step; a step's own list
 * replaces that one (`cache: []` turns it off). Pure, like schema.ts: it sees the data YAML produced
 * and reports problems by path; schema.ts hands in how a wrong value is named, so this module needs
 * nothing of it.
 */
import * as z from 'zod';
import { parseDuration } from './duration.js';
import { CachePolicies, type Artifacts, type Cache, type CachePolicy } from './types.js';

/** A key prefix or a fallback key: it becomes part of an object key in the bucket, and of log lines. */
export const CACHE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export const DEFAULT_ARTIFACT_EXPIRE_DAYS = 30;
export const MAX_ARTIFACT_EXPIRE_DAYS = 365;

const DAY_SECONDS = 24 * 60 * 60;
const EXPIRE_EXAMPLES = 'write it like 7d, 30d or 2w';

const cachePolicyNames = Object.values(CachePolicies) as [CachePolicy, ...CachePolicy[]];

type Describe = (value: unknown) => string;
type PathSegment = string | number;

/**
 * Why a cache or artifact path cannot name something inside the workspace, or undefined. The
 * paths are archived relative to /workspace, so one that leaves it would read (or, restored,
 * write) files the step does not own.
 */
export function workspacePathProblem(path: string): string | undefined {
  if (path.trim() === '') return 'a path must not be empty';
  if (path.startsWith('/')) {
    const inside = path.replace(/^\/workspace(\/|$)/, '');
    const hint = inside !== path && inside !== '' ? ` (write "${inside}")` : '';
    return `"${path}" is absolute: paths are relative to the workspace (/workspace), and nothing outside it is kept${hint}`;
  }
  if (path.startsWith('~')) return `"${path}" is in a home folder, outside the workspace: only files under /workspace are kept (point the tool at a folder in the workspace instead)`;
  const segments = path.replace(/\/$/, '').split('/');
  if (segments.includes('..')) return `"${path}" has a ".." segment: paths stay inside the workspace`;
  const meaningful = segments.filter((segment) => segment !== '.');
  if (meaningful.length === 0) return `"${path}" is the whole workspace, checkout included; name the folders to keep`;
  if (meaningful.length < segments.length) return `"${path}" has a "." segment (write "${meaningful.join('/')}${path.endsWith('/') ? '/' : ''}")`;
  if (segments.includes('')) return `"${path}" has an empty segment ("//")`;
  return undefined;
}

/** Why a `key.files` pattern (a git pathspec glob against the repository's tracked files) can match nothing, or undefined. */
export function keyFilePatternProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'a key file pattern must not be empty';
  if (pattern.startsWith('/')) return `"${pattern}" is absolute: key files are matched against the repository's paths, which have no leading "/" (write "${pattern.replace(/^\/+/, '')}")`;
  if (pattern.split('/').includes('..')) return `"${pattern}" has a ".." segment: key files are the repository's own, which never go up`;
  return undefined;
}

/** Why a key prefix or fallback key cannot be part of a cache key, or undefined. */
export function cacheNameProblem(name: string): string | undefined {
  if (CACHE_NAME_PATTERN.test(name)) return undefined;
  return `${JSON.stringify(name)} is not a valid cache key name: 1 to 100 of letters, digits, ".", "_" and "-", starting with a letter or digit`;
}

export type ExpireInResult = { ok: true; days: number } | { ok: false; reason: string };

/**
 * `expire-in`: `7d`, `2w`, or a duration (duration.ts) that is a whole number of days (`24h`,
 * `86400`); 1 to 365 days. A duration that is not whole days is refused, not rounded.
 */
export function parseExpireIn(input: unknown): ExpireInResult {
  if (typeof input !== 'string' && typeof input !== 'number') return { ok: false, reason: `must be a number of days or weeks such as 30d (${EXPIRE_EXAMPLES})` };
  const text = String(input).trim();
  const match = /^(\d+)([dw])$/.exec(text);
  const duration = match ? undefined : parseDuration(input);
  const days = match ? Number(match[1]) * (match[2] === 'w' ? 7 : 1) : duration?.ok && duration.seconds % DAY_SECONDS === 0 ? duration.seconds / DAY_SECONDS : undefined;
  if (days === undefined) {
    // A bare number is seconds, as for every duration of the file; days were almost surely meant.
    const hint = /^\d+$/.test(text) ? ` (a plain number is seconds, as for any duration: write ${text}d for days)` : '';
    return { ok: false, reason: `"${text}" is not a whole number of days or weeks; ${EXPIRE_EXAMPLES}${hint}` };
  }
  if (days < 1) return { ok: false, reason: `"${text}" is less than a day; artifacts are kept for at least 1d` };
  if (days > MAX_ARTIFACT_EXPIRE_DAYS) return { ok: false, reason: `"${text}" is ${days} days; artifacts are kept for at most ${MAX_ARTIFACT_EXPIRE_DAYS}d` };
  return { ok: true, days };
}

/** Runs a "why not" rule as a zod refinement. */
const obeys = (rule: (value: string) => string | undefined) => (value: string, ctx: z.RefinementCtx) => {
  const problem = rule(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
};

// One value is a list of one, as with commands and when.paths.
const oneOrList = (value: unknown) => (typeof value === 'string' ? [value] : value);

/** The schemas of `cache:` (a list, the pipeline's or a step's) and of a step's `artifacts:`. */
export function cacheSchemas(describe: Describe) {
  const workspacePath = z
    .string({ error: (issue) => `each path must be text (a file or folder in the workspace, such as node_modules), not ${describe(issue.input)}` })
    .superRefine(obeys(workspacePathProblem));
  const workspacePaths = (missing: string) =>
    z
      .preprocess(
        oneOrList,
        z.array(workspacePath, {
          error: (issue) => (issue.input === undefined ? `missing: ${missing}` : `must be a list of files or folders in the workspace, not ${describe(issue.input)}`),
        }),
      )
      .pipe(z.array(z.string()).min(1, { error: 'must list at least one file or folder in the workspace' }));

  const cacheName = (what: string) =>
    z
      .string({
        error: (issue) =>
          `${what} must be text (letters, digits, ".", "_" and "-"), not ${describe(issue.input)}${typeof issue.input === 'number' || typeof issue.input === 'boolean' ? ' (quote it: YAML read it as something else)' : ''}`,
      })
      .superRefine(obeys(cacheNameProblem));

  const keyFile = z
    .string({ error: (issue) => `each key file must be text (a path or a glob such as "**/package-lock.json"), not ${describe(issue.input)}` })
    .superRefine(obeys(keyFilePatternProblem));

  // A key with neither files nor prefix is refused in cacheProblems, where a misspelt field can be told apart.
  const key = z.strictObject(
      {
        files: z
          .preprocess(oneOrList, z.array(keyFile, { error: (issue) => `must be a list of files or globs whose content makes the key, not ${describe(issue.input)}` }))
          .pipe(z.array(z.string()).min(1, { error: 'must list at least one file (leave files out for a key that is the prefix alone)' }))
          .optional(),
        prefix: cacheName('the prefix').optional(),
      },
      {
        error: (issue) =>
          issue.input === undefined
            ? 'missing: each cache needs a key (files whose content makes it, a prefix, or both)'
            : `must be a map with files and/or prefix (e.g. {files: [package-lock.json], prefix: npm}), not ${describe(issue.input)}`,
      },
    );

  const entry = z.strictObject(
    {
      key,
      paths: workspacePaths('each cache needs the paths it keeps'),
      'fallback-keys': z
        .preprocess(oneOrList, z.array(cacheName('each fallback key'), { error: (issue) => `must be a list of key prefixes, not ${describe(issue.input)}` }))
        .optional(),
      policy: z.enum(cachePolicyNames, { error: (issue) => `must be ${cachePolicyNames.join(', ').replace(/, ([^,]*)$/, ' or $1')}, not ${describe(issue.input)}` }).optional(),
    },
    { error: (issue) => `each cache must be a map with key, paths, fallback-keys and/or policy, not ${describe(issue.input)}` },
  );

  const list = z.array(entry, { error: (issue) => `must be a list of caches (each starting with "- key:"), or [] for none, not ${describe(issue.input)}` });

  const expireIn = z.unknown().transform((value, ctx) => {
    const result = parseExpireIn(value);
    if (result.ok) return result.days;
    ctx.addIssue({ code: 'custom', message: result.reason });
    return z.NEVER;
  });

  const artifacts = z.strictObject(
    {
      paths: workspacePaths('artifacts need the files or folders to keep'),
      'expire-in': expireIn.optional(),
    },
    { error: (issue) => `must be a map with paths and expire-in, not ${describe(issue.input)}` },
  );

  return { key, entry, list, artifacts };
}

export type CacheData = z.output<ReturnType<typeof cacheSchemas>['entry']>;
export type ArtifactsData = z.output<ReturnType<typeof cacheSchemas>['artifacts']>;

/** A trailing `/` says nothing more to tar, so a cache's paths (and its fingerprint) are kept without it. */
const cachePath = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path);

/** A validated cache entry in its normal form. */
export function normalCache(given: CacheData): Cache {
  return {
    key: { files: given.key.files ?? [], ...(given.key.prefix !== undefined ? { prefix: given.key.prefix } : {}) },
    paths: given.paths.map(cachePath),
    fallbackKeys: given['fallback-keys'] ?? [],
    policy: given.policy ?? CachePolicies.pullPush,
  };
}

export function normalArtifacts(given: ArtifactsData): Artifacts {
  return { paths: given.paths, expireInDays: given['expire-in'] ?? DEFAULT_ARTIFACT_EXPIRE_DAYS };
}

/** A step's caches: its own list when it has one (`[]` included), else the pipeline's; undefined when none. */
export function stepCache(pipeline: readonly Cache[] | undefined, own: readonly Cache[] | undefined): Cache[] | undefined {
  const list = own ?? pipeline ?? [];
  return list.length > 0 ? [...list] : undefined;
}

/** The lines of each entry and its `key.files`, from where the list is written (`['cache']` or `['steps', 2, 'cache']`). */
export function withCacheLines(caches: readonly Cache[], at: readonly PathSegment[], lineOf: (path: readonly PathSegment[]) => number | undefined): Cache[] {
  return caches.map((cache, index) => {
    const line = lineOf([...at, index]);
    const filesLine = cache.key.files.length > 0 ? lineOf([...at, index, 'key', 'files']) : undefined;
    return { ...cache, ...(line !== undefined ? { line } : {}), ...(filesLine !== undefined ? { filesLine } : {}) };
  });
}

export interface CacheProblem {
  path: PathSegment[];
  message: string;
}

/**
 * The rules across paths, entries and keys, on the raw data so they are said along with any other
 * problem: a path once in its list, no two entries of one list with the same paths and key (they
 * would restore and save the one object), a key of files or a prefix, and key files only with a
 * checkout.
 */
export function cacheProblems(data: unknown): CacheProblem[] {
  if (!isRecord(data)) return [];
  const checksOut = data['checkout'] !== false;
  const problems = listProblems(data['cache'], ['cache'], checksOut);
  const steps = Array.isArray(data['steps']) ? data['steps'] : [];
  steps.forEach((step: unknown, index: number) => {
    if (!isRecord(step)) return;
    problems.push(...listProblems(step['cache'], ['steps', index, 'cache'], checksOut));
    if (isRecord(step['artifacts'])) problems.push(...repeatedPaths(step['artifacts']['paths'], ['steps', index, 'artifacts', 'paths']));
  });
  return problems;
}

function listProblems(list: unknown, at: PathSegment[], checksOut: boolean): CacheProblem[] {
  if (!Array.isArray(list)) return [];
  const problems: CacheProblem[] = [];
  const firstBySameness = new Map<string, number>();
  list.forEach((entry: unknown, index: number) => {
    if (!isRecord(entry)) return;
    problems.push(...repeatedPaths(entry['paths'], [...at, index, 'paths']));
    const key = entry['key'];
    // With a misspelt field (`fles:`) the unknown-field problem says it all.
    if (isRecord(key) && key['files'] === undefined && key['prefix'] === undefined && Object.keys(key).length === 0) {
      problems.push({ path: [...at, index, 'key'], message: 'needs files (whose content makes the key), a prefix, or both' });
    }
    // The clone step hashes the key files; without a checkout there is nothing to hash.
    if (!checksOut && isRecord(key) && key['files'] !== undefined) {
      problems.push({ path: [...at, index, 'key', 'files'], message: 'needs the checkout, whose clone step hashes the key files, and the pipeline says "checkout: false"; key the cache by a prefix alone' });
    }
    const sameness = samenessOf(entry);
    if (sameness === undefined) return;
    const first = firstBySameness.get(sameness);
    if (first === undefined) firstBySameness.set(sameness, index);
    else problems.push({ path: [...at, index], message: `has the same paths and key as cache[${first}], so both would restore and save one entry; remove one, or give one another key` });
  });
  return problems;
}

function repeatedPaths(given: unknown, at: PathSegment[]): CacheProblem[] {
  if (!Array.isArray(given)) return [];
  const seen = new Set<string>();
  return given.flatMap((path: unknown, index: number) => {
    if (typeof path !== 'string') return [];
    const normal = cachePath(path);
    if (!seen.has(normal)) {
      seen.add(normal);
      return [];
    }
    return [{ path: [...at, index], message: `"${path}" is listed twice` }];
  });
}

/** Paths (as a set) and key (files as a set, prefix) as written, or undefined while they are not text. */
function samenessOf(entry: Record<string, unknown>): string | undefined {
  const paths = textList(entry['paths']);
  const key = entry['key'];
  if (!paths || !isRecord(key)) return undefined;
  const files = key['files'] === undefined ? [] : textList(key['files']);
  const prefix = key['prefix'];
  if (!files || (prefix !== undefined && typeof prefix !== 'string')) return undefined;
  const set = (values: string[]) => [...new Set(values)].sort();
  return JSON.stringify([set(paths.map(cachePath)), set(files), prefix ?? null]);
}

function textList(value: unknown): string[] | undefined {
  const list = oneOrList(value);
  return Array.isArray(list) && list.every((item) => typeof item === 'string') ? (list as string[]) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
