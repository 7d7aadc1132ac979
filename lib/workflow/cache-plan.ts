/**
 * Where a build's cache entries live and which of them it may read and write: scopes, the paths'
 * fingerprint, object keys and how long the presigned URLs last. Pure; lib/workflow/step-cache.ts
 * asks the store about the keys this names.
 */
import { createHash } from 'node:crypto';
import type { BuildRef } from '../contract/index.js';
import { branchOfRef } from '../pipeline/index.js';

/** How an entry's payload is packed; part of the fingerprint, so a change of format never restores an old archive. */
export const CACHE_FORMAT = 'tar+gzip';

/** The branch whose entries every build falls back on when BuildRef.defaultBranch is absent. */
export const DEFAULT_BRANCH = 'main';

/** What the cache plan reads of a build. */
export type CacheBuild = Pick<BuildRef, 'ref' | 'event' | 'defaultBranch' | 'pullRequest'>;

export interface CacheScopes {
  /** Scopes restored from, in order: the build's own first, then the default branch's. */
  read: string[];
  /** The scope the build saves to; absent: it saves nothing (noWrite says why). */
  write?: string;
  /** Why the build saves nothing, for the step's log. */
  noWrite?: string;
  /** The build's own scope, which it may read even when it may not write (a fork's pull request). */
  own?: string;
}

export function branchScope(branch: string): string {
  return `branch/${encodeURIComponent(branch)}`;
}

export function pullRequestScope(number: number): string {
  return `pr/${number}`;
}

const PULL_REF = /^refs\/pull\/(\d+)\/(?:head|merge)$/;

/**
 * A branch reads and writes its own entries and reads the default branch's; a pull request its
 * own and the default branch's, and a fork's pull request writes none, so nothing a fork built is
 * ever restored into a build of the repository's own code.
 */
export function cacheScopes(build: CacheBuild): CacheScopes {
  const defaultScope = branchScope(build.defaultBranch ?? DEFAULT_BRANCH);
  const pullNumber = build.pullRequest?.number ?? numberOfPullRef(build.ref);
  if (pullNumber !== undefined) {
    const own = pullRequestScope(pullNumber);
    const read = [own, defaultScope];
    if (build.pullRequest?.fork === false) return { read, write: own, own };
    const noWrite = build.pullRequest
      ? "a fork's pull request saves nothing"
      : `pull request ${pullNumber} saves nothing: it is not known whether it comes from a fork`;
    return { read, noWrite, own };
  }
  const branch = branchOfRef(build.ref);
  if (branch === undefined) {
    const what = build.ref ? `ref ${build.ref} is no branch` : 'the build has no ref';
    return { read: [defaultScope], noWrite: `${what}, so it saves nothing (it reads the default branch's entries)` };
  }
  const own = branchScope(branch);
  return { read: [...new Set([own, defaultScope])], write: own, own };
}

function numberOfPullRef(ref: string | undefined): number | undefined {
  const match = ref ? PULL_REF.exec(ref) : null;
  return match ? Number(match[1]) : undefined;
}

/** For a log line: `this branch`, `this pull request`, `branch main`. */
export function scopeLabel(scope: string, own: string | undefined): string {
  if (scope === own) return scope.startsWith('pr/') ? 'this pull request' : 'this branch';
  if (scope.startsWith('branch/')) return `branch ${decodeURIComponent(scope.slice('branch/'.length))}`;
  return `pull request ${scope.slice('pr/'.length)}`;
}

/**
 * 16 hex of sha256 over the cached paths and the archive format: entries of other paths (or
 * another format) live under another fingerprint, so a change of `paths` never restores the
 * wrong tree. `dist/` and `dist` are the same path; order and repeats do not matter.
 */
export function cacheFingerprint(paths: readonly string[]): string {
  const canonical = [...new Set(paths.map((path) => path.replace(/\/+$/, '')))].sort();
  return createHash('sha256').update(`${canonical.join('\n')}\n${CACHE_FORMAT}`).digest('hex').slice(0, 16);
}

export interface EntryPlace {
  /** The deployment's cache prefix (`cache/`), ending in `/` or empty. */
  prefix: string;
  /** `owner/name`; absent (a local run of no repository): `local`. */
  repository?: string;
  scope: string;
  fingerprint: string;
}

/** The folder of a scope's entries of one fingerprint, ending in `/`. */
export function entryFolder({ prefix, repository, scope, fingerprint }: EntryPlace): string {
  return `${prefix}${encodeURIComponent(repository ?? 'local')}/${scope}/${fingerprint}/`;
}

/** `${prefix}${repository}/${scope}/${fingerprint}/${key}`: an entry's object key. */
export function entryKey(place: EntryPlace & { key: string }): string {
  return `${entryFolder(place)}${place.key}`;
}

/** What a fallback key lists: every entry of the scope whose key starts with it. */
export function fallbackListPrefix(place: EntryPlace & { fallback: string }): string {
  return `${entryFolder(place)}${place.fallback}`;
}

/** A restore URL is used by the init container, before the step's commands: an hour is plenty. */
export const RESTORE_URL_SECONDS = 60 * 60;

/** SigV4's limit on a presigned URL's lifetime: 7 days. */
export const MAX_PRESIGN_SECONDS = 7 * 24 * 60 * 60;

/**
 * The save URL is used after the step's commands: the step's timeout and an hour for the restore,
 * the pod's start and the upload itself, at most SigV4's 7 days. A URL presigned with the Lambda's
 * temporary (role) credentials also stops working when they expire, whatever its own lifetime:
 * PollStep signs it again before (step-urls.ts, url-renewal.ts).
 */
export function saveUrlSeconds(timeoutSeconds: number): number {
  return Math.min(MAX_PRESIGN_SECONDS, Math.max(0, timeoutSeconds) + 60 * 60);
}
