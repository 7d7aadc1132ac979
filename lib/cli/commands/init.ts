/**
 * `step-runner init`: a starter `.step-runner.yml` at the root of the work tree it is run in, from
 * what is there (lib/cli/init/: the facts, then the file); never over an existing one unless
 * `--force`. Checked as `validate` checks a file before it is written.
 */
import { execFile } from 'node:child_process';
import { open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { parseCatalogDocument } from '../../emulators/kubernetes/image-catalog.js';
import { parsePipeline } from '../../pipeline/index.js';
import { findWorkTree } from '../../local/source/source-snapshot.js';
import { detectProject, INIT_FILES, type InitFile, type RepositoryFiles } from '../init/project-facts.js';
import { knownImages, starterPipeline } from '../init/starter-pipeline.js';
import type { CommandIO } from './cluster.js';
import { DEFAULT_PIPELINE_FILES } from './default-pipeline.js';
import { UsageError } from './usage.js';

export const summary = 'write a starter .step-runner.yml for this repository, from what is in it';

const USAGE = 'init [--force]';

export const INIT_HELP = `Usage: step-runner ${USAGE}

Writes .step-runner.yml at the root of the current git work tree (outside one, in the current
directory), from what it finds there. A Node.js project (package.json): its package manager from
the lock file or packageManager (npm, pnpm or yarn, through corepack), its Node version from
.nvmrc, .node-version or engines.node, an install step with a cache keyed on the lock file (pnpm
and Yarn: corepack's download of them too, kept in the workspace), and a step for each of its lint,
build and test scripts. Anything else: a commented skeleton. Its images are ones the embedded
cluster can pull; the file says what to change when not. Then prints the file and the command
that builds it.
  --force           overwrite an existing .step-runner.yml (or .step-runner.yaml)
  -h, --help        this help`;

/** The catalog the embedded cluster pulls from (lib/emulators/kubernetes/index.ts reads the same file). */
const CATALOG = new URL('../../emulators/kubernetes/images/catalog.json', import.meta.url);

/** A lock file's head is all init reads of it (yarn.lock's `__metadata:` is at its top). */
const HEAD_BYTES = 64 * 1024;

export async function run(argv: string[], io: CommandIO): Promise<number> {
  let force;
  try {
    const parsed = parseArgs({ args: argv, options: { force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
    if (parsed.values.help) {
      io.out(INIT_HELP);
      return 0;
    }
    force = parsed.values.force === true;
  } catch (error) {
    io.err(`step-runner init: ${error instanceof UsageError ? error.message : (error as Error).message}`);
    io.err(`Usage: step-runner ${USAGE}`);
    return 2;
  }
  const cwd = process.cwd();
  const inGit = await findWorkTree(cwd);
  const root = inGit ?? cwd;
  const existing = await firstExisting(DEFAULT_PIPELINE_FILES.map((name) => path.join(root, name)));
  const target = existing ?? path.join(root, DEFAULT_PIPELINE_FILES[0]);
  const shown = path.relative(cwd, target) || target;
  if (existing && !force) {
    io.err(`step-runner init: ${shown} exists already; nothing written (--force writes over it)`);
    return 1;
  }
  const text = starterPipeline(detectProject(await repositoryFiles(root, inGit !== undefined)), knownImages(parseCatalogDocument(JSON.parse(await readFile(CATALOG, 'utf8')), CATALOG.pathname)));
  // The starter is ours: one `validate` would refuse is a bug here, never a file left to the user.
  const pipeline = parsePipeline(text, shown);
  await writeFile(target, text);
  io.out(`${existing ? 'Overwrote' : 'Wrote'} ${shown} (${pipeline.steps.length} step${pipeline.steps.length === 1 ? '' : 's'}: ${pipeline.steps.map((s) => s.name).join(', ')}):`);
  io.out('');
  text.trimEnd().split('\n').forEach((line) => io.out(line === '' ? '' : `  ${line}`));
  io.out('');
  if (inGit === undefined) io.out('Not in a git work tree: `run` checks out nothing here, so the steps start in an empty workspace. `git init` and commit first.');
  io.out('Next: step-runner run');
  return 0;
}

async function firstExisting(files: string[]): Promise<string | undefined> {
  for (const file of files) {
    try {
      await (await open(file, 'r')).close();
      return file;
    } catch {
      // not there
    }
  }
  return undefined;
}

async function repositoryFiles(root: string, inGit: boolean): Promise<RepositoryFiles> {
  const texts: RepositoryFiles['texts'] = {};
  for (const name of INIT_FILES) {
    const text = await head(path.join(root, name), name === 'package.json' ? Infinity : HEAD_BYTES);
    if (text !== undefined) texts[name as InitFile] = text;
  }
  return { texts, ...(inGit ? { tracked: await trackedOf(root, Object.keys(texts)) } : {}) };
}

async function head(file: string, bytes: number): Promise<string | undefined> {
  try {
    if (bytes === Infinity) return await readFile(file, 'utf8');
    const handle = await open(file, 'r');
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(bytes), 0, bytes, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (['ENOENT', 'EISDIR', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}

/** Which of the files git tracks at the root: a cache key file must be a tracked one. */
async function trackedOf(root: string, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const { stdout } = await promisify(execFile)('git', ['-C', root, 'ls-files', '-z', '--', ...names]);
  return new Set(stdout.split('\0').filter(Boolean));
}
