/**
 * Which files a delivery's change touches (BuildInput.changes), as far as the payload can say.
 * Pure: a push payload's commits either answer it, or say which GitHub API call would; the API's
 * answers are turned into BuildChanges here too, so every limit is in one place.
 */
import { changesOf, type BuildChanges } from '../contract/index.js';

/**
 * GitHub's push webhook documents its commits array as capped for timeline events only, not for
 * webhook deliveries, but a payload is capped at 25 MB; a list this long may have been cut, so it
 * is not trusted to be complete.
 */
export const PUSH_PAYLOAD_COMMITS_TRUSTED_BELOW = 2048;

/** "Compare two commits" lists at most this many files for the whole comparison, unpaginated. */
export const COMPARE_FILES_LIMIT = 300;

/** "List pull requests files" answers at most this many files, 100 a page at most. */
export const PULL_REQUEST_FILES_LIMIT = 3000;
export const PULL_REQUEST_FILES_PER_PAGE = 100;

/** How a delivery's changed files are found: already known, or by which API call. */
export type ChangeQuery =
  | { kind: 'known'; changes: BuildChanges }
  | { kind: 'compare'; base: string; head: string; why: string }
  | { kind: 'pullRequest'; number: number; changedFiles?: number };

export interface PushCommitFiles {
  added?: string[] | undefined;
  modified?: string[] | undefined;
  removed?: string[] | undefined;
}

export interface PushChange {
  before?: string | undefined;
  after: string;
  created?: boolean | undefined;
  forced?: boolean | undefined;
  commits?: PushCommitFiles[] | undefined;
}

const ZERO_SHA = /^0{40}$/;
const SHA = /^[0-9a-f]{40}$/;

export function pushChangeQuery(push: PushChange): ChangeQuery {
  if (push.created === true || push.before === undefined || ZERO_SHA.test(push.before)) {
    return unknown('the push created the branch: there is no earlier commit of it to compare with');
  }
  // The commits of a forced push are those not reachable from the old head, and comparing with the
  // old head goes through their merge base: neither shows what the rewrite dropped, so a step could
  // be skipped though the files it watches changed.
  if (push.forced === true) return unknown('the push was forced: which files changed since the last build is not known');
  const commits = push.commits ?? [];
  if (commits.length > 0 && commits.length < PUSH_PAYLOAD_COMMITS_TRUSTED_BELOW) {
    return { kind: 'known', changes: changesOf(commits.flatMap((c) => [...(c.added ?? []), ...(c.modified ?? []), ...(c.removed ?? [])])) };
  }
  if (!SHA.test(push.before)) return unknown('the push payload names no earlier commit to compare with');
  const why = commits.length === 0 ? 'the push payload lists no commits' : `the push payload lists ${commits.length} commits, and may have been cut`;
  return { kind: 'compare', base: push.before, head: push.after, why };
}

export interface ApiFile {
  filename: string;
  /** A rename's old path: a step watching it is affected as much as one watching the new path. */
  previous_filename?: string | undefined;
}

/** The compare API's answer; it cannot say when it lists all COMPARE_FILES_LIMIT files. */
export function compareChanges(files: readonly ApiFile[]): BuildChanges {
  if (files.length >= COMPARE_FILES_LIMIT) {
    return unknownChanges(`the compare API lists at most ${COMPARE_FILES_LIMIT} files and the change touches ${files.length} or more`);
  }
  return changesOf(files.flatMap(namesOf));
}

/** A pull request's files, every page read; its API lists at most PULL_REQUEST_FILES_LIMIT. */
export function pullRequestChanges(files: readonly ApiFile[]): BuildChanges {
  if (files.length >= PULL_REQUEST_FILES_LIMIT) {
    return unknownChanges(`the pull request files API lists at most ${PULL_REQUEST_FILES_LIMIT} files and the pull request touches ${files.length} or more`);
  }
  return changesOf(files.flatMap(namesOf));
}

export function unknownChanges(why: string): BuildChanges {
  return { known: false, why };
}

function unknown(why: string): ChangeQuery {
  return { kind: 'known', changes: unknownChanges(why) };
}

function namesOf(file: ApiFile): string[] {
  return file.previous_filename && file.previous_filename !== file.filename ? [file.filename, file.previous_filename] : [file.filename];
}
