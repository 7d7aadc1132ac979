/**
 * Packages of many ES modules as one ES module each, for jest only: jest's ESM runtime reads,
 * links and compiles every module again for each test file, and these packages are imported by
 * many files.
 * - @kubernetes/client-node: ~970 modules (14 MB, most of it the generated PromiseAPI and
 *   ObservableAPI), about 0.2 CPU-seconds a file, a quarter of what an integration file paid before
 *   its first test.
 * - zod: 95 modules, imported by every file that reaches the pipeline's schema (about 180): 0.068
 *   CPU-seconds a file as modules, 0.042 as one.
 * Bundled by esbuild, as the deployed Lambdas bundle them (serverless.yml's `esbuild`), each is
 * the same code, and its own dependencies stay packages of node_modules. Kept in
 * node_modules/.cache (so those resolve from it), each rebuilt when its package's or esbuild's
 * version changes; jest.config.js's moduleNameMapper sends the package's name to its bundle.
 */
import { build, version as esbuildVersion } from 'esbuild';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUNDLES = path.join(root, 'node_modules/.cache/step-runner-test');

/** The bundled packages: each one's bundle (its first line names it and the versions it was made from), and the module of the package it starts from (what `import` of the name loads). */
const PACKAGES = [
  { name: '@kubernetes/client-node', label: 'client-node', bundle: 'client-node.mjs', entry: (manifest) => manifest.main },
  { name: 'zod', label: 'zod', bundle: 'zod.mjs', entry: (manifest) => manifest.exports['.'].import },
];

async function ensureBundle({ name, label, bundle, entry }) {
  const require = createRequire(path.join(root, 'package.json'));
  const manifestPath = require.resolve(`${name}/package.json`);
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  const target = path.join(BUNDLES, bundle);
  const stamp = `// ${label} ${manifest.version}, esbuild ${esbuildVersion}\n`;
  const current = await readFile(target, 'utf8').then((text) => text.slice(0, stamp.length), () => '');
  if (current === stamp) return;
  await mkdir(BUNDLES, { recursive: true });
  const result = await build({
    entryPoints: [path.join(path.dirname(manifestPath), entry(manifest))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    logLevel: 'error',
  });
  // Written aside and renamed, so that a run stopped half-way never leaves half a module behind.
  const partial = `${target}.${process.pid}`;
  await writeFile(partial, stamp + result.outputFiles[0].text);
  await rename(partial, target);
}

export async function ensurePackageBundles() {
  await Promise.all(PACKAGES.map(ensureBundle));
}
