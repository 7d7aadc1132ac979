/**
 * Which commit a ref points at now, through the forge: a manual run (`step-runner trigger`) and a
 * schedule name a branch, not a commit, and the build checks out, reads its pipeline and reports
 * on one commit.
 */
import type { BuildRequest } from './build-request.js';
import { ForgeUnavailable, RefNotFound } from './errors.js';
import { gitHubApi, GitHubApiError, type GitHubApiOptions } from './github-api.js';
import { CredentialsUnavailable, gitHubTokenFor, PIPELINE_PERMISSIONS, type GitHubCredentials } from './github-app.js';

export interface RefHeadSource {
  /** The commit sha at the head of request.ref; RefNotFound when there is none, ForgeUnavailable when the forge failed. */
  headCommit(request: Pick<BuildRequest, 'repository' | 'ref' | 'installationId'>): Promise<string>;
}

const MODULE = 'ref-head';

/** Read with the credentials a pipeline file is read with (contents: read). */
export function gitHubRefHeadSource(credentials: GitHubCredentials, api: Omit<GitHubApiOptions, 'token'> = {}): RefHeadSource {
  return {
    async headCommit(request) {
      const what = `the commit at ${request.ref} of ${request.repository}`;
      try {
        const chosen = await gitHubTokenFor(credentials, request, PIPELINE_PERMISSIONS);
        const read = await gitHubApi({ ...api, ...(chosen ? { token: chosen.token } : {}) }).refHead(request.repository, request.ref);
        if (!read.found) throw new RefNotFound(`${request.repository} has ${read.reason} (a private repository also needs a token that can read it).`, MODULE);
        return read.sha;
      } catch (error) {
        if (error instanceof GitHubApiError || error instanceof CredentialsUnavailable) throw new ForgeUnavailable(`Could not read ${what}: ${error.message}`, MODULE);
        throw error;
      }
    },
  };
}
