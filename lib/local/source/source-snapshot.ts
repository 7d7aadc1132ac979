import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The source of a local build, as the clone step fetches it: `git fetch --depth N <url> <commit>`
 * into its workspace. `url` names a temporary bare repository that only exists until `dispose()`.
 */
export interface SourceSnapshot {
  url: string;
  commit: string;
  /** For people: what was snapshotted, e.g. "/src/app at 1a2b3c4 with uncommitted changes". */
  description: string;
  dispose(): Promise<void>;
}

export interface SnapshotOptions {
  /** Build this commit (anything `git rev-parse` reads as one) instead of the work tree. */
  commit?: string;
  /** Where the temporary repository goes; the system's temp directory otherwise. */
  tempRoot?: string;
}

/** The source of a local run cannot be read or published; raised before any build starts. */
export class SourceSnapshotError extends Error {
  override readonly name = 'SourceSnapshotError';
}

/**
 * The temporary repository's only branch. With the snapshot at its tip, every protocol version
 * serves a fetch by SHA (v0 only serves advertised tips), so no uploadpack.allow*SHA1InWant.
 */
const SNAPSHOT_BRANCH = 'snapshot';
/** `git add` may print a warning per file (line endings, embedded repositories). */
const MAX_GIT_OUTPUT = 64 * 1024 * 1024;
/** A fixed author, so a snapshot works where the user has no identity configured. */
const SNAPSHOT_IDENTITY = {
  GIT_AUTHOR_NAME: 'step-runner',
  GIT_AUTHOR_EMAIL: 'step-runner@localhost',
  GIT_COMMITTER_NAME: 'step-runner',
  GIT_COMMITTER_EMAIL: 'step-runner@localhost',
};
/**
 * Settings that would make `git add` write into the user's .git even with its own index file: a
 * split index writes (and expires) `sharedindex.*` files beside the user's index, and fsmonitor
 * talks to, or starts, a daemon that keeps its socket and cookies there.
 */
const NO_WRITES_INTO_USER_GIT_DIR = {
  GIT_CONFIG_COUNT: '2',
  GIT_CONFIG_KEY_0: 'core.splitIndex',
  GIT_CONFIG_VALUE_0: 'false',
  GIT_CONFIG_KEY_1: 'core.fsmonitor',
  GIT_CONFIG_VALUE_1: 'false',
};

/** The top of the git work tree that holds `path` (a file or a directory); undefined outside one. */
export async function findWorkTree(path: string): Promise<string | undefined> {
  const dir = await directoryOf(path);
  const args = ['rev-parse', '--show-toplevel'];
  const result = await runGit(dir, args);
  if (result.exitCode === 0) return result.stdout;
  // Anything else (a repository git refuses to trust, a broken .git) must not pass for "no repository".
  if (/not a git repository|must be run in a work tree/.test(result.stderr)) return undefined;
  throw failure(args, dir, result.stderr);
}

/**
 * A temporary bare repository holding one commit: the work tree as it is on disk (tracked files
 * with their uncommitted edits, without the deleted ones, plus untracked files that are not
 * ignored), or the commit `options.commit` names. The user's repository is only read: see
 * snapshotWorkTree.
 */
export async function snapshotSource(workTree: string, options: SnapshotOptions = {}): Promise<SourceSnapshot> {
  const repo = await inspectRepository(workTree);
  const pinned = options.commit === undefined ? undefined : await resolveCommit(repo, options.commit);
  const temp = await createTempRepository(repo, options.tempRoot ?? tmpdir());
  try {
    const { commit, description } = pinned ?? (await snapshotWorkTree(repo, temp));
    await git(temp.dir, ['update-ref', `refs/heads/${SNAPSHOT_BRANCH}`, commit], { GIT_DIR: temp.gitDir });
    return { url: pathToFileURL(temp.gitDir).href, commit, description, dispose: temp.dispose };
  } catch (error) {
    await temp.dispose();
    throw error;
  }
}

interface UserRepository {
  workTree: string;
  objects: string;
  index: string;
  objectFormat: string;
}

interface TempRepository {
  dir: string;
  gitDir: string;
  dispose(): Promise<void>;
}

interface Snapshot {
  commit: string;
  description: string;
}

async function inspectRepository(path: string): Promise<UserRepository> {
  // --git-path follows linked worktrees: their own index, the main repository's objects.
  const args = ['rev-parse', '--show-toplevel', '--git-path', 'objects', '--git-path', 'index', '--show-object-format'];
  const dir = await directoryOf(path);
  const result = await runGit(dir, args);
  if (result.exitCode !== 0) throw new SourceSnapshotError(`${path} is not in a git work tree: ${result.stderr}`);
  const [workTree = '', objects = '', index = '', objectFormat = ''] = result.stdout.split('\n');
  return { workTree, objects: resolve(dir, objects), index: resolve(dir, index), objectFormat };
}

async function resolveCommit(repo: UserRepository, ref: string): Promise<Snapshot> {
  // --end-of-options: a ref that starts with "-" is a ref, never an option.
  const result = await runGit(repo.workTree, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (result.exitCode !== 0) throw new SourceSnapshotError(`--commit ${ref}: no such commit in ${repo.workTree}`);
  return { commit: result.stdout, description: `${repo.workTree} commit ${short(result.stdout)} (--commit ${ref})` };
}

/**
 * The clone runs as a process on this machine (the embedded cluster's kubelet), so the temporary
 * repository borrows the user's objects through `objects/info/alternates` instead of copying
 * them: only the objects of uncommitted content are its own. A clone in a real cluster could not
 * reach it anyway.
 */
async function createTempRepository(repo: UserRepository, root: string): Promise<TempRepository> {
  const dir = await mkdtemp(join(root, 'step-runner-source-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  const gitDir = join(dir, 'source.git');
  try {
    const init = ['init', '--quiet', '--bare', `--object-format=${repo.objectFormat}`, `--initial-branch=${SNAPSHOT_BRANCH}`, gitDir];
    await git(dir, init);
    await writeFile(join(gitDir, 'objects', 'info', 'alternates'), `${repo.objects}\n`);
  } catch (error) {
    await dispose();
    throw error;
  }
  return { dir, gitDir, dispose };
}

/**
 * The work tree as `git add --all` would stage it, committed without touching the user's
 * repository: git works on a copy of the user's index (GIT_INDEX_FILE) and writes every new
 * object into the temporary repository (GIT_OBJECT_DIRECTORY), reading the user's objects through
 * its alternates; no ref of the user's is written. The one trace git may leave is the mtime of an
 * existing object it would have written again ("freshening", which only delays its pruning).
 * A submodule stays a gitlink to the commit checked out in it: its uncommitted changes are not
 * part of the snapshot, and the clone step does not fetch submodules.
 */
async function snapshotWorkTree(repo: UserRepository, temp: TempRepository): Promise<Snapshot> {
  const index = join(temp.dir, 'index');
  const env = { ...NO_WRITES_INTO_USER_GIT_DIR, GIT_INDEX_FILE: index, GIT_OBJECT_DIRECTORY: join(temp.gitDir, 'objects') };
  const head = await headCommit(repo);
  await seedIndex(repo, head, index, env);
  await git(repo.workTree, ['add', '--all'], env);
  const tree = await git(repo.workTree, ['write-tree'], env);
  if (head !== undefined && tree === (await git(repo.workTree, ['rev-parse', `${head}^{tree}`]))) {
    return { commit: head, description: `${repo.workTree} at ${short(head)} (clean)` };
  }
  const message = `step-runner snapshot of ${repo.workTree} (uncommitted changes included)`;
  const parent = head === undefined ? [] : ['-p', head];
  const commit = await git(repo.workTree, ['commit-tree', '--no-gpg-sign', ...parent, '-m', message, tree], { ...env, ...SNAPSHOT_IDENTITY });
  const base = head === undefined ? '(no commits yet)' : `at ${short(head)}`;
  return { commit, description: `${repo.workTree} ${base} with uncommitted changes` };
}

async function headCommit(repo: UserRepository): Promise<string | undefined> {
  const result = await runGit(repo.workTree, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  return result.exitCode === 0 ? result.stdout : undefined;
}

/**
 * The user's index says which files are tracked (an ignored file can be), and its stat data
 * spares `git add` from hashing every unchanged file again. Its mtime is kept (to the
 * millisecond, so never later): git trusts that stat data only for files older than the index,
 * so a newer copy could hide a same-size edit.
 * Without an index, HEAD's tree is what is tracked; in a repository with no commits, nothing.
 */
async function seedIndex(repo: UserRepository, head: string | undefined, index: string, env: Record<string, string>): Promise<void> {
  const userIndex = await stat(repo.index).catch(() => undefined);
  if (userIndex !== undefined) {
    await copyFile(repo.index, index);
    await utimes(index, userIndex.atime, userIndex.mtime);
  } else if (head !== undefined) {
    await git(repo.workTree, ['read-tree', head], env);
  }
}

async function directoryOf(path: string): Promise<string> {
  const found = await stat(path).catch(() => undefined);
  if (found === undefined) throw new SourceSnapshotError(`${path} does not exist`);
  return found.isDirectory() ? path : dirname(path);
}

function short(commit: string): string {
  return commit.slice(0, 7);
}

interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** git's stdout without its final newline; a SourceSnapshotError naming the command and directory when it fails. */
async function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const result = await runGit(cwd, args, env);
  if (result.exitCode !== 0) throw failure(args, cwd, result.stderr);
  return result.stdout;
}

/**
 * Runs git without a shell, in an environment of its own: nothing like GIT_DIR or GIT_INDEX_FILE
 * from whoever started us, but HOME and XDG_CONFIG_HOME, so the user's global excludes file
 * counts as it does for `git status`. Output is captured, never shown.
 */
function runGit(cwd: string, args: string[], env: Record<string, string> = {}): Promise<GitResult> {
  const options = { cwd, env: { ...inheritedEnv(), LC_ALL: 'C', ...env }, maxBuffer: MAX_GIT_OUTPUT, encoding: 'utf8' as const };
  return new Promise((done, reject) => {
    execFile('git', args, options, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(new SourceSnapshotError(`could not run git in ${cwd} (is git installed?): ${error.message}`, { cause: error }));
      } else {
        done({ exitCode: error === null ? 0 : Number(error.code), stdout: stdout.replace(/\n$/, ''), stderr: stderr.trim() });
      }
    });
  });
}

function inheritedEnv(): Record<string, string> {
  const names = ['PATH', 'HOME', 'XDG_CONFIG_HOME'];
  return Object.fromEntries(names.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])));
}

function failure(args: string[], cwd: string, stderr: string): SourceSnapshotError {
  return new SourceSnapshotError(`git ${args.join(' ')} failed in ${cwd}: ${stderr || 'no message'}`);
}
