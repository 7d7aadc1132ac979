/**
 * `npm run build` (run by `npm pack` before it packs): the command as the package ships it, in
 * dist/. tsc compiles lib/cli/main.ts and the modules it imports (tsconfig.build.json) to
 * JavaScript, so an installed `step-runner` starts with no TypeScript compiler; the files the
 * code reads at run time are copied beside it at the same relative places, so each
 * `new URL('...', import.meta.url)` finds from dist/lib/x.js what it finds from lib/x.ts in a
 * checkout. test/install-as-command.e2e.test.ts fails when one is missing from the package.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
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
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
for (const file of RUNTIME_FILES) cpSync(path.join(ROOT, file), path.join(DIST, file));
