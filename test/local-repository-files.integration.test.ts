/**
 * What the CLI reads of a local git repository, each subject below in a temporary repository or
 * folder of its own (made in its beforeAll, as before): they used to be a file each, which loaded
 * the same modules again.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, mkdir, writeFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repositoryDefaultBranch } from '../lib/local/source/local-source.js';
import { pathToFileURL } from 'node:url';
import { parsePipeline } from '../lib/pipeline/index.js';
import { commitFiles, gitGlobMatches, unmatchedKeyFiles } from '../lib/local/source/cache-key-files.js';
import { main } from '../lib/cli/main.js';
import { capturedIO } from './fixtures/captured-io.js';
import { chosenPipelineFile, defaultPipelineFile, NoPipelineFile, RUNNER_CLONE_HINT } from '../lib/cli/commands/default-pipeline.js';

/**
 * The default branch `run` gives a build (whose cache entries a branch without its own restores),
 * read from the work tree's clone as git keeps it: `git clone` points refs/remotes/origin/HEAD at
 * the remote's HEAD (git-clone(1): "the remote's default branch"), whatever that is called.
 */
describe('the default branch', () => {
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
});

describe('cache key files', () => {
  const run = promisify(execFile);
  const FILES = ['go.sum', 'package-lock.json', 'a/b.json', 'a/b/go.sum', 'a/b/c/package-lock.json', 'services/api/go.sum', 'x?y.txt', 'lib/[id].ts'];
  let repo: string;
  let commit: string;

  beforeAll(async () => {
    repo = await mkdtemp(path.join(tmpdir(), 'key-files-'));
    await run('git', ['init', '-q', repo]);
    for (const file of FILES) {
      await mkdir(path.dirname(path.join(repo, file)), { recursive: true });
      await writeFile(path.join(repo, file), `${file}\n`);
    }
    await run('git', ['-C', repo, 'add', '.']);
    await run('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', '-C', repo, 'commit', '-q', '-m', 'files']);
    commit = (await run('git', ['-C', repo, 'rev-parse', 'HEAD'])).stdout.trim();
  });
  afterAll(() => rm(repo, { recursive: true, force: true }));

  describe("run's check of cache key files", () => {
    // The clone hashes what git's :(glob) pathspec matches: run must refuse exactly what matches nothing there.
    it.each(['go.sum', '**/go.sum', '*/go.sum', 'a', 'a/*', 'a/**', '**/package-lock.json', 'a/**/package-lock.json', '*.json', '?o.sum', 'services/*/go.sum', 'x?y.txt', 'lib/[i]d].ts', 'nothing', 'a/b/c', '*.lock', '**/*.sum'])(
      'matches %s as git does',
      async (pattern) => {
        const { stdout } = await run('git', ['-C', repo, 'ls-files', '--', `:(glob)${pattern}`]);
        const byGit = stdout.split('\n').filter(Boolean).sort();
        expect(FILES.filter((file) => gitGlobMatches(pattern, file)).sort()).toEqual(byGit);
      },
    );

    it("refuses a pattern that matches none of the commit's files, with its line, and accepts the rest", async () => {
      const files = await commitFiles(pathToFileURL(path.join(repo, '.git')).href, commit);
      const pipeline = parsePipeline(
        'version: 1\ncache:\n  - key:\n      files: [go.sum, "**/yarn.lock"]\n    paths: [vendor]\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: [go test ./...]\n',
        'ci.yml',
      );
      const problem = unmatchedKeyFiles(pipeline, files);
      expect(problem?.message).toBe('ci.yml line 4: cache.key.files: "**/yarn.lock" matches no file of the commit: a cache key is a hash of files of the repository');
      expect(problem?.location).toMatchObject({ file: 'ci.yml', line: 4, field: 'cache.key.files' });
      const matching = 'version: 1\ncache:\n  - key: {files: ["**/go.sum", a]}\n    paths: [vendor]\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: [go test ./...]\n';
      expect(unmatchedKeyFiles(parsePipeline(matching, 'ci.yml'), files)).toBeUndefined();
    });
  });
});

/**
 * `validate` refuses what `run` refuses before it starts: a cache key file pattern that matches no
 * file of the work tree `run` would build (as it is on disk, untracked files included). In-process
 * through the CLI's `main`, in a git work tree of its own; neither command starts a cluster.
 */
describe("validate's check of key files", () => {
  let repo: string;
  beforeAll(async () => {
    repo = await mkdtemp(path.join(tmpdir(), 'validate-key-files-'));
    await promisify(execFile)('git', ['init', '-q', repo]);
    await writeFile(path.join(repo, 'package-lock.json'), '{}\n');
  });
  afterAll(() => rm(repo, { recursive: true, force: true }));

  async function cli(args: string[]) {
    const io = capturedIO();
    const code = await main(args, io);
    return { code, out: io.outLines, err: io.errLines };
  }

  test('a cache key file that matches nothing: refused by validate as by run, with its line; accepted once the file exists', async () => {
    const file = path.join(repo, 'ci.yml');
    await writeFile(file, 'version: 1\ncache:\n  - key: {files: [package-lock.json, "**/yarn.lock"]}\n    paths: [node_modules]\nsteps:\n  - name: test\n    image: node:22-alpine\n    commands: [npm test]\n');
    const validated = await cli(['validate', file]);
    const ran = await cli(['run', file, '--runtime', 'process']);
    expect(validated).toEqual({ code: 2, out: [], err: [`InvalidPipeline: ${file} line 3: cache.key.files: "**/yarn.lock" matches no file of the commit: a cache key is a hash of files of the repository`] });
    expect(ran.code).toBe(2);
    expect(ran.err).toEqual(validated.err);

    await writeFile(path.join(repo, 'yarn.lock'), '\n');
    expect(await cli(['validate', file])).toEqual({ code: 0, out: [`${file}: valid, 1 step`], err: [] });
  });
});

/**
 * The pipeline file `run`, `list` and `validate` take when given none: `.step-runner.yml` (or
 * `.yaml`) at the root of the work tree holding the current directory, else in that directory.
 * Integration: finding the work tree's root asks git.
 */
describe('the default pipeline file', () => {
  const git = promisify(execFile);
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'default-pipeline-'));
  });
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  test('from a folder deep in a work tree: the file at its root, .yaml too', async () => {
    const repo = path.join(scratch, 'repo');
    await git('git', ['init', '-q', repo]);
    const deep = path.join(repo, 'src', 'lib');
    await mkdir(deep, { recursive: true });
    await writeFile(path.join(repo, '.step-runner.yaml'), 'version: 1\n');
    await writeFile(path.join(deep, '.step-runner.yml'), 'version: 1\n');
    expect(await defaultPipelineFile(deep)).toBe(path.join(repo, '.step-runner.yaml'));
    expect(await chosenPipelineFile(undefined, deep)).toEqual({ path: path.join(repo, '.step-runner.yaml'), shownAs: path.join('..', '..', '.step-runner.yaml') });
    // The .yml wins when both are there.
    await writeFile(path.join(repo, '.step-runner.yml'), 'version: 1\n');
    expect(await defaultPipelineFile(deep)).toBe(path.join(repo, '.step-runner.yml'));
  });

  test('outside any work tree: the current folder; none there is a usage error naming the paths tried', async () => {
    const plain = path.join(scratch, 'plain');
    await mkdir(plain);
    const tried = [path.join(plain, '.step-runner.yml'), path.join(plain, '.step-runner.yaml')];
    await expect(defaultPipelineFile(plain)).rejects.toThrow(NoPipelineFile);
    await expect(defaultPipelineFile(plain)).rejects.toThrow(`no pipeline file given, and none found at ${tried.join(' or ')}`);
    await writeFile(tried[0]!, 'version: 1\n');
    expect(await chosenPipelineFile(undefined, plain)).toEqual({ path: tried[0], shownAs: '.step-runner.yml' });
  });

  test('a file given is taken as given, the default never looked for', async () => {
    expect(await chosenPipelineFile('ci/build.yml', '/nowhere')).toEqual({ path: '/nowhere/ci/build.yml', shownAs: 'ci/build.yml' });
  });

  test("in a clone of the runner itself (where npm start runs): what to name instead, the example it names there", async () => {
    const clone = path.join(scratch, 'runner-clone');
    await git('git', ['init', '-q', clone]);
    await writeFile(path.join(clone, 'package.json'), JSON.stringify({ name: 'serverless-step-runner' }));
    await expect(defaultPipelineFile(clone)).rejects.toThrow(`.step-runner.yaml${RUNNER_CLONE_HINT}`);
    expect(RUNNER_CLONE_HINT).toContain('npm start -- run examples/hello.yml');
    await expect(access(path.join(import.meta.dirname, '..', 'examples', 'hello.yml'))).resolves.toBeUndefined();
  });
});
