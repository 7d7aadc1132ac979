/**
 * Where a local build's checkout comes from: the git work tree that holds the pipeline file (or
 * --source DIR), as it is on disk, published to a temporary repository the clone step fetches from
 * (on the embedded cluster, whose clone runs on this machine) or that is sent to it (any other).
 */
import { execFile } from 'node:child_process';
import { basename, dirname } from 'node:path';
import { promisify } from 'node:util';
import type { BuildInput, BuildRef, BuildSource } from '../contract/index.js';
import { findWorkTree, snapshotSource } from './source-snapshot.js';

export interface LocalSource {
  source?: BuildSource;
  /** Set when there is nothing to check out: said to the user and passed on as BuildInput.withoutSource. */
  withoutSource?: string;
  /** What the build knows of its source: repository, commit, ref, event. */
  build: Omit<BuildRef, 'id'>;
  /** For people: what the build checks out, or why nothing. */
  description: string;
  dispose(): Promise<void>;
}

export interface LocalSourceOptions {
  /** False for a pipeline with `checkout: false`: nothing is looked up or copied. */
  checksOut?: boolean;
  /** The work tree to build (default: the one holding the pipeline file). */
  sourceDir?: string;
  /** Build this commit instead of the work tree as it is on disk. */
  commit?: string;
  /**
   * A cluster of the user's own (--kubeconfig): its pods cannot reach a repository on this machine,
   * so the source is sent to them (BuildSource.upload, see source-upload.ts).
   */
  remoteCluster?: boolean;
  /** `--branch`: the build's branch (default: the work tree's current one, unless `commit` is given). */
  branch?: string;
  /** `--event`: the build's event (default: local). */
  event?: string;
}

/**
 * The build's ref and event, for the steps' `when`: --branch, else the work tree's current branch;
 * --event, else local. A pull request's branch is its base branch (as GitHub Actions' `branches`).
 */
export function refAndEvent(options: LocalSourceOptions, currentRef: string | undefined): Pick<BuildRef, 'ref' | 'event' | 'baseRef'> {
  const ref = options.branch !== undefined ? `refs/heads/${options.branch}` : currentRef;
  const event = options.event ?? 'local';
  if (event === 'pull_request') return { event, ...(ref ? { baseRef: ref } : {}) };
  return { ...(ref ? { ref } : {}), event };
}

const noSource = (why: string, options: LocalSourceOptions): LocalSource => ({
  withoutSource: why,
  build: refAndEvent(options, undefined),
  description: `no checkout: ${why}`,
  dispose: async () => {},
});

export async function localSource(pipelineFile: string, options: LocalSourceOptions = {}): Promise<LocalSource> {
  if (options.checksOut === false) return { build: refAndEvent(options, undefined), description: 'none (checkout: false)', dispose: async () => {} };
  const dir = options.sourceDir ?? dirname(pipelineFile);
  const workTree = await findWorkTree(dir);
  if (!workTree) return noSource(`${dir} is not in a git work tree, so the workspace starts empty`, options);
  const snapshot = await snapshotSource(workTree, options.commit ? { commit: options.commit } : {});
  const ref = await currentBranchRef(workTree);
  return {
    source: { url: snapshot.url, commit: snapshot.commit, ...(options.remoteCluster ? { upload: true as const } : {}) },
    build: { repository: basename(workTree), commit: snapshot.commit, ...refAndEvent(options, options.commit ? undefined : ref) },
    description: snapshot.description,
    dispose: () => snapshot.dispose(),
  };
}

export async function currentBranchRef(workTree: string): Promise<string | undefined> {
  try {
    // No GIT_DIR or the like from the caller: this asks about the work tree, nothing else.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')));
    const { stdout } = await promisify(execFile)('git', ['symbolic-ref', '-q', 'HEAD'], { cwd: workTree, env });
    return stdout.trim() || undefined;
  } catch {
    // A detached HEAD has no branch.
    return undefined;
  }
}

/** The execution input of a local build (`run`, the example of `serve`) of a pipeline from this source. */
export function localBuildInput(id: string, pipeline: { file: string; text: string }, source: LocalSource, variables?: Record<string, string>): BuildInput {
  return {
    build: { id, trigger: 'local run', ...source.build, ...(variables && Object.keys(variables).length > 0 ? { variables } : {}) },
    pipeline,
    ...(source.source ? { source: source.source } : {}),
    ...(source.withoutSource ? { withoutSource: source.withoutSource } : {}),
  };
}
