#!/usr/bin/env node
// The package's bin: loads the TypeScript CLI through tsx, as `npm start` does.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../lib/local/cli.ts');
process.exitCode = await main(process.argv.slice(2));
