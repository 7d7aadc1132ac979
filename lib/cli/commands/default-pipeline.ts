/**
 * The pipeline file a command builds, lists or validates when none is given: `.step-runner.yml`
 * (or `.yaml`) at the root of the git work tree holding the current directory, else in the
 * current directory itself, as a GitHub delivery reads it from the repository's root.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { findWorkTree } from '../../local/source/source-snapshot.js';
import { UsageError } from './usage.js';

export const DEFAULT_PIPELINE_FILES = ['.step-runner.yml', '.step-runner.yaml'] as const;

/** No FILE was given and no default file exists: names every path looked at. */
export class NoPipelineFile extends UsageError {
  constructor(readonly tried: readonly string[]) {
    super(`no pipeline file given, and none found at ${tried.join(' or ')}`);
  }
}

/** The absolute path of the default pipeline file; throws NoPipelineFile when there is none. */
export async function defaultPipelineFile(cwd: string = process.cwd()): Promise<string> {
  const root = (await findWorkTree(cwd)) ?? cwd;
  const tried = DEFAULT_PIPELINE_FILES.map((name) => path.join(root, name));
  for (const file of tried) {
    if (await exists(file)) return file;
  }
  throw new NoPipelineFile(tried);
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
