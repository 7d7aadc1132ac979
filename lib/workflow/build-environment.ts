/**
 * The variables every step sees, describing its build (docs/contracts.md#build-variables). Their
 * names are a contract: pipelines and scripts read them.
 */
import type { BuildRef } from '../contract/index.js';
import { WORKSPACE_PATH } from '../kube/index.js';
import { inputVariables } from '../pipeline/index.js';

export const BuildVariables = {
  ci: 'CI',
  buildId: 'CI_BUILD_ID',
  repository: 'CI_REPOSITORY',
  commit: 'CI_COMMIT_SHA',
  ref: 'CI_REF',
  branch: 'CI_BRANCH',
  event: 'CI_EVENT',
  workspace: 'CI_WORKSPACE',
  /** Steps that run after a failure (`when: {status: [failure]}`): `failure`. */
  buildStatus: 'CI_BUILD_STATUS',
  /** ...and the failure's Error and Cause, as the console shows them. */
  failureError: 'CI_FAILURE_ERROR',
  failureCause: 'CI_FAILURE_CAUSE',
} as const;

/**
 * The variables for one build; those the build does not know (no branch for a tag) are left out.
 * The build's own `variables` (`run --env`) come with them, and its inputs as CI_INPUT_<NAME>
 * (PrepareBuild filled in their defaults).
 * `failure`: the build's failure, for a step that runs after it.
 */
export function buildEnvironment(build: BuildRef, failure?: { Error: string; Cause?: string }): Record<string, string> {
  const branch = build.ref?.startsWith('refs/heads/') ? build.ref.slice('refs/heads/'.length) : undefined;
  const known: [string, string | undefined][] = [
    [BuildVariables.ci, 'true'],
    [BuildVariables.buildId, build.id],
    [BuildVariables.repository, build.repository],
    [BuildVariables.commit, build.commit],
    [BuildVariables.ref, build.ref],
    [BuildVariables.branch, branch],
    [BuildVariables.event, build.event],
    [BuildVariables.workspace, WORKSPACE_PATH],
    [BuildVariables.buildStatus, failure ? 'failure' : undefined],
    [BuildVariables.failureError, failure?.Error],
    [BuildVariables.failureCause, failure?.Cause],
  ];
  const runners = Object.fromEntries(known.filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
  // The runner's own facts win: a step must not be told another commit than the one checked out.
  return { ...build.variables, ...inputVariables(build.inputs), ...runners };
}
