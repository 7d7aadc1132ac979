/**
 * The pipeline file `run`, `list` and `validate` take when given none: `.step-runner.yml` (or
 * `.yaml`) at the root of the work tree holding the current directory, else in that directory.
 * Integration: finding the work tree's root asks git.
 */
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chosenPipelineFile, defaultPipelineFile, NoPipelineFile, RUNNER_CLONE_HINT } from '../lib/cli/commands/default-pipeline.js';

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
