import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findWorkTree, SourceSnapshotError, snapshotSource, type SourceSnapshot } from './source-snapshot.js';

// Real git in temp directories. HOME points at a home of the tests' own, so neither the
// developer's git config nor a missing identity changes the outcome: the module must bring its
// own committer, and must honour this home's global excludes file as `git status` does.
const scratchRoot = realpathSync(mkdtempSync(join(tmpdir(), 'source-snapshot-test-')));
const home = join(scratchRoot, 'home');
const savedEnv = { ...process.env };

beforeAll(() => {
  mkdirSync(home);
  writeFileSync(join(home, 'global-ignore'), '*.secret\n');
  writeFileSync(join(home, '.gitconfig'), `[init]\n\tdefaultBranch = main\n[core]\n\texcludesFile = ${join(home, 'global-ignore')}\n`);
  process.env.HOME = home;
  delete process.env.XDG_CONFIG_HOME;
});

afterEach(() => {
  process.env = { ...savedEnv, HOME: home };
  delete process.env.XDG_CONFIG_HOME;
});

afterAll(() => {
  process.env = savedEnv;
  rmSync(scratchRoot, { recursive: true, force: true });
});

const snapshots: SourceSnapshot[] = [];
afterEach(async () => {
  await Promise.all(snapshots.splice(0).map((s) => s.dispose()));
});

async function snapshot(workTree: string, options: { commit?: string; tempRoot?: string } = {}): Promise<SourceSnapshot> {
  const result = await snapshotSource(workTree, options);
  snapshots.push(result);
  return result;
}

function scratch(name: string): string {
  return mkdtempSync(join(scratchRoot, `${name}-`));
}

function gitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function gitOrNothing(cwd: string, ...args: string[]): string | undefined {
  const result = spawnSync('git', args, { cwd, env: gitEnv(), encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function write(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

function newRepo(): string {
  const repo = scratch('repo');
  git(repo, 'init', '-q');
  return repo;
}

/** Every kind of file state there is: the snapshot must hold exactly `busyWorkTreeFiles`. */
function busyRepo(): string {
  const repo = newRepo();
  write(repo, '.gitignore', '*.log\nbuild/\n');
  for (const name of ['keep.txt', 'modified.txt', 'staged.txt', 'staged-then-edited.txt', 'deleted.txt', 'removed.txt']) {
    write(repo, name, `${name} as committed\n`);
  }
  write(repo, 'dir/committed.txt', 'nested\n');
  write(repo, 'tracked.log', 'tracked although ignored\n');
  write(repo, 'untracked-now.log', 'tracked, then no longer\n');
  git(repo, 'add', '.');
  git(repo, 'add', '--force', 'tracked.log', 'untracked-now.log');
  git(repo, 'commit', '-q', '-m', 'first');

  write(repo, 'modified.txt', 'modified, not staged\n');
  write(repo, 'staged.txt', 'staged\n');
  write(repo, 'staged-then-edited.txt', 'staged\n');
  git(repo, 'add', 'staged.txt', 'staged-then-edited.txt');
  write(repo, 'staged-then-edited.txt', 'edited after staging\n');
  unlinkSync(join(repo, 'deleted.txt'));
  git(repo, 'rm', '-q', 'removed.txt');
  write(repo, 'tracked.log', 'tracked, ignored, edited\n');
  git(repo, 'rm', '-q', '--cached', 'untracked-now.log'); // the index, not HEAD, says what is tracked
  write(repo, 'force-staged.log', 'ignored, but staged by force\n');
  git(repo, 'add', '--force', 'force-staged.log');
  write(repo, 'new-staged.txt', 'new and staged\n');
  write(repo, 'staged-gone.txt', 'staged, then deleted from disk\n');
  git(repo, 'add', 'new-staged.txt', 'staged-gone.txt');
  unlinkSync(join(repo, 'staged-gone.txt'));
  write(repo, 'untracked.txt', 'untracked\n');
  write(repo, 'dir/new file.txt', 'untracked, with a space\n');
  write(repo, 'run.sh', '#!/bin/sh\necho hi\n');
  chmodSync(join(repo, 'run.sh'), 0o755);
  write(repo, 'debug.log', 'ignored\n');
  write(repo, 'build/out.bin', 'ignored directory\n');
  write(repo, 'notes.secret', 'ignored by the global excludes file\n');
  return repo;
}

const busyWorkTreeFiles = {
  '.gitignore': '*.log\nbuild/\n',
  'keep.txt': 'keep.txt as committed\n',
  'modified.txt': 'modified, not staged\n',
  'staged.txt': 'staged\n',
  'staged-then-edited.txt': 'edited after staging\n',
  'tracked.log': 'tracked, ignored, edited\n',
  'force-staged.log': 'ignored, but staged by force\n',
  'new-staged.txt': 'new and staged\n',
  'untracked.txt': 'untracked\n',
  'dir/committed.txt': 'nested\n',
  'dir/new file.txt': 'untracked, with a space\n',
  'run.sh': '#!/bin/sh\necho hi\n',
};

/** What the clone step does: fetch exactly that commit, shallow, into an empty repository. */
function fetchLikeTheCloneStep(source: SourceSnapshot, protocolVersion = '2'): string {
  const workspace = scratch('workspace');
  git(workspace, 'init', '-q', '.');
  git(workspace, '-c', `protocol.version=${protocolVersion}`, 'fetch', '-q', '--depth', '1', source.url, source.commit);
  git(workspace, 'checkout', '-q', 'FETCH_HEAD');
  return workspace;
}

function filesOf(root: string, dir = root): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== '.git') Object.assign(files, filesOf(root, path));
    else if (entry.isFile()) files[relative(root, path)] = readFileSync(path, 'utf8');
  }
  return files;
}

function fetchedFiles(source: SourceSnapshot): Record<string, string> {
  return filesOf(fetchLikeTheCloneStep(source));
}

function hashesUnder(dir: string): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    hashes[relative(dir, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return hashes;
}

/** All a build could change in the user's repository; `git status` must not refresh the index. */
function repositoryState(repo: string, gitDir = join(repo, '.git')) {
  const index = join(gitDir, 'index');
  return {
    status: git(repo, '--no-optional-locks', 'status', '--porcelain=v2', '--branch', '--untracked-files=all', '--ignored'),
    head: gitOrNothing(repo, 'rev-parse', '--verify', '--quiet', 'HEAD'),
    refs: git(repo, 'for-each-ref'),
    index: existsSync(index) ? { bytes: readFileSync(index).toString('base64'), mtimeMs: statSync(index).mtimeMs } : 'absent',
    objectFiles: readdirSync(join(gitDir, 'objects'), { recursive: true }).sort(),
    gitDirFiles: hashesUnder(gitDir),
  };
}

describe('snapshotSource of a work tree', () => {
  it('commits the work tree exactly as it is on disk: edits staged or not, no deleted or ignored files', async () => {
    const repo = busyRepo();
    const head = git(repo, 'rev-parse', 'HEAD');

    const source = await snapshot(repo);

    expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(source.commit).not.toBe(head);
    expect(source.description).toBe(`${repo} at ${head.slice(0, 7)} with uncommitted changes`);
    const workspace = fetchLikeTheCloneStep(source);
    expect(filesOf(workspace)).toEqual(busyWorkTreeFiles);
    expect(git(workspace, 'ls-tree', 'HEAD', 'run.sh')).toMatch(/^100755 /);
    const commit = git(workspace, 'cat-file', '-p', 'HEAD');
    expect(commit).toContain(`\nparent ${head}\n`);
    expect(commit).toContain('\nauthor step-runner <step-runner@localhost> ');
    expect(commit).toMatch(new RegExp(`\\n\\nstep-runner snapshot of ${repo} \\(uncommitted changes included\\)$`));
  });

  it("leaves the user's status, HEAD, refs, index and object store as they were", async () => {
    const repo = busyRepo();
    const before = repositoryState(repo);

    const source = await snapshot(repo);
    fetchLikeTheCloneStep(source);
    await source.dispose();

    expect(repositoryState(repo)).toEqual(before);
  });

  it('writes nothing into the user\'s .git even with a split index, whose writes go beside the index', async () => {
    const repo = busyRepo();
    git(repo, 'config', 'core.splitIndex', 'true');
    git(repo, 'config', 'splitIndex.maxPercentChange', '0');
    git(repo, 'update-index', '--split-index');
    const before = repositoryState(repo);
    expect(Object.keys(before.gitDirFiles).some((path) => path.startsWith('sharedindex.'))).toBe(true);

    const source = await snapshot(repo);

    expect(fetchedFiles(source)).toEqual(busyWorkTreeFiles);
    expect(repositoryState(repo)).toEqual(before);
  });

  it('hands back HEAD itself when nothing is uncommitted', async () => {
    const repo = newRepo();
    write(repo, 'a.txt', 'a\n');
    write(repo, '.gitignore', '*.log\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first');
    write(repo, 'ignored.log', 'does not count\n');
    const head = git(repo, 'rev-parse', 'HEAD');

    const source = await snapshot(repo);

    expect(source.commit).toBe(head);
    expect(source.description).toBe(`${repo} at ${head.slice(0, 7)} (clean)`);
    expect(fetchedFiles(source)).toEqual({ 'a.txt': 'a\n', '.gitignore': '*.log\n' });
  });

  it('snapshots a repository with no commits and no index yet, and creates neither', async () => {
    const repo = newRepo();
    write(repo, '.gitignore', '*.log\n');
    write(repo, 'a.txt', 'a\n');
    write(repo, 'sub/b.txt', 'b\n');
    write(repo, 'debug.log', 'ignored\n');
    const before = repositoryState(repo);
    expect(before.index).toBe('absent');

    const source = await snapshot(repo);

    expect(source.description).toBe(`${repo} (no commits yet) with uncommitted changes`);
    const workspace = fetchLikeTheCloneStep(source);
    expect(filesOf(workspace)).toEqual({ '.gitignore': '*.log\n', 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
    expect(git(workspace, 'cat-file', '-p', 'HEAD')).not.toContain('\nparent ');
    expect(repositoryState(repo)).toEqual(before);
  });

  it('sees a same-size edit made in the second the index was written, as git status does', async () => {
    const repo = newRepo();
    git(repo, 'config', 'core.checkStat', 'minimal'); // whole seconds and size: the race, made certain
    git(repo, 'config', 'core.trustCtime', 'false');
    const second = new Date(Math.floor(Date.now() / 1000) * 1000 - 600_000);
    write(repo, 'a.txt', 'aaa\n');
    utimesSync(join(repo, 'a.txt'), second, second);
    git(repo, 'add', 'a.txt');
    git(repo, 'commit', '-q', '-m', 'first');
    write(repo, 'a.txt', 'bbb\n');
    utimesSync(join(repo, 'a.txt'), second, second);
    utimesSync(join(repo, '.git', 'index'), second, second);
    expect(git(repo, '--no-optional-locks', 'status', '--porcelain')).toBe('M a.txt');

    const source = await snapshot(repo);

    expect(fetchedFiles(source)).toEqual({ 'a.txt': 'bbb\n' });
  });

  it("takes HEAD's files as the tracked ones when there is no index", async () => {
    const repo = newRepo();
    write(repo, '.gitignore', '*.log\n');
    write(repo, 'tracked.log', 'tracked\n');
    git(repo, 'add', '--force', '.');
    git(repo, 'commit', '-q', '-m', 'first');
    unlinkSync(join(repo, '.git', 'index'));
    write(repo, 'tracked.log', 'tracked, edited\n');

    const source = await snapshot(repo);

    expect(fetchedFiles(source)).toEqual({ '.gitignore': '*.log\n', 'tracked.log': 'tracked, edited\n' });
  });

  it("snapshots a linked worktree with its own index, borrowing the main repository's objects", async () => {
    const repo = busyRepo();
    const linked = join(scratch('linked'), 'wt');
    git(repo, 'worktree', 'add', '-q', '--detach', linked);
    write(linked, 'keep.txt', 'edited in the linked worktree\n');
    const before = repositoryState(repo);

    const source = await snapshot(linked);

    expect(source.description).toMatch(new RegExp(`^${linked} at [0-9a-f]{7} with uncommitted changes$`));
    expect(fetchedFiles(source)).toEqual({
      '.gitignore': '*.log\nbuild/\n',
      'keep.txt': 'edited in the linked worktree\n',
      'modified.txt': 'modified.txt as committed\n',
      'staged.txt': 'staged.txt as committed\n',
      'staged-then-edited.txt': 'staged-then-edited.txt as committed\n',
      'deleted.txt': 'deleted.txt as committed\n',
      'removed.txt': 'removed.txt as committed\n',
      'tracked.log': 'tracked although ignored\n',
      'untracked-now.log': 'tracked, then no longer\n',
      'dir/committed.txt': 'nested\n',
    });
    expect(repositoryState(repo)).toEqual(before);
  });

  it('keeps a submodule as the gitlink it is', async () => {
    const repo = newRepo();
    write(repo, 'a.txt', 'a\n');
    const gitlink = 'c0ffee0000000000000000000000000000000000';
    git(repo, 'add', 'a.txt');
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${gitlink},vendor/lib`);
    git(repo, 'commit', '-q', '-m', 'with a submodule');
    mkdirSync(join(repo, 'vendor', 'lib'), { recursive: true }); // as a clone leaves it before `submodule update`
    write(repo, 'a.txt', 'edited\n');

    const source = await snapshot(repo);

    const workspace = fetchLikeTheCloneStep(source);
    expect(git(workspace, 'ls-tree', 'HEAD', 'vendor/lib')).toBe(`160000 commit ${gitlink}\tvendor/lib`);
    expect(filesOf(workspace)).toEqual({ 'a.txt': 'edited\n' });
  });

  it("is fetchable the clone step's way under protocol v0, which only serves advertised tips, and v2", async () => {
    const source = await snapshot(busyRepo());

    expect(filesOf(fetchLikeTheCloneStep(source, '0'))).toEqual(busyWorkTreeFiles);
    expect(filesOf(fetchLikeTheCloneStep(source, '2'))).toEqual(busyWorkTreeFiles);
  });

  it('ignores GIT_DIR, GIT_INDEX_FILE and the like in its own environment', async () => {
    const repo = busyRepo();
    const elsewhere = newRepo();
    const strayIndex = join(scratch('stray'), 'index');
    Object.assign(process.env, {
      GIT_DIR: join(elsewhere, '.git'),
      GIT_WORK_TREE: elsewhere,
      GIT_INDEX_FILE: strayIndex,
      GIT_OBJECT_DIRECTORY: join(elsewhere, '.git', 'objects'),
    });

    const source = await snapshot(repo);

    expect(fetchedFiles(source)).toEqual(busyWorkTreeFiles);
    expect(existsSync(strayIndex)).toBe(false);
  });
});

describe('snapshotSource --commit', () => {
  function twoCommits(): { repo: string; first: string; second: string } {
    const repo = newRepo();
    write(repo, 'a.txt', 'one\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'one');
    const first = git(repo, 'rev-parse', 'HEAD');
    write(repo, 'a.txt', 'two\n');
    git(repo, 'commit', '-q', '-a', '-m', 'two');
    write(repo, 'a.txt', 'uncommitted\n');
    write(repo, 'b.txt', 'untracked\n');
    return { repo, first, second: git(repo, 'rev-parse', 'HEAD') };
  }

  it('serves that commit, whatever the work tree holds', async () => {
    const { repo, first, second } = twoCommits();
    const before = repositoryState(repo);

    const main = await snapshot(repo, { commit: 'main' });
    const older = await snapshot(repo, { commit: 'HEAD~1' });

    expect(main.commit).toBe(second);
    expect(main.description).toBe(`${repo} commit ${second.slice(0, 7)} (--commit main)`);
    expect(fetchedFiles(main)).toEqual({ 'a.txt': 'two\n' });
    expect(older.commit).toBe(first);
    expect(fetchedFiles(older)).toEqual({ 'a.txt': 'one\n' });
    expect(repositoryState(repo)).toEqual(before);
  });

  it('names a ref that is not a commit, and leaves no temporary repository behind', async () => {
    const { repo } = twoCommits();
    const tempRoot = scratch('temp-root');

    const attempt = snapshotSource(repo, { commit: 'no-such-branch', tempRoot });

    await expect(attempt).rejects.toThrow(SourceSnapshotError);
    await expect(attempt).rejects.toThrow(`--commit no-such-branch: no such commit in ${repo}`);
    expect(readdirSync(tempRoot)).toEqual([]);
  });
});

describe('snapshotSource failures and clean-up', () => {
  it('keeps the temporary repository under tempRoot until dispose, which may be called twice', async () => {
    const tempRoot = scratch('temp-root');
    const source = await snapshotSource(busyRepo(), { tempRoot });
    const gitDir = fileURLToPath(source.url);

    expect(source.url).toMatch(/^file:\/\//);
    expect(relative(tempRoot, gitDir).startsWith('..')).toBe(false);
    expect(git(gitDir, 'rev-parse', '--is-bare-repository')).toBe('true');

    await source.dispose();
    await source.dispose();
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('says which git command failed where, and removes what it had made', async () => {
    const repo = busyRepo();
    writeFileSync(join(repo, '.git', 'index'), 'not an index');
    const tempRoot = scratch('temp-root');

    const attempt = snapshotSource(repo, { tempRoot });

    await expect(attempt).rejects.toThrow(SourceSnapshotError);
    await expect(attempt).rejects.toThrow(new RegExp(`^git add --all failed in ${repo}: .*index`));
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('refuses a directory outside any work tree', async () => {
    const outside = scratch('outside');

    await expect(snapshotSource(outside)).rejects.toThrow(new RegExp(`^${outside} is not in a git work tree: fatal: not a git repository`));
  });
});

describe('findWorkTree', () => {
  it('finds the top of the work tree from a file or a directory in it', async () => {
    const repo = busyRepo();

    expect(await findWorkTree(join(repo, 'dir', 'committed.txt'))).toBe(repo);
    expect(await findWorkTree(join(repo, 'dir'))).toBe(repo);
    expect(await findWorkTree(repo)).toBe(repo);
  });

  it('answers undefined outside any work tree, and inside a .git directory', async () => {
    const outside = scratch('outside');
    write(outside, 'pipeline.yml', 'steps: []\n');

    expect(await findWorkTree(join(outside, 'pipeline.yml'))).toBeUndefined();
    expect(await findWorkTree(outside)).toBeUndefined();
    expect(await findWorkTree(join(busyRepo(), '.git'))).toBeUndefined();
  });

  it("lets none of git's complaints reach the terminal", () => {
    const outside = scratch('outside');
    const script = join(scratch('script'), 'find.mts'); // .mts: ESM outside this package too
    const module = join(dirname(fileURLToPath(import.meta.url)), 'source-snapshot.ts');
    writeFileSync(script, `import { findWorkTree } from ${JSON.stringify(module)};\nconsole.log(String(await findWorkTree(${JSON.stringify(outside)})));\n`);

    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), env: { ...savedEnv, NODE_OPTIONS: '' }, encoding: 'utf8' });

    expect({ stdout: run.stdout, stderr: run.stderr }).toEqual({ stdout: 'undefined\n', stderr: '' });
  });

  it('names a path that does not exist', async () => {
    const missing = join(scratch('missing'), 'nope.yml');

    await expect(findWorkTree(missing)).rejects.toThrow(new SourceSnapshotError(`${missing} does not exist`));
  });
});
