/**
 * `when.paths` and `when.paths-ignore`, on a step or the whole pipeline: whether a build's change
 * touches the files a step cares about. Pure.
 *
 * As GitHub Actions' `paths` and `paths-ignore`: with `paths`, the step runs when at least one
 * changed file matches one of the globs; with `paths-ignore`, it runs unless every changed file
 * matches one. The globs follow `when.branch`'s rules (when.ts): `*` any characters but `/`, `**`
 * any characters, `/` included, `?` one character but `/`. A change that is not known (a new
 * branch, too many files) or not there at all (a manual run) skips nothing: a step runs when it
 * cannot be told it may not.
 */
import type { BuildChanges } from '../contract/index.js';
import { globMatches } from './glob.js';

/** A step's (or the pipeline's) path filter: one of the two, never both (schema.ts refuses that). */
export interface PathFilter {
  paths?: string[];
  pathsIgnore?: string[];
}

/** Whether a repository path (`services/api/src/main.go`, no leading `/`) matches a glob. */
export function pathMatches(glob: string, file: string): boolean {
  return globMatches(glob, file);
}

/**
 * Why a glob can never match a file's repository path, or undefined when it can. Paths as git
 * and GitHub give them are relative, `/`-separated, with no `.`, `..` or empty segments.
 */
export function pathGlobProblem(glob: string): string | undefined {
  if (glob.trim() === '') return 'a path glob must not be empty';
  if (glob.includes('\\')) return `"${glob}" has a backslash: repository paths are separated by "/", and a backslash matches nothing`;
  if (glob.startsWith('!')) return `"${glob}" starts with "!": negated globs are not supported; list the files to leave out under paths-ignore instead`;
  if (glob.startsWith('/')) return `"${glob}" is absolute: repository paths have no leading "/" (write "${glob.replace(/^\/+/, '')}")`;
  const segments = glob.split('/');
  if (segments.includes('..')) return `"${glob}" has a ".." segment: repository paths never leave the repository, nor go up`;
  if (segments.includes('.')) return `"${glob}" has a "." segment, which no repository path has (write "${segments.filter((s) => s !== '.').join('/')}")`;
  if (glob.endsWith('/')) return `"${glob}" ends with "/": it names a folder, and only files change (write "${glob}**" for everything under it)`;
  if (segments.includes('')) return `"${glob}" has an empty segment ("//"), which no repository path has`;
  return undefined;
}

/**
 * Why the filter skips the step for this change, or undefined when it runs. `whose`: what the
 * reason names the filter as (`when` for a step's own, `the pipeline's when` for the file's).
 */
export function pathsSkipReason(filter: PathFilter | undefined, changes: BuildChanges | undefined, whose = 'when'): string | undefined {
  if (!filter || !changes || !changes.known) return undefined;
  const { files } = changes;
  if (filter.paths && filter.paths.length > 0) {
    const globs = filter.paths;
    if (files.some((file) => globs.some((glob) => pathMatches(glob, file)))) return undefined;
    return files.length === 0 ? `${whose}.paths: the change touches no file` : `${whose}.paths: no changed file matches ${globs.join(', ')}`;
  }
  if (filter.pathsIgnore && filter.pathsIgnore.length > 0) {
    const globs = filter.pathsIgnore;
    if (files.some((file) => !globs.some((glob) => pathMatches(glob, file)))) return undefined;
    return files.length === 0 ? `${whose}.paths-ignore: the change touches no file` : `${whose}.paths-ignore: every changed file matches ${globs.join(', ')}`;
  }
  return undefined;
}

/** Whether the filter says anything (so that a change not known is worth a line in the log). */
export function filtersPaths(filter: PathFilter | undefined): boolean {
  return (filter?.paths?.length ?? 0) > 0 || (filter?.pathsIgnore?.length ?? 0) > 0;
}

