/**
 * `npm run build` (run by `npm pack` before it packs): the command as the package ships it, in
 * dist/. lib/cli/main.ts and the modules it imports, dynamic imports included, are compiled to
 * JavaScript one file each, so an installed `step-runner` starts with no TypeScript compiler; the
 * files the code reads at run time are copied beside it at the same relative places, so each
 * `new URL('...', import.meta.url)` finds from dist/lib/x.js what it finds from lib/x.ts in a
 * checkout. test/install-as-command.e2e.test.ts fails when one is missing from the package.
 *
 * esbuild compiles rather than tsc: with the types checked by `npm run typecheck`, tsc's emit
 * (noCheck) still took 8 CPU-seconds to esbuild's one. tsconfig.json's isolatedModules and
 * verbatimModuleSyntax make the two emit the same modules: types stripped, every import kept.
 */
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(ROOT, 'dist');

/** Read at run time, by path from the module that reads it (not imported, so tsc leaves them). */
const RUNTIME_FILES = [
  'serverless.yml', // the local Lambda host's memory and timeouts (lib/emulators/lambda/deployed-functions.ts)
  'examples/hello.yml', // `serve`'s example build
  'lib/workflow/state-machine.asl.yml', // the definition the local executor runs
  'lib/emulators/kubernetes/images/catalog.json', // the embedded cluster's image catalog
  'lib/emulators/kubernetes/images/README.md', // its format, which `run --help` points at
  'lib/console/assets/console.js', // the console page's script and style
  'lib/console/assets/console.css',
];

rmSync(DIST, { recursive: true, force: true });
// The command's modules: what main.ts reaches by its imports, static and dynamic (the packages are
// dependencies, not compiled in).
const closure = await build({
  entryPoints: [path.join(ROOT, 'lib/cli/main.ts')],
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  write: false,
  metafile: true,
  logLevel: 'error',
});
const modules = Object.keys(closure.metafile.inputs)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => path.join(ROOT, file));
// Each one compiled on its own, to its own place under dist/. ES2022 as tsconfig.json's target.
await build({ entryPoints: modules, outdir: DIST, outbase: ROOT, platform: 'node', format: 'esm', target: 'es2022', logLevel: 'error' });
for (const file of RUNTIME_FILES) cpSync(path.join(ROOT, file), path.join(DIST, file));
