/**
 * The pipeline's `concurrency:` (issue 27): which builds are one group, of which only the newest
 * runs, a newer one stopping the older as Superseded. Pure: the group's text is checked when the
 * file is read (an unknown variable is refused with its line), and expanded for one build here.
 *
 * The variables are the build's own (lib/workflow/build-environment.ts gives steps the same
 * names), plus two made for groups: CI_PR_NUMBER and CI_PR_OR_BRANCH.
 *
 * Defaults, when the file says nothing: a pull request's builds are one group per pull request
 * (a new push to it stops the build of the commit it replaced), and no other build has a group:
 * the default branch's builds each run to their end (every commit there gets its verdict), and so
 * do the builds of other pushes, unless the file asks.
 */
import * as z from 'zod';
import type { BuildRef } from '../contract/index.js';
import { buildBranch } from './when.js';

/** The variables a group may use, with what each is for a build. */
export const ConcurrencyVariables = {
  CI_REPOSITORY: 'the repository, owner/name',
  CI_REF: 'the ref built: refs/heads/BRANCH, or refs/pull/N/head for a pull request',
  CI_BRANCH: "the branch pushed to, or a pull request's base branch",
  CI_EVENT: 'push, pull_request, generic, manual, schedule or local',
  CI_PR_NUMBER: "the pull request's number; empty for any other build",
  CI_PR_OR_BRANCH: 'pull/N for a pull request, else the branch pushed to',
} as const;
export type ConcurrencyVariable = keyof typeof ConcurrencyVariables;

/** The group a pull request's builds get when the file says nothing. */
export const DEFAULT_PULL_REQUEST_GROUP = '${CI_REPOSITORY}-${CI_PR_OR_BRANCH}';

/** `concurrency:` as written, normalised. */
export interface ConcurrencySetting {
  /** With `${NAME}` references to ConcurrencyVariables, checked when the file was read. */
  group: string;
  /** false: the group is said, but a newer build stops nothing (each build runs to its end). */
  cancelInProgress: boolean;
}

/** A build's group, expanded: `group` is what builds are compared by. */
export interface ConcurrencyGroup {
  group: string;
  /** Where it came from, for the log: the file, or the pull request default. */
  from: 'pipeline' | 'default';
}

const REFERENCE = /\$\{([^}]*)\}/g;
const MAX_GROUP_LENGTH = 400;

/** Why a group's text cannot be used, or undefined. */
export function groupProblem(group: string): string | undefined {
  if (group.trim() === '') return 'must not be empty: builds with the same group supersede each other';
  if (group.length > MAX_GROUP_LENGTH) return `is ${group.length} characters long; at most ${MAX_GROUP_LENGTH} are allowed`;
  const known = Object.keys(ConcurrencyVariables);
  for (const [, name] of group.matchAll(REFERENCE)) {
    if (!known.includes(name ?? '')) {
      return `\${${name}} is not a variable a group can use; the variables are ${known.join(', ')}`;
    }
  }
  const rest = group.replace(REFERENCE, '');
  if (rest.includes('${')) return 'has a "${" without its closing "}"';
  return undefined;
}

/** The schema of `concurrency:`: false (no group, not even the default), or `{group, cancel-in-progress}`. */
export function concurrencySchema(describe: (value: unknown) => string) {
  const group = z
    .string({ error: (issue) => (issue.input === undefined ? 'missing: the group the builds are one of, e.g. "${CI_REPOSITORY}-${CI_PR_OR_BRANCH}"' : `must be text, not ${describe(issue.input)}`) })
    .superRefine((value, ctx) => {
      const problem = groupProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
  const map = z.strictObject(
    {
      group,
      'cancel-in-progress': z.boolean({ error: (issue) => `must be true or false, not ${describe(issue.input)}` }).optional(),
    },
    { error: (issue) => `must be false, or a map with group and cancel-in-progress, not ${describe(issue.input)}` },
  );
  // Not a union: a union's failure hides which field of the map was wrong (and on which line).
  const setting = z.unknown().transform((value, ctx) => {
    if (value === false) return false as const;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: `must be false, or a map with group and cancel-in-progress, not ${describe(value)}` });
      return z.NEVER;
    }
    const parsed = map.safeParse(value, { reportInput: true });
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue(issue as never);
    return z.NEVER;
  });
  return { setting, map };
}

/**
 * The file's `concurrency:` as the Pipeline holds it. `cancel-in-progress` is true unless said:
 * stopping the older build is all a group does here (builds are never queued).
 */
export function normalConcurrency(given: false | { group: string; 'cancel-in-progress'?: boolean | undefined }): ConcurrencySetting | false {
  return given === false ? false : { group: given.group, cancelInProgress: given['cancel-in-progress'] ?? true };
}

/** What each variable is for one build; empty where the build has none (a push has no PR number). */
export function concurrencyValues(build: BuildRef): Record<ConcurrencyVariable, string> {
  const pr = build.event === 'pull_request' && build.pullRequest ? String(build.pullRequest.number) : '';
  const branch = buildBranch(build) ?? '';
  // A pull request's own branch is not in its ref; its base branch is, but would join every pull
  // request into one group, so it is its number.
  const prOrBranch = pr !== '' ? `pull/${pr}` : build.ref?.startsWith('refs/heads/') ? build.ref.slice('refs/heads/'.length) : '';
  return {
    CI_REPOSITORY: build.repository ?? '',
    CI_REF: build.ref ?? '',
    CI_BRANCH: branch,
    CI_EVENT: build.event ?? '',
    CI_PR_NUMBER: pr,
    CI_PR_OR_BRANCH: prOrBranch,
  };
}

/** `${NAME}` replaced by the build's values (the group was checked when the file was read). */
export function expandGroup(group: string, build: BuildRef): string {
  const values = concurrencyValues(build);
  return group.replace(REFERENCE, (_, name: string) => values[name as ConcurrencyVariable] ?? '');
}

/**
 * The group one build is in, or undefined when a newer build must not stop it: the file's
 * setting when it has one, else the pull request default. A build with no repository (a local
 * run of a file) has no group by default, as nothing could start a second build of it.
 */
export function concurrencyGroupOf(setting: ConcurrencySetting | false | undefined, build: BuildRef): ConcurrencyGroup | undefined {
  if (setting === false) return undefined;
  if (setting) return setting.cancelInProgress ? { group: expandGroup(setting.group, build), from: 'pipeline' } : undefined;
  if (build.event !== 'pull_request' || !build.pullRequest || !build.repository) return undefined;
  return { group: expandGroup(DEFAULT_PULL_REQUEST_GROUP, build), from: 'default' };
}
