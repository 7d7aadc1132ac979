/**
 * Cold start of the PollStep handler: the size of its bundle and the time to initialise the module
 * in a fresh Node.js process, bundled (esbuild with serverless.yml's own custom.esbuild options, as
 * deployed) against the same code compiled to plain ES modules that resolve their dependencies
 * from node_modules file by file (what a zip of the project would do). Transpiling is done ahead
 * of time for both, so the comparison is loading and evaluating, not TypeScript.
 *
 * Each sample is a new `node` process timing `await import(handler)` from inside, so Node's own
 * start-up is left out; the two variants alternate, after one discarded warm-up each.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { parse } from 'yaml';
import { median } from './stats.js';

export interface ColdStart {
  bundleBytes: number;
  sourceMapBytes: number;
  bundledInitMs: number;
  bundledWithSourceMapsInitMs: number;
  unbundledInitMs: number;
  ratio: number;
  samples: number;
}

const run = promisify(execFile);

/** Where measureColdStart leaves the deployed bundle of functions/poll-step.ts (memory.ts uses it). */
export const bundledPollStep = (workDir: string) => path.join(workDir, 'bundled', 'functions/poll-step.mjs');

/** serverless.yml's esbuild options that shape the bundle (work folders and packaging left out). */
export async function deployedEsbuildOptions(root: string): Promise<esbuild.BuildOptions> {
  const config = parse(await readFile(path.join(root, 'serverless.yml'), 'utf8')) as { custom: { esbuild: Record<string, unknown> } };
  const { bundle, minify, sourcemap, target, format, platform, mainFields, banner, external } = config.custom.esbuild;
  return { bundle, minify, sourcemap, target, format, platform, mainFields, banner, external } as esbuild.BuildOptions;
}

async function sourceFiles(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(path.join(root, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** The settings a deployed PollStep starts with (it refuses to start without them). */
export const DEPLOYED_ENV = { AWS_REGION: 'us-east-1', EKS_CLUSTER_NAME: 'ci', STEP_RUNNER_NAMESPACE: 'step-runner', STEP_LOGS_BUCKET: 'step-logs' };

async function initMs(file: string, nodeFlags: string[], cwd: string): Promise<number> {
  const { stdout } = await run(process.execPath, [...nodeFlags, path.join(cwd, 'measure-init.mjs'), file], {
    cwd,
    // A clean environment: no loader (tsx) inherited, only what serverless.yml gives the function.
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '', ...DEPLOYED_ENV },
  });
  return (JSON.parse(stdout) as { initMs: number }).initMs;
}

export async function measureColdStart(root: string, workDir: string, samples = 9): Promise<ColdStart> {
  const unbundledDir = path.join(workDir, 'unbundled');
  const bundled = bundledPollStep(workDir);
  await esbuild.build({
    ...(await deployedEsbuildOptions(root)),
    entryPoints: [path.join(root, 'functions/poll-step.ts')],
    outfile: bundled,
    logLevel: 'error',
  });

  await esbuild.build({
    entryPoints: [...(await sourceFiles(root, 'functions')), ...(await sourceFiles(root, 'lib'))],
    outdir: unbundledDir,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'error',
  });
  await writeFile(path.join(unbundledDir, 'package.json'), '{"type":"module"}\n');
  await symlink(path.join(root, 'node_modules'), path.join(unbundledDir, 'node_modules'), 'dir').catch(() => undefined);
  const unbundled = path.join(unbundledDir, 'functions/poll-step.js');

  await mkdir(workDir, { recursive: true });
  await writeFile(
    path.join(workDir, 'measure-init.mjs'),
    [
      "import { pathToFileURL } from 'node:url';",
      'const url = pathToFileURL(process.argv[2]).href;',
      'const started = performance.now();',
      'await import(url);',
      'process.stdout.write(JSON.stringify({ initMs: performance.now() - started }));',
    ].join('\n'),
  );

  const variants = {
    bundled: () => initMs(bundled, [], workDir),
    bundledWithSourceMaps: () => initMs(bundled, ['--enable-source-maps'], workDir),
    unbundled: () => initMs(unbundled, [], workDir),
  };
  const times: Record<keyof typeof variants, number[]> = { bundled: [], bundledWithSourceMaps: [], unbundled: [] };
  for (const measure of Object.values(variants)) await measure();
  for (let i = 0; i < samples; i++) {
    for (const [name, measure] of Object.entries(variants)) times[name as keyof typeof variants].push(await measure());
  }
  const bundledInitMs = median(times.bundled);
  const unbundledInitMs = median(times.unbundled);
  return {
    bundleBytes: (await stat(bundled)).size,
    sourceMapBytes: (await stat(`${bundled}.map`)).size,
    bundledInitMs,
    bundledWithSourceMapsInitMs: median(times.bundledWithSourceMaps),
    unbundledInitMs,
    ratio: unbundledInitMs / bundledInitMs,
    samples,
  };
}
