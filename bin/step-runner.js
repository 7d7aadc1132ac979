#!/usr/bin/env node
// The package's bin: loads the TypeScript CLI through tsx, as `npm start` does. It runs from a
// global install too (tsx transforms .ts files under node_modules). `tsconfig: false`: the
// current directory is the user's repository, whose own tsconfig.json must not change how the
// runner's code is compiled.
import { register } from 'tsx/esm/api';

register({ tsconfig: false });
const { main } = await import('../lib/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
