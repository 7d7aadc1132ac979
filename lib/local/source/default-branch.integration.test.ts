/**
 * The default branch `run` gives a build (whose cache entries a branch without its own restores),
 * read from the work tree's clone as git keeps it: `git clone` points refs/remotes/origin/HEAD at
 * the remote's HEAD (git-clone(1): "the remote's default branch"), whatever that is called.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repositoryDefaultBranch } from './local-source.js';

const git = (cwd: string, ...args: string[]) => promisify(execFile)('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd });
let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'default-branch-'));
  // A remote whose default branch is master, with a second branch.
  await git(root, 'init', '-q', '--initial-branch=master', 'upstream');
  await git(path.join(root, 'upstream'), 'commit', '-q', '--allow-empty', '-m', 'first');
  await git(path.join(root, 'upstream'), 'branch', 'feature');
  await git(root, 'clone', '-q', 'upstream', 'cloned');
  await git(path.join(root, 'cloned'), 'checkout', '-q', 'feature');
  // The same remote under another name, origin absent: the current branch's remote is asked.
  await git(root, 'clone', '-q', '--origin', 'fork', 'upstream', 'renamed');
  await git(root, 'init', '-q', '--initial-branch=trunk', 'alone');
});
afterAll(() => rm(root, { recursive: true, force: true }));

test.each([
  ['a clone on another branch: origin/HEAD', 'cloned', { name: 'master', from: 'origin/HEAD' }],
  ['no origin: the remote of the current branch', 'renamed', { name: 'master', from: 'fork/HEAD, the remote of branch master' }],
  ['no remote at all: main, and says so', 'alone', { name: 'main', from: "no origin/HEAD, nor a remote HEAD of the current branch's remote: the default" }],
])('%s', async (_, repo, expected) => {
  expect(await repositoryDefaultBranch(path.join(root, repo))).toEqual(expected);
});
