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
import { ForgeUnavailable, PipelineNotFound, RefNotFound } from './errors.js';
import { buildIdFor } from './execution-name.js';
import type { RefHeadSource } from './ref-head.js';
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
  /** A schedule's ref -> its head commit (DeferredLookup.commit); absent: such an input cannot be built. */
  refHeads?: RefHeadSource;
}

export type LookupOutcome = { kind: 'build'; input: BuildInput } | { kind: 'notBuilt'; reason: string };

/** `executionName`: the build id of an input that has none (a schedule's) derives from it, as the ended-execution cleanup derives it. */
export async function completeLookup(given: PendingBuildInput, sources: LookupSources | undefined, executionName?: string): Promise<LookupOutcome> {
  const { lookup } = given;
  if (!sources) throw new GitHubUnavailable(`The webhook left GitHub's answers to the build (${lookup.why}), but this runtime has no GitHub API client to ask.`);
  const id = given.build.id ?? (executionName !== undefined ? buildIdFor(executionName) : undefined);
  if (id === undefined) throw new Error('The execution input names no build id, and this invocation no execution to derive one from');
  const commit = lookup.commit ? await resolveCommit(sources.refHeads, given) : undefined;
  const pending = {
    ...given,
    build: { ...given.build, id, ...(commit !== undefined ? { commit } : {}) },
    ...(given.source && commit !== undefined ? { source: { ...given.source, commit } } : {}),
  };
  const { lookup: _lookup, ...rest } = pending;
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
  // Its source has the commit now: the webhook's had it, a schedule's was given it above.
  return { kind: 'build', input: { ...rest, pipeline, ...(changes ? { changes } : {}) } as BuildInput };
}

/** A schedule's ref, now: RefNotFound (a branch deleted since) fails the build as its pipeline would, GitHub's failure is retried. */
async function resolveCommit(source: RefHeadSource | undefined, input: PendingBuildInput): Promise<string> {
  const request = { repository: input.build.repository ?? '', ref: input.build.ref ?? '', ...(input.build.installationId !== undefined ? { installationId: input.build.installationId } : {}) };
  if (!source) throw new GitHubUnavailable(`The build names ${request.ref} of ${request.repository}, not a commit, and this runtime has no GitHub API client to resolve it.`);
  try {
    return await source.headCommit(request);
  } catch (error) {
    if (error instanceof RefNotFound) throw new InvalidPipeline(`${request.repository}: ${error.message}`, { file: PIPELINE_FILE });
    if (error instanceof ForgeUnavailable) throw new GitHubUnavailable(error.message);
    throw error;
  }
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
function requestOf(input: Omit<PendingBuildInput, 'build'> & { build: PendingBuildInput['build'] & { id: string } }): BuildRequest {
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
