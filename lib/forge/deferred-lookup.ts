/**
 * The GitHub lookups of a delivery that the webhook left to the build (DeferredLookup), made by
 * PrepareBuild with the same sources and the same rules as the webhook's: the head commit message
 * first (a `[skip ci]` reads nothing more), then the pipeline file and the changed files. What the
 * webhook would have refused becomes an end without a build: a repository with no pipeline file,
 * or a head commit asking for none, starts no step and posts no status, as the webhook's 422 and
 * 202 "skipped" answers did not.
 */
import { ErrorNames, StepRunnerError, type BuildInput, type PendingBuildInput } from '../contract/index.js';
import { InvalidPipeline, pipelineSizeProblem } from '../pipeline/index.js';
import type { BuildRequest, Trigger } from './build-request.js';
import type { ChangeSource } from './change-source.js';
import { ForgeUnavailable, PipelineNotFound } from './errors.js';
import { PIPELINE_FILE, type PipelineSource } from './pipeline-source.js';
import { skipInstruction, skipReason } from './skip-ci.js';

/**
 * GitHub's API failed (5xx, network, rate limit, no answer, or an App that could not give a token)
 * while the build read what the webhook left to it. The definition retries it; past that the build
 * fails with GitHub's words, where the webhook would have answered 502 ForgeUnavailable.
 */
export class GitHubUnavailable extends StepRunnerError {
  override readonly name = ErrorNames.GitHubUnavailable;
}

export interface LookupSources {
  pipelines: PipelineSource;
  changes: ChangeSource;
}

export type LookupOutcome = { kind: 'build'; input: BuildInput } | { kind: 'notBuilt'; reason: string };

export async function completeLookup(pending: PendingBuildInput, sources: LookupSources | undefined): Promise<LookupOutcome> {
  const { lookup, ...rest } = pending;
  if (!sources) throw new GitHubUnavailable(`The webhook left GitHub's answers to the build (${lookup.why}), but this runtime has no GitHub API client to ask.`);
  const request = requestOf(pending);
  if (lookup.headCommitMessage) {
    const head = await sources.changes.headCommitMessage(request);
    const instruction = head.known ? skipInstruction(head.message) : undefined;
    if (instruction) return { kind: 'notBuilt', reason: skipReason(instruction, request.commit) };
  }
  const [pipeline, changes] = await Promise.all([
    lookup.pipelineFile !== undefined ? readPipeline(sources.pipelines, request) : Promise.resolve(pending.pipeline),
    lookup.changes ? sources.changes.changes(request, lookup.changes) : Promise.resolve(pending.changes),
  ]);
  if (pipeline === undefined) throw new InvalidPipeline('The execution input has no pipeline, and names no pipeline file to read.', { file: PIPELINE_FILE });
  if ('reason' in pipeline) return { kind: 'notBuilt', reason: pipeline.reason };
  const tooLarge = pipelineSizeProblem(pipeline.text);
  if (tooLarge) throw new InvalidPipeline(`${pipeline.file}: ${tooLarge}.`, { file: pipeline.file });
  return { kind: 'build', input: { ...rest, pipeline, ...(changes ? { changes } : {}) } };
}

async function readPipeline(source: PipelineSource, request: BuildRequest): Promise<{ file: string; text: string } | { reason: string }> {
  try {
    return await source.load(request);
  } catch (error) {
    if (error instanceof PipelineNotFound) return { reason: error.message };
    if (error instanceof ForgeUnavailable) throw new GitHubUnavailable(error.message);
    throw error;
  }
}

/** The delivery's request again, from the build reference the webhook put in the input. */
function requestOf(input: PendingBuildInput): BuildRequest {
  const { build } = input;
  return {
    trigger: build.trigger as Trigger,
    repository: build.repository ?? '',
    commit: build.commit ?? '',
    ref: build.ref ?? '',
    event: build.event ?? '',
    ...(build.installationId !== undefined ? { installationId: build.installationId } : {}),
    ...(build.pullRequest !== undefined ? { pullRequest: build.pullRequest } : {}),
  };
}
