import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parsePipeline } from '../../pipeline/index.js';
import { commitFiles, gitGlobMatches, unmatchedKeyFiles } from './cache-key-files.js';

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
