/**
 * Commit statuses for a build: what they say (pure) and where they go (a sink: GitHub's statuses
 * API on AWS, printed lines locally).
 */
import type { BuildRef } from '../workflow/state-data.js';
import type { CommitStatus, GitHubApi } from './github-api.js';

/** The status's name on the commit; one per runner, replaced as the build moves on. */
export const STATUS_CONTEXT = 'step-runner';
/** GitHub refuses longer descriptions (422). */
export const MAX_DESCRIPTION = 140;

export const Outcomes = { started: 'started', succeeded: 'succeeded', failed: 'failed' } as const;
export type Outcome = (typeof Outcomes)[keyof typeof Outcomes];

/** What Step Functions puts at $.failure when a Catch fires. */
export interface CaughtFailure {
  Error?: string;
  Cause?: string;
}

export function commitStatusFor(outcome: Outcome, failure?: CaughtFailure, targetUrl?: string): CommitStatus {
  const [state, description] =
    outcome === Outcomes.started
      ? (['pending', 'Build running'] as const)
      : outcome === Outcomes.succeeded
        ? (['success', 'Build succeeded'] as const)
        : (['failure', failureDescription(failure)] as const);
  return { state, description: truncate(description, MAX_DESCRIPTION), context: STATUS_CONTEXT, ...(targetUrl ? { target_url: targetUrl } : {}) };
}

/** `Error: Cause` on one line, as the console shows them. */
export function failureDescription(failure: CaughtFailure | undefined): string {
  const error = failure?.Error?.trim() || 'Build failed';
  const cause = causeText(failure?.Cause);
  return cause ? `${error}: ${cause}` : error;
}

/**
 * The Cause as a person would read it. When a Lambda task throws, Step Functions' Cause is the
 * Lambda error as JSON ({"errorType","errorMessage","trace"}): only the message is meant for
 * people (the trace never leaves the console). A Fail state's Cause is the text itself.
 */
export function causeText(cause: string | undefined): string {
  if (!cause) return '';
  let text = cause;
  if (cause.trimStart().startsWith('{')) {
    try {
      const parsed = JSON.parse(cause) as { errorMessage?: unknown };
      if (typeof parsed.errorMessage === 'string') text = parsed.errorMessage;
    } catch {
      // Not JSON after all: the text is the cause.
    }
  }
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * At most `max` characters (code points, so an emoji is never cut in half), ending in "…" when
 * cut, at a word boundary when one is near the end so the last word is whole.
 */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  const kept = space >= cut.length - 20 && space > 0 ? cut.slice(0, space) : cut;
  return `${kept.replace(/[\s,;:.-]+$/, '')}…`;
}

export interface StatusSink {
  post(build: Required<Pick<BuildRef, 'repository' | 'commit'>>, status: CommitStatus): Promise<void>;
}

export function gitHubStatusSink(api: Pick<GitHubApi, 'createCommitStatus'>): StatusSink {
  return { post: (build, status) => api.createCommitStatus(build.repository, build.commit, status) };
}

/** Locally: one line per status, where the build's progress is printed. */
export function printedStatusSink(print: (line: string) => void): StatusSink {
  return {
    async post(build, status) {
      const link = status.target_url ? ` (${status.target_url})` : '';
      print(`commit status ${build.repository}@${build.commit.slice(0, 7)} ${status.context}: ${status.state} "${status.description}"${link}`);
    },
  };
}
