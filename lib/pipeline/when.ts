/**
 * A step's `when`: whether it runs for a build, decided from the build's ref and event when the
 * build starts. Pure.
 *
 * Branch patterns are globs (glob.ts), as GitHub Actions and Drone read them.
 */

import { globMatches } from './glob.js';
import type { PathFilter } from './paths.js';

/**
 * The events a `when.event` list may name: a build's BuildRef.event, and `tag` for a tag ref.
 * `manual`: `step-runner trigger` (or `run --input`); `schedule`: a deployment's schedule.
 */
export const WhenEvents = ['push', 'pull_request', 'tag', 'generic', 'local', 'manual', 'schedule'] as const;
export type WhenEvent = (typeof WhenEvents)[number];

/** How the build stands when a step would run: `failure` steps run only once it has failed. */
export const WhenStatuses = ['success', 'failure'] as const;
export type WhenStatus = (typeof WhenStatuses)[number];

export interface StepCondition extends PathFilter {
  /** Branch names or glob patterns; absent: any branch (or none). */
  branch?: string[];
  /** Absent: any event. */
  event?: WhenEvent[];
  /** `[failure]`: the step runs only after the build has failed; absent or `[success]`: only while it has not. */
  status?: WhenStatus[];
}

/** Whether a step runs only after the build has failed (`when: {status: [failure]}`). */
export function runsAfterFailure(when: StepCondition | undefined): boolean {
  return when?.status?.includes('failure') === true;
}

/** What a condition is decided on: the build's ref and event (BuildRef), and a pull request's base branch. */
export interface BuildFacts {
  ref?: string;
  event?: string;
  /** A pull request's base branch ref (`refs/heads/main`): its branch, as GitHub Actions' `branches` reads it. */
  baseRef?: string;
}

const HEADS = 'refs/heads/';
const TAGS = 'refs/tags/';

/** `refs/heads/X` -> X; any other ref names no branch. */
export function branchOfRef(ref: string | undefined): string | undefined {
  return ref?.startsWith(HEADS) && ref.length > HEADS.length ? ref.slice(HEADS.length) : undefined;
}

/** The branch a build is on for `when.branch`: a pull request's base branch, else the ref's branch. */
export function buildBranch(build: BuildFacts): string | undefined {
  return build.event === 'pull_request' ? branchOfRef(build.baseRef) : branchOfRef(build.ref);
}

/** The event for `when.event`: `tag` for a tag ref, else the build's own. */
export function buildEvent(build: BuildFacts): string | undefined {
  return build.ref?.startsWith(TAGS) ? 'tag' : build.event;
}

/** Whether a branch matches a pattern (see the top of this file). */
export function branchMatches(pattern: string, branch: string): boolean {
  return globMatches(pattern, branch);
}

/**
 * Why the step does not run for this build, or undefined when it does. A local run (event `local`)
 * counts as a push of its branch too, so `event: [push]` steps run locally. Branch and event
 * only: `paths` is decided from the build's change (paths.ts).
 */
export function skipReason(when: StepCondition | undefined, build: BuildFacts): string | undefined {
  if (!when) return undefined;
  const event = buildEvent(build);
  if (when.event && when.event.length > 0) {
    const holds = event !== undefined && (when.event as readonly string[]).includes(event);
    const localPush = event === 'local' && when.event.includes('push');
    if (!holds && !localPush) return `event ${event ?? '(none)'} is not ${when.event.join(', ')}`;
  }
  if (when.branch && when.branch.length > 0) {
    const branch = buildBranch(build);
    if (branch === undefined) {
      const what = event === 'tag' ? `a tag (${build.ref})` : build.ref ? `${build.ref}, not a branch` : 'no branch';
      return `the build is on ${what}, and the step runs on ${when.branch.join(', ')} only`;
    }
    if (!when.branch.some((pattern) => branchMatches(pattern, branch))) return `branch ${branch} is not ${when.branch.join(', ')}`;
  }
  return undefined;
}
