/**
 * @kubernetes/client-node as one ES module, for jest only. The package is ~970 ES modules (14 MB,
 * most of it the generated PromiseAPI and ObservableAPI), and jest's ESM runtime reads, links and
 * compiles every one of them again for each test file: about 0.2 CPU-seconds a file, a quarter of
 * what an integration file pays before its first test. Bundled by esbuild into one ES module, as
 * the deployed Lambdas bundle it (serverless.yml's `esbuild`), it is the same code, and its own
 * dependencies stay packages of node_modules. Kept in node_modules/.cache (so
 * those resolve from it), rebuilt when client-node's or esbuild's version changes.
 */
import { build, version as esbuildVersion } from 'esbuild';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where jest.config.js's moduleNameMapper sends `@kubernetes/client-node`. */
export const CLIENT_NODE_BUNDLE = path.join(root, 'node_modules/.cache/step-runner-test/client-node.mjs');

export async function ensureClientNodeBundle() {
  const require = createRequire(path.join(root, 'package.json'));
  const manifest = require.resolve('@kubernetes/client-node/package.json');
  const { version, main } = JSON.parse(await readFile(manifest, 'utf8'));
  const stamp = `// client-node ${version}, esbuild ${esbuildVersion}\n`;
  const current = await readFile(CLIENT_NODE_BUNDLE, 'utf8').then((text) => text.slice(0, stamp.length), () => '');
  if (current === stamp) return;
  await mkdir(path.dirname(CLIENT_NODE_BUNDLE), { recursive: true });
  const result = await build({
    entryPoints: [path.join(path.dirname(manifest), main)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    logLevel: 'error',
  });
  // Written aside and renamed, so that a run stopped half-way never leaves half a module behind.
  const partial = `${CLIENT_NODE_BUNDLE}.${process.pid}`;
  await writeFile(partial, stamp + result.outputFiles[0].text);
  await rename(partial, CLIENT_NODE_BUNDLE);
}
