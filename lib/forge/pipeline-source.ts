/**
 * Where a GitHub delivery's pipeline comes from: the repository's `.step-runner.yml` at the pushed
 * commit (lib/local serves a file given on the command line instead).
 */
import type { BuildRequest } from './build-request.js';
import { ForgeUnavailable, PipelineNotFound } from './errors.js';
import { gitHubApi, GitHubApiError, type GitHubApi, type GitHubApiOptions } from './github-api.js';
import { CredentialsUnavailable, gitHubTokenFor, PIPELINE_PERMISSIONS, type GitHubCredentials } from './github-app.js';

/** The contract's pipeline file name (docs/contracts.md#pipeline-file). */
export const PIPELINE_FILE = '.step-runner.yml';

export interface PipelineText {
  file: string;
  text: string;
}

export interface PipelineSource {
  load(request: BuildRequest): Promise<PipelineText>;
}

const MODULE = 'pipeline-source';

export function repositoryPipelineSource(api: GitHubApi, file = PIPELINE_FILE): PipelineSource {
  return {
    async load(request) {
      let read;
      try {
        read = await api.readFile(request.repository, file, request.commit);
      } catch (error) {
        if (error instanceof GitHubApiError) {
          throw new ForgeUnavailable(`Could not read ${file} from ${request.repository}: ${error.message}`, MODULE);
        }
        throw error;
      }
      if (!read.found) {
        throw new PipelineNotFound(
          `${request.repository} has no ${file} at ${request.commit} (${read.reason}; a private repository also needs a token that can read it).`,
          MODULE,
        );
      }
      return { file, text: read.text };
    },
  };
}

/**
 * The repository's pipeline file, read with the credentials the delivery allows: an installation
 * token of the App it came through (contents: read on that repository only), else the
 * deployment's token, else none (public repositories).
 */
export function gitHubPipelineSource(credentials: GitHubCredentials, api: Omit<GitHubApiOptions, 'token'> = {}, file = PIPELINE_FILE): PipelineSource {
  return {
    async load(request) {
      let chosen;
      try {
        chosen = await gitHubTokenFor(credentials, request, PIPELINE_PERMISSIONS);
      } catch (error) {
        if (error instanceof CredentialsUnavailable) throw new ForgeUnavailable(`Could not read ${file} from ${request.repository}: ${error.message}`, MODULE);
        throw error;
      }
      return repositoryPipelineSource(gitHubApi({ ...api, ...(chosen ? { token: chosen.token } : {}) }), file).load(request);
    },
  };
}

/** A repository's files at the build's commit (a build step's Dockerfile, read by PrepareBuild). */
export interface RepositoryFiles {
  read(path: string): Promise<{ found: true; text: string } | { found: false; reason: string }>;
  /** A folder's git tree id at the commit (a build step's context, for its inputs key); undefined when not read. */
  treeId(path: string): Promise<string | undefined>;
}

/**
 * The build's repository at its commit through GitHub's contents API, with the credentials the
 * delivery allows (as gitHubPipelineSource reads the pipeline file). A GitHub error is a file
 * not read, with GitHub's words: the caller leaves what it would have checked to the builder.
 */
export function gitHubRepositoryFiles(credentials: GitHubCredentials, request: Pick<BuildRequest, 'repository' | 'commit' | 'installationId'>, api: Omit<GitHubApiOptions, 'token'> = {}): RepositoryFiles {
  return {
    async read(path) {
      try {
        const chosen = await gitHubTokenFor(credentials, request, PIPELINE_PERMISSIONS);
        return await gitHubApi({ ...api, ...(chosen ? { token: chosen.token } : {}) }).readFile(request.repository, path, request.commit);
      } catch (error) {
        if (error instanceof GitHubApiError || error instanceof CredentialsUnavailable) return { found: false, reason: error.message };
        throw error;
      }
    },
    async treeId(path) {
      try {
        const chosen = await gitHubTokenFor(credentials, request, PIPELINE_PERMISSIONS);
        return await gitHubApi({ ...api, ...(chosen ? { token: chosen.token } : {}) }).treeId(request.repository, path, request.commit);
      } catch (error) {
        // Not read: the build step builds, its log says the context was not read.
        if (error instanceof GitHubApiError || error instanceof CredentialsUnavailable) return undefined;
        throw error;
      }
    },
  };
}
