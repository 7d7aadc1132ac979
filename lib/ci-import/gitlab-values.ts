/**
 * GitLab's values in this pipeline's spelling: durations, `expire_in`, the predefined variables a
 * step can still read (docs.gitlab.com/ci/variables/predefined_variables/), paths in the workspace.
 */
import { formatDuration } from '../pipeline/index.js';

const UNIT_SECONDS: [RegExp, number][] = [
  [/^(s|sec|secs|seconds?)$/, 1],
  [/^(m|min|mins|minutes?)$/, 60],
  [/^(h|hr|hrs|hours?)$/, 3600],
  [/^(d|days?)$/, 86_400],
  [/^(w|weeks?)$/, 604_800],
  [/^(mo|months?)$/, 2_592_000],
  [/^(y|years?)$/, 31_536_000],
];

/** `1h 30m`, `3 hours`, `90 minutes`, `3600` (seconds) -> seconds, or undefined. */
export function gitlabSeconds(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  if (!/^(?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+$/.test(trimmed)) return undefined;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)].filter((part) => part[2] !== 'and');
  let seconds = 0;
  for (const [, amount, unit] of parts) {
    const per = UNIT_SECONDS.find(([pattern]) => pattern.test(unit!))?.[1];
    if (per === undefined) return undefined;
    seconds += Number(amount) * per;
  }
  return Math.round(seconds);
}

/** A job's `timeout` as a step's, or undefined. */
export function gitlabTimeout(text: string): string | undefined {
  const seconds = gitlabSeconds(text);
  return seconds === undefined || seconds <= 0 ? undefined : formatDuration(Math.min(seconds, 24 * 3600));
}

/** `expire_in` as `Nd` (rounded up, 1 to 365), or undefined for `never` and what cannot be read. */
export function gitlabExpireIn(text: string): string | undefined {
  const seconds = gitlabSeconds(text);
  if (seconds === undefined) return undefined;
  return `${Math.min(365, Math.max(1, Math.ceil(seconds / 86_400)))}d`;
}

/** GitLab's predefined variables that a step here can read, as a shell expression of the build's (docs/contracts.md#build-variables). */
export const PREDEFINED: Record<string, string> = {
  CI_PROJECT_DIR: '$CI_WORKSPACE',
  CI_BUILDS_DIR: '$CI_WORKSPACE',
  CI_COMMIT_BRANCH: '$CI_BRANCH',
  CI_COMMIT_REF_NAME: '${CI_BRANCH:-${CI_REF#refs/tags/}}',
  CI_PROJECT_PATH: '$CI_REPOSITORY',
  CI_PIPELINE_ID: '$CI_BUILD_ID',
  CI_COMMIT_SHORT_SHA: '$(printf %.8s "$CI_COMMIT_SHA")',
};
/** Set here under the same name. */
export const SAME_NAME = ['CI', 'CI_COMMIT_SHA'];

/** Every `$CI_...`/`$GITLAB_...` variable a text reads. */
export function predefinedReads(text: string): string[] {
  return [...new Set([...text.matchAll(/\$\{?((?:CI|GITLAB)_[A-Z0-9_]+)/g)].map((match) => match[1]!))];
}

/** A path as GitLab writes it (`$CI_PROJECT_DIR/x/`, `./x`) relative to the workspace. */
export function workspaceRelative(path: string): string {
  return path
    .replace(/^\$\{?CI_PROJECT_DIR\}?\/?/, '')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
}
