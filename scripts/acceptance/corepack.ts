/**
 * pnpm and Yarn for init's starters, with no network in a build's containers: corepack on the host
 * downloads the pinned versions into a corepack home (COREPACK_HOME), checked against npm's own
 * download of each. The host's install of a starter's packages runs them from there; and, since
 * the starters keep corepack's home in the workspace (COREPACK_HOME=/workspace/.corepack/node_modules,
 * cached as `.corepack/node_modules`: COREPACK_DIR), the versions a starter runs are copied from it
 * into the work tree's COREPACK_DIR for the first build, as that build would have downloaded them
 * with a way out. The image carries none: the second build has them from the restored cache or
 * from nowhere.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { plainEnv } from './fixtures.js';

const run = promisify(execFile);

interface PinnedManager {
  name: 'pnpm' | 'yarn';
  version: string;
  /** The npm package corepack takes it from (COREPACK_NPM_REGISTRY set), and the file of it corepack keeps and hashes: the tarball, or one file in it. */
  npm: { name: string; file?: string };
}

/**
 * The pinned versions: pnpm and Yarn 4 as the fixtures' packageManager names them, the last pnpm 8
 * (what `corepack pnpm@8` finds for the fixture whose lockfileVersion 6.0 pins it), Yarn 1's last
 * release. In install order: the last of a name installed is its Known Good one, which a project
 * with no packageManager runs (the Yarn 1 fixture, on the host), so Yarn 1 comes after Yarn 4.
 */
export const PACKAGE_MANAGERS: readonly PinnedManager[] = [
  { name: 'pnpm', version: '8.15.9', npm: { name: 'pnpm' } },
  { name: 'pnpm', version: '9.15.0', npm: { name: 'pnpm' } },
  { name: 'yarn', version: '4.5.3', npm: { name: '@yarnpkg/cli-dist', file: 'bin/yarn.js' } },
  { name: 'yarn', version: '1.22.22', npm: { name: 'yarn' } },
];

/**
 * Fills `home` with the pinned pnpm and Yarns by the host's corepack, one after the other (one
 * `install -g` of several downloads them side by side, and the last to finish would be the Known
 * Good one of its name), then checks each against npm's own download of the same package, which
 * npm checks against the registry's `dist.integrity`. Yarn 2+ comes from the npm registry's
 * @yarnpkg/cli-dist (COREPACK_NPM_REGISTRY, README): repo.yarnpkg.com is not reachable here.
 * Signature checks are off for the download (COREPACK_INTEGRITY_KEYS=0, README): this machine's
 * registry answers with no `dist.signatures`, and corepack refuses such metadata ("No compatible
 * signature found"); the comparison with npm's download stands in for them.
 */
export async function fillCorepackHome(home: string): Promise<void> {
  const env = plainEnv({ COREPACK_HOME: home, COREPACK_INTEGRITY_KEYS: '0', COREPACK_NPM_REGISTRY: 'https://registry.npmjs.org' });
  for (const { name, version } of PACKAGE_MANAGERS) await run('corepack', ['install', '-g', `${name}@${version}`], { env });
  for (const manager of PACKAGE_MANAGERS) {
    // corepack writes what it installed, and the sha512 of what it downloaded, beside it: {"hash": "sha512.<hex>"}.
    const { hash } = JSON.parse(await readFile(path.join(home, 'v1', manager.name, manager.version, '.corepack'), 'utf8')) as { hash: string };
    const expected = `sha512.${await npmSha512(manager)}`;
    if (hash !== expected) throw new Error(`corepack's ${manager.name}@${manager.version} is not the registry's ${manager.npm.name}@${manager.version} (${hash} against ${expected})`);
  }
}

/** The sha512 (hex) of the package as `npm pack` downloads it, or of the one file of it corepack keeps. */
async function npmSha512({ version, npm }: PinnedManager): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'step-runner-corepack-check-'));
  try {
    const { stdout } = await run('npm', ['pack', `${npm.name}@${version}`, '--json', '--pack-destination', dir], { cwd: dir, env: plainEnv() });
    const tarball = path.join(dir, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
    if (npm.file) await run('tar', ['-xzf', tarball, '-C', dir, `package/${npm.file}`]);
    return createHash('sha512')
      .update(await readFile(npm.file ? path.join(dir, 'package', npm.file) : tarball))
      .digest('hex');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A corepack home at `into` with only `managers` (`name@version`, of PACKAGE_MANAGERS) of the
 * filled `home`, each its Known Good one, as `corepack install -g` of them would leave it, and as
 * a first build that downloads them leaves the workspace's: the Known Good file
 * (lastKnownGood.json) is what a project with no packageManager runs (README, "Known Good
 * Releases").
 */
export async function copyCorepackHome(home: string, into: string, managers: readonly string[]): Promise<void> {
  await rm(into, { recursive: true, force: true });
  const knownGood: Record<string, string> = {};
  for (const wanted of managers) {
    const manager = PACKAGE_MANAGERS.find(({ name, version }) => `${name}@${version}` === wanted);
    if (!manager) throw new Error(`${wanted} is not one of the pinned package managers (${PACKAGE_MANAGERS.map(({ name, version }) => `${name}@${version}`).join(', ')})`);
    const folder = path.join('v1', manager.name, manager.version);
    await mkdir(path.dirname(path.join(into, folder)), { recursive: true });
    await cp(path.join(home, folder), path.join(into, folder), { recursive: true, verbatimSymlinks: true });
    knownGood[manager.name] = manager.version;
  }
  await writeFile(path.join(into, 'lastKnownGood.json'), `${JSON.stringify(knownGood, null, 2)}\n`);
}
