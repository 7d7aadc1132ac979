/**
 * `validate` refuses what `run` refuses before it starts: a cache key file pattern that matches no
 * file of the work tree `run` would build (as it is on disk, untracked files included). In-process
 * through the CLI's `main`, in a git work tree of its own; neither command starts a cluster.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../lib/cli/main.js';
import { capturedIO } from './fixtures/captured-io.js';

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
