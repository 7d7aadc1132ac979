/**
 * pnpm and Yarn for the acceptance's Node.js image, with no network in its containers: corepack
 * on the host downloads the pinned versions into a corepack home (COREPACK_HOME), which the image
 * carries where corepack looks for it as root ($HOME/.cache/node/corepack, nodejs/corepack README,
 * "Environment Variables"), as `RUN corepack install -g pnpm@… yarn@…` would leave it in an image
 * built with the network. `install -g` also makes them corepack's "Known Good Releases"
 * (lastKnownGood.json), the versions it runs in a project whose package.json names none instead
 * of asking the registry for the latest (README, "Known Good Releases"). A starter's `corepack
 * pnpm …` then finds its version there and downloads nothing.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
 * The versions put in the image: pnpm and Yarn 4 as the fixtures' packageManager names them, Yarn
 * 1's last release. In install order: the last Yarn installed is the Known Good one, which a
 * project with no packageManager (the Yarn 1 fixture) runs, so Yarn 1 comes after Yarn 4.
 */
export const PACKAGE_MANAGERS: readonly PinnedManager[] = [
  { name: 'pnpm', version: '9.15.0', npm: { name: 'pnpm' } },
  { name: 'yarn', version: '4.5.3', npm: { name: '@yarnpkg/cli-dist', file: 'bin/yarn.js' } },
  { name: 'yarn', version: '1.22.22', npm: { name: 'yarn' } },
];

/** Where corepack looks for its cache as root, whose HOME the image's /etc/passwd says is /root. */
export const IMAGE_COREPACK_HOME = '/root/.cache/node/corepack';

/**
 * Fills `home` with the pinned pnpm and Yarns by the host's corepack, one after the other (one
 * `install -g` of several downloads them side by side, and the last to finish would be the Known
 * Good Yarn), then checks each against npm's own download of the same package, which npm checks
 * against the registry's `dist.integrity`. Yarn 2+ comes from the npm registry's
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
