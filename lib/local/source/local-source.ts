/**
 * Where a local build's checkout comes from: the git work tree that holds the pipeline file (or
 * --source DIR), as it is on disk, published to a temporary repository the clone step fetches from
 * (on the embedded cluster, whose clone runs on this machine) or that is sent to it (any other).
 */
import { execFile } from 'node:child_process';
import { basename, dirname } from 'node:path';
import { promisify } from 'node:util';
import { changesOf, type BuildChanges, type BuildInput, type BuildRef, type BuildSource } from '../../contract/index.js';
import { DEFAULT_BRANCH } from '../../workflow/cache-plan.js';
import { RefNotFound } from '../../forge/errors.js';
import type { RefHeadSource } from '../../forge/ref-head.js';
import { findWorkTree, snapshotSource } from './source-snapshot.js';

export interface LocalSource {
  source?: BuildSource;
  /** Set when there is nothing to check out: said to the user and passed on as BuildInput.withoutSource. */
  withoutSource?: string;
  /** What the build knows of its source: repository, commit, ref, event. */
  build: Omit<BuildRef, 'id'>;
  /** For people: what the build checks out, or why nothing. */
  description: string;
  /** The repository's default branch, as its clone knows it (repositoryDefaultBranch); absent without a work tree. */
  defaultBranch?: DefaultBranch;
  /** `--changed` or `--base`: the files the change touches, for `when.paths`; absent: none known. */
  changes?: BuildChanges;
  /** For people: where `changes` came from. */
  changesDescription?: string;
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
  /** `--changed`: the files the change touches, as given. */
  changed?: string[];
  /** `--base`: the change is the work tree's (or `commit`'s) against this ref's merge base. */
  base?: string;
}

/** `--base` names no commit of the work tree, or there is no work tree to compare. */
export class BaseRefError extends Error {
  override readonly name = 'BaseRefError';
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
  const dir = options.sourceDir ?? dirname(pipelineFile);
  // First: a --base that names nothing stops the run before a snapshot is made to be cleaned up.
  const changes = await changesAsked(dir, options);
  return { ...(await sourceOf(dir, options)), ...changes };
}

async function sourceOf(dir: string, options: LocalSourceOptions): Promise<LocalSource> {
  if (options.checksOut === false) return { build: refAndEvent(options, undefined), description: 'none (checkout: false)', dispose: async () => {} };
  const workTree = await findWorkTree(dir);
  if (!workTree) return noSource(`${dir} is not in a git work tree, so the workspace starts empty`, options);
  const snapshot = await snapshotSource(workTree, options.commit ? { commit: options.commit } : {});
  const ref = await currentBranchRef(workTree);
  return {
    source: { url: snapshot.url, commit: snapshot.commit, ...(options.remoteCluster ? { upload: true as const } : {}) },
    build: { repository: basename(workTree), commit: snapshot.commit, ...refAndEvent(options, options.commit ? undefined : ref) },
    description: snapshot.description,
    defaultBranch: await repositoryDefaultBranch(workTree),
    dispose: () => snapshot.dispose(),
  };
}

/** `--changed` as given, or `--base`'s files from the work tree; neither: nothing. */
async function changesAsked(dir: string, options: LocalSourceOptions): Promise<Pick<LocalSource, 'changes' | 'changesDescription'>> {
  const counted = (files: number) => `${files} file${files === 1 ? '' : 's'}`;
  if (options.changed) {
    const changes = changesOf(options.changed);
    return { changes, changesDescription: changes.known ? `${counted(changes.files.length)} (--changed)` : `not known: ${changes.why}` };
  }
  if (options.base === undefined) return {};
  const workTree = await findWorkTree(dir);
  if (!workTree) throw new BaseRefError(`--base ${options.base}: ${dir} is not in a git work tree, so there is nothing to compare with it`);
  const { files, mergeBase } = await workTreeChanges(workTree, options.base, options.commit);
  const changes = changesOf(files);
  const against = `against ${options.base} (merge base ${mergeBase.slice(0, 7)})`;
  return { changes, changesDescription: changes.known ? `${counted(changes.files.length)} ${against}` : `not known ${against}: ${changes.why}` };
}

/**
 * The files `commit` (default: the work tree as it is on disk, untracked files included) changes
 * since it left `base`: against their merge base, as GitHub lists a pull request's files. A rename
 * is its two paths, the old one deleted and the new one added, as a push's payload lists it.
 */
export async function workTreeChanges(workTree: string, base: string, commit?: string): Promise<{ files: string[]; mergeBase: string }> {
  const git = async (args: string[]) => (await promisify(execFile)('git', args, { cwd: workTree, env: gitlessEnv(), maxBuffer: 64 * 1024 * 1024 })).stdout;
  const head = commit ?? 'HEAD';
  let baseCommit: string;
  try {
    baseCommit = (await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${base}^{commit}`])).trim();
  } catch {
    throw new BaseRefError(`--base ${base}: no such commit, branch or tag in ${workTree}`);
  }
  // Unrelated histories have no merge base: the whole difference from base is the change then.
  const mergeBase = (await git(['merge-base', baseCommit, head]).catch(() => baseCommit)).trim() || baseCommit;
  const names = (output: string) => output.split('\0').filter((name) => name !== '');
  const tracked = names(await git(['diff', '--name-only', '--no-renames', '-z', mergeBase, ...(commit ? [commit] : []), '--']));
  const untracked = commit ? [] : names(await git(['ls-files', '--others', '--exclude-standard', '-z']));
  return { files: [...new Set([...tracked, ...untracked])], mergeBase };
}

/** No GIT_DIR or the like from the caller: git is asked about the work tree, nothing else. */
function gitlessEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')));
}

export async function currentBranchRef(workTree: string): Promise<string | undefined> {
  // A detached HEAD has no branch.
  return gitLine(workTree, ['symbolic-ref', '-q', 'HEAD']);
}

/** Whose cache entries a build falls back on (BuildRef.defaultBranch), and how that was found. */
export interface DefaultBranch {
  name: string;
  /** For people (`run --verbose`): where the name came from. */
  from: string;
}

/**
 * The repository's default branch as its clone knows it: `refs/remotes/origin/HEAD`, which `git
 * clone` points at the remote's HEAD (the default branch GitHub and others serve: `master` in
 * many repositories), else the same ref of the remote the current branch's config names
 * (`branch.<name>.remote`), else `main`.
 */
export async function repositoryDefaultBranch(workTree: string): Promise<DefaultBranch> {
  const remoteHead = async (remote: string): Promise<DefaultBranch | undefined> => {
    const target = await gitLine(workTree, ['symbolic-ref', '-q', `refs/remotes/${remote}/HEAD`]);
    const prefix = `refs/remotes/${remote}/`;
    return target?.startsWith(prefix) ? { name: target.slice(prefix.length), from: `${remote}/HEAD` } : undefined;
  };
  const origin = await remoteHead('origin');
  if (origin) return origin;
  const branch = (await currentBranchRef(workTree))?.replace(/^refs\/heads\//, '');
  const remote = branch ? await gitLine(workTree, ['config', '--get', `branch.${branch}.remote`]) : undefined;
  const tracked = remote && remote !== 'origin' && remote !== '.' ? await remoteHead(remote) : undefined;
  if (tracked) return { ...tracked, from: `${tracked.from}, the remote of branch ${branch}` };
  return { name: DEFAULT_BRANCH, from: 'no origin/HEAD, nor a remote HEAD of the current branch\'s remote: the default' };
}

/** git's one line of output in the work tree, or undefined when it fails or says nothing. */
async function gitLine(workTree: string, args: string[]): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)('git', args, { cwd: workTree, env: gitlessEnv() });
    return stdout.trim() || undefined;
  } catch {
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
    ...(source.changes ? { changes: source.changes } : {}),
  };
}

/**
 * The local server's answer to a manual run that names a ref (`step-runner trigger`): the commit
 * it points at in the --source repository, as GitHub's "Get a commit" answers on AWS (lib/forge/ref-head.ts).
 */
export function localRefHeadSource(workTree: string): RefHeadSource {
  return {
    async headCommit(request) {
      const sha = /^refs\/[^\s]+$|^[0-9a-f]{40}$/.test(request.ref) ? await gitLine(workTree, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${request.ref}^{commit}`]) : undefined;
      if (!sha) throw new RefNotFound(`${workTree} has no commit at ${request.ref}.`, 'local-source');
      return sha;
    },
  };
}
