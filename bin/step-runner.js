#!/usr/bin/env node
// The package's bin. Installed, it runs the JavaScript that `npm pack` compiled into dist/: no
// TypeScript compiler at run time. In a checkout, where the TypeScript sources sit beside it, it
// runs them through tsx (a development dependency, there after `npm ci`) as `npm start` does:
// no build step after `npm ci` or after an edit, and never a stale dist/ left by an earlier
// `npm pack`. `tsconfig: false`: the current directory is the user's repository, whose own
// tsconfig.json must not change how the runner's code is compiled.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const sources = new URL('../lib/cli/main.ts', import.meta.url);
let cli;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register({ tsconfig: false });
  cli = await import(sources.href);
} else {
  cli = await import('../dist/lib/cli/main.js');
}
process.exitCode = await cli.main(process.argv.slice(2));
