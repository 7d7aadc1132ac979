/**
 * Where a GitHub delivery's pipeline comes from: the repository's `.step-runner.yml` at the pushed
 * commit (lib/local serves a file given on the command line instead).
 */
import type { BuildRequest } from './build-request.js';
import { ForgeUnavailable, PipelineNotFound } from './errors.js';
import { GitHubApiError, type GitHubApi } from './github-api.js';

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
