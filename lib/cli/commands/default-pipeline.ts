/**
 * The pipeline file a command builds, lists or validates when none is given: `.step-runner.yml`
 * (or `.yaml`) at the root of the git work tree holding the current directory, else in the
 * current directory itself, as a GitHub delivery reads it from the repository's root.
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { findWorkTree } from '../../local/source/source-snapshot.js';
import { UsageError } from './usage.js';

export const DEFAULT_PIPELINE_FILES = ['.step-runner.yml', '.step-runner.yaml'] as const;

/** The runner's own package: a clone of it has no pipeline of its own, so `npm start -- run` typed there finds none. */
const RUNNER_PACKAGE = 'serverless-step-runner';

/**
 * What to do when the folder looked in is a clone of the runner itself: `npm start -- run` typed
 * in a fresh clone lands here (npm start runs where it was typed: main.ts, startFolder), and the
 * runner's repository has no pipeline of its own.
 */
export const RUNNER_CLONE_HINT =
  "; this is the runner's own clone, which has no pipeline of its own: run it from your repository (cd ~/src/my-app && npm --prefix ~/src/serverless-step-runner start -- run, with this clone's folder), name your repository's file (npm start -- run ~/src/my-app/.step-runner.yml) or try npm start -- run examples/hello.yml";

/** No FILE was given and no default file exists: names every path looked at. */
export class NoPipelineFile extends UsageError {
  constructor(readonly tried: readonly string[], inRunnerClone = false) {
    super(`no pipeline file given, and none found at ${tried.join(' or ')}${inRunnerClone ? RUNNER_CLONE_HINT : ''}`);
  }
}

/** The absolute path of the default pipeline file; throws NoPipelineFile when there is none. */
export async function defaultPipelineFile(cwd: string = process.cwd()): Promise<string> {
  const root = (await findWorkTree(cwd)) ?? cwd;
  const tried = DEFAULT_PIPELINE_FILES.map((name) => path.join(root, name));
  for (const file of tried) {
    if (await exists(file)) return file;
  }
  throw new NoPipelineFile(tried, await isRunnerClone(root));
}

async function isRunnerClone(root: string): Promise<boolean> {
  try {
    return (JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { name?: unknown }).name === RUNNER_PACKAGE;
  } catch {
    return false;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** The file a command was given, else the default one; `shownAs` is how messages name it. */
export async function chosenPipelineFile(given: string | undefined, cwd: string = process.cwd()): Promise<{ path: string; shownAs: string }> {
  if (given !== undefined) return { path: path.resolve(cwd, given), shownAs: given };
  const found = await defaultPipelineFile(cwd);
  return { path: found, shownAs: path.relative(cwd, found) || found };
}
