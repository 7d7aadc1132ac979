/**
 * The acceptance's repositories on disk: a fresh clone at the pinned commit (from a local mirror
 * when one is there, else from GitHub), and the npm cache its install reads, filled on the host
 * (the one place a registry is reachable) and copied into the work tree, untracked, where `run`'s
 * checkout of the work tree as it is on disk carries it into the build's workspace. For init's
 * starters: a fixture committed into a new repository, and the folders its install step caches
 * filled the same way.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { OFFLINE_CACHE, type AcceptanceRepository } from './repositories.js';

const run = promisify(execFile);
const big = { maxBuffer: 64 * 1024 * 1024 };

/** A bare mirror of owner/name under mirrors (`owner+name/repo` or `owner+name`), else GitHub's URL. */
export function cloneSource(repository: AcceptanceRepository, mirrors: string | undefined): string {
  const folder = repository.github.replace('/', '+');
  for (const candidate of mirrors ? [path.join(mirrors, folder, 'repo'), path.join(mirrors, folder)] : []) {
    if (existsSync(path.join(candidate, 'HEAD'))) return candidate;
  }
  return `https://github.com/${repository.github}.git`;
}

/** A clean clone at the pinned commit, on the branch origin/HEAD names (so the default branch is read from it). */
export async function cloneFixture(repository: AcceptanceRepository, source: string, into: string): Promise<void> {
  await rm(into, { recursive: true, force: true });
  await run('git', ['clone', '-q', '--no-checkout', source, into], big);
  const branch = (await run('git', ['-C', into, 'rev-parse', '--abbrev-ref', 'origin/HEAD'])).stdout.trim().replace(/^origin\//, '');
  await run('git', ['-C', into, 'checkout', '-q', '-B', branch, repository.commit], big);
}

/**
 * Fills `cache` (an npm cache folder on the host, kept between runs) with what the repository's
 * install needs: the same install, on the host, in a scratch copy of its package files, so the work
 * tree gets no node_modules and no lock file it did not have. Then copies the cache's content into
 * the work tree's OFFLINE_CACHE. Returns the seconds the host install took.
 */
export async function fillOfflineCache(repository: AcceptanceRepository, workTree: string, cache: string, scratch: string): Promise<number> {
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  for (const file of ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', '.npmrc']) {
    if (existsSync(path.join(workTree, file))) await copyFile(path.join(workTree, file), path.join(scratch, file));
  }
  const started = Date.now();
  // --prefer-offline: a second acceptance run takes what the cache has without asking the registry.
  await run('npm', [...repository.install.split(' ').slice(1), '--cache', cache, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], { ...big, cwd: scratch, env: plainEnv() });
  const seconds = (Date.now() - started) / 1000;
  await rm(scratch, { recursive: true, force: true });
  const into = path.join(workTree, OFFLINE_CACHE);
  await cp(path.join(cache, '_cacache'), path.join(into, '_cacache'), { recursive: true });
  // A cache the checkout would leave out never reaches the pod: say so rather than fail offline.
  const ignored = await run('git', ['-C', workTree, 'check-ignore', '-q', OFFLINE_CACHE]).then(
    () => true,
    () => false,
  );
  if (ignored) throw new Error(`${repository.name}: its .gitignore ignores ${OFFLINE_CACHE}, so the checkout would not carry the npm cache`);
  return seconds;
}

/** A repository of the fixture's files, committed on `main`, as a user's own would be before `init`. */
export async function committedFixture(fixture: string, into: string): Promise<void> {
  await rm(into, { recursive: true, force: true });
  await cp(fixture, into, { recursive: true });
  const git = (...args: string[]) => run('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', '-C', into, ...args]);
  await git('init', '-q', '-b', 'main');
  await git('add', '.');
  await git('commit', '-q', '-m', 'first');
}

/**
 * Fills the work tree's `paths` (what the starter's install step caches that its commands write:
 * pnpm's store, Yarn's cache) by that step's own commands and env, run on the host, with the
 * network, in a scratch copy of the committed files, pnpm and Yarn from `corepackHome`
 * (acceptance/corepack.ts). The first build's install then reads them, carried in by the
 * checkout, with no network. Returns the seconds.
 */
export async function fillStarterCache(workTree: string, install: { commands: string[]; env: Record<string, string> }, paths: readonly string[], scratch: string, corepackHome: string): Promise<number> {
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  const tracked = (await run('git', ['-C', workTree, 'ls-files', '-z'])).stdout.split('\0').filter(Boolean);
  for (const file of tracked) await cp(path.join(workTree, file), path.join(scratch, file), { recursive: true });
  const started = Date.now();
  await run('sh', ['-ec', install.commands.join('\n')], { ...big, cwd: scratch, env: plainEnv({ ...install.env, COREPACK_HOME: corepackHome, COREPACK_ENABLE_NETWORK: '0' }) });
  const seconds = (Date.now() - started) / 1000;
  for (const cachePath of paths) {
    const into = path.join(workTree, cachePath);
    await rm(into, { recursive: true, force: true });
    await cp(path.join(scratch, cachePath), into, { recursive: true, verbatimSymlinks: true });
  }
  await rm(scratch, { recursive: true, force: true });
  return seconds;
}

/** This shell's environment without a surrounding `npm run`'s npm_config_* or NODE_OPTIONS. */
export function plainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_OPTIONS'));
  return { ...env, ...extra };
}
