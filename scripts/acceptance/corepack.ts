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
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { plainEnv } from './fixtures.js';

const run = promisify(execFile);

/** The versions put in the image: pnpm as the pnpm fixture's packageManager names it; Yarn 1's last release. */
export const PACKAGE_MANAGERS = [
  { name: 'pnpm', version: '9.15.0' },
  { name: 'yarn', version: '1.22.22' },
] as const;

/** Where corepack looks for its cache as root, whose HOME the image's /etc/passwd says is /root. */
export const IMAGE_COREPACK_HOME = '/root/.cache/node/corepack';

/**
 * Fills `home` with the pinned pnpm and Yarn by the host's corepack and checks each download's
 * sha512 against the registry's `dist.integrity`. Signature checks are off for the download
 * (COREPACK_INTEGRITY_KEYS=0, README): this machine's registry answers with no `dist.signatures`,
 * and corepack refuses such metadata ("No compatible signature found"); the integrity check here
 * stands in for them.
 */
export async function fillCorepackHome(home: string): Promise<void> {
  const env = plainEnv({ COREPACK_HOME: home, COREPACK_INTEGRITY_KEYS: '0' });
  await run('corepack', ['install', '-g', ...PACKAGE_MANAGERS.map(({ name, version }) => `${name}@${version}`)], { env });
  for (const { name, version } of PACKAGE_MANAGERS) {
    // corepack writes what it installed, and the hash of the archive, beside it: {"hash": "sha512.<hex>"}.
    const { hash } = JSON.parse(await readFile(path.join(home, 'v1', name, version, '.corepack'), 'utf8')) as { hash: string };
    const integrity = (await run('npm', ['view', `${name}@${version}`, 'dist.integrity'], { env: plainEnv() })).stdout.trim();
    const expected = `sha512.${Buffer.from(integrity.replace(/^sha512-/, ''), 'base64').toString('hex')}`;
    if (hash !== expected) throw new Error(`corepack's ${name}@${version} is not the registry's (${hash} against ${integrity})`);
  }
}
