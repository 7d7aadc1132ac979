/**
 * A Node.js image for the embedded cluster's Docker runtime, with no image hub: the test images'
 * busybox root (test/fixtures/docker/test-image-rootfs.ts) plus this machine's Node.js as its
 * Debian package installed it (`dpkg -L nodejs`: /usr/bin/node, npm and corepack under
 * /usr/lib/node_modules) and every library `ldd` names for node. npm is the one this machine runs
 * (the one that filled the npm cache the builds install from), so the cache's format is its own.
 * Debian's own `nodejs` (bookworm: 18.20) is below what the runner's README asks of a project and
 * what commander.js needs, and its `npm` pulls in some 450 packages: the installed 20.x is used.
 * Folders of the host can be added; the acceptance adds none (no pnpm nor Yarn: acceptance/corepack.ts).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildBusyboxRootfs, sharedLibraries } from '../../test/fixtures/docker/test-image-rootfs.js';

const run = promisify(execFile);

const NODE = '/usr/bin/node';
const NODE_MODULES = '/usr/lib/node_modules';
/** What the Debian package links into /usr/bin, as `ls -l /usr/bin/npm` shows it. */
const BIN_LINKS: Record<string, string> = {
  npm: '../lib/node_modules/npm/bin/npm-cli.js',
  npx: '../lib/node_modules/npm/bin/npx-cli.js',
  corepack: '../lib/node_modules/corepack/dist/corepack.js',
};
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Why the image cannot be built here, or undefined. */
export function nodeImageProblem(): string | undefined {
  if (!existsSync(NODE)) return `${NODE} is not installed (apt-get install nodejs)`;
  if (!existsSync(path.join(NODE_MODULES, 'npm'))) return `${NODE_MODULES}/npm is not installed`;
  return undefined;
}

/** `node --version` without the v: the image's tag. */
export async function nodeVersion(): Promise<string> {
  return (await run(NODE, ['--version'])).stdout.trim().replace(/^v/, '');
}

/** A host folder copied into the image at `to` (an absolute path in the image). */
export interface AddedFolder {
  from: string;
  to: string;
}

async function buildRootfs(root: string, added: readonly AddedFolder[]): Promise<void> {
  await buildBusyboxRootfs(root);
  for (const top of ['lib', 'lib64']) {
    const host = `/${top}`;
    // Merged /usr: /lib is a symlink into /usr, and the loader looks where ldd said.
    const { stdout } = await run('readlink', [host]).catch(() => ({ stdout: '' }));
    if (stdout.trim()) await symlink(stdout.trim(), path.join(root, top));
  }
  // The name as the loader asks for it (libstdc++.so.6, not the file it links to), in the folder
  // the host's symlinks lead to, with the content followed.
  const copy = async (file: string) => {
    const target = path.join(root, realpathSync(path.dirname(file)).slice(1), path.basename(file));
    await mkdir(path.dirname(target), { recursive: true });
    if (statSync(file).isDirectory()) await cp(file, target, { recursive: true, verbatimSymlinks: true });
    else await copyFile(file, target);
  };
  await copy(NODE);
  for (const library of sharedLibraries([NODE])) await copy(library);
  for (const name of await readdir(NODE_MODULES)) await copy(path.join(NODE_MODULES, name));
  for (const [name, target] of Object.entries(BIN_LINKS)) {
    if (existsSync(path.join(root, 'usr/bin', target))) await symlink(target, path.join(root, 'usr/bin', name));
  }
  // npm's bins start with `#!/usr/bin/env node`; busybox's env is in /bin only.
  await symlink('/bin/busybox', path.join(root, 'usr/bin/env'));
  for (const { from, to } of added) await cp(from, path.join(root, to), { recursive: true, verbatimSymlinks: true });
}

/**
 * Imports the image under a name whose tag is node's version, unless an image of the same
 * content is there already (the name carries a digest of the root's tar). Returns its name.
 */
export async function ensureNodeImage(added: readonly AddedFolder[] = []): Promise<string> {
  const problem = nodeImageProblem();
  if (problem) throw new Error(`cannot build the node image: ${problem}`);
  const dir = await mkdtemp(path.join(tmpdir(), 'step-runner-node-image-'));
  try {
    const root = path.join(dir, 'root');
    await buildRootfs(root, added);
    const tar = path.join(dir, 'root.tar');
    await run('tar', ['-C', root, '--sort=name', '--mtime=@0', '--owner=0', '--group=0', '--numeric-owner', '-cf', tar, '.']);
    const { stdout: sum } = await run('sha256sum', [tar]);
    const digest = createHash('sha256').update(sum.split(' ')[0]!).update(PATH).digest('hex').slice(0, 12);
    const name = `step-runner-acceptance/node:${await nodeVersion()}-${digest}`;
    const present = await run('docker', ['image', 'inspect', '--format', '{{.Id}}', name]).then(
      () => true,
      () => false,
    );
    if (!present) await run('docker', ['import', '--change', `ENV PATH=${PATH}`, '--change', 'CMD ["node"]', tar, name], { maxBuffer: 16 * 1024 * 1024 });
    return name;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
