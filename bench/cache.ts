/**
 * The cache's speed (issue 26): the real restore and save scripts (lib/kube/cache-scripts.ts) with
 * this machine's sh, tar, gzip, sha256sum and curl against the local stack's S3 server on loopback,
 * for a generated tree like node_modules; where their time goes, stage by stage; and a two-step
 * build (install, then test) cold and warm through `run` on the embedded cluster (process runtime),
 * where the install stands for a download unless the cache restored node_modules.
 *
 * Alone: `npx tsx bench/cache.ts [--json]` (stdout's last line the figures with --json). From
 * bench/index.ts: `measureCache(dir, print)`.
 */
import './quiet.js';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cacheRestoreScript, cacheSaveScript, type CacheDirs, type CacheScriptEntry } from '../lib/kube/cache-scripts.js';
import { runBuild } from '../lib/cli/commands/run.js';
import { startLocalCacheStore, type LocalCacheStore } from '../lib/local/stores/local-cache-store.js';
import { median, round } from './stats.js';

export const CACHE_TARGETS = {
  /** The generated tree, restored from the store into an empty workspace. */
  restoreSeconds: 5,
  saveSeconds: 8,
  /** The warm build takes at most this share of the cold one. */
  warmOverCold: 0.5,
};

/** The tree: at least 200 MB in 30,000 files, most of them small, as node_modules is. */
export const TREE = { files: 30_000, largeFiles: 120, minBytes: 200 * 1024 * 1024, seed: 26 } as const;
/** What the cold build's install pays for the tree, as a download from a registry would: MB/s. */
export const DOWNLOAD_MB_PER_S = 20;
const RUNS = 3;
const MB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The tree

/** mulberry32: small, fast, and the same numbers for the same seed on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'function', 'return', 'const', 'let', 'var', 'if', 'else', 'for', 'while', 'module', 'exports', 'require', 'this', 'new', 'typeof',
  'undefined', 'null', 'true', 'false', 'Object', 'Array', 'String', 'Promise', 'async', 'await', 'value', 'options', 'callback',
  'error', 'result', 'index', 'length', 'prototype', 'call', 'apply', 'push', 'slice', 'map', 'filter', 'reduce', 'keys', 'assign',
  'defineProperty', 'hasOwnProperty', 'toString', 'buffer', 'stream', 'encoding', 'path', 'join', 'resolve', 'parse', 'emit', 'on',
];
const PUNCT = ['(', ')', ' = ', '.', ', ', '; ', ' => ', ' { ', ' }', '[', ']', ' === ', ' !== ', ' && ', ' || ', ': ', '\''];

/**
 * A pool of JS-like lines, and identifiers to vary them: text that gzip -1 packs about as well as
 * real node_modules (about 3.3x), neither repeated verbatim nor random bytes.
 */
function linePool(random: () => number, count: number): string[] {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const indent = '  '.repeat(Math.floor(random() * 4));
    let line = indent;
    const tokens = 3 + Math.floor(random() * 10);
    for (let t = 0; t < tokens; t++) {
      line += random() < 0.1 ? `${pick(WORDS)}${Math.floor(random() * 1000).toString(36)}` : pick(WORDS);
      line += pick(PUNCT);
    }
    lines.push(`${line}\n`);
  }
  return lines;
}

function fileText(random: () => number, pool: readonly string[], bytes: number, name: string): Buffer {
  const parts: string[] = [`/* ${name} */\n'use strict';\n`];
  let size = parts[0]!.length;
  while (size < bytes) {
    const line = pool[Math.floor(random() * pool.length)]!;
    parts.push(line);
    size += line.length;
  }
  return Buffer.from(parts.join('').slice(0, bytes));
}

export interface GeneratedTree {
  files: number;
  bytes: number;
  ms: number;
}

/**
 * node_modules under `workspace`: packages of ~30 files (package.json, README.md, index.js,
 * lib/*.js), sizes log-uniform from 200 B to 16 kB, plus `largeFiles` bundles of 0.3-1.3 MB,
 * scaled so the whole is at least `minBytes`. The same seed gives the same bytes.
 */
export async function generateTree(workspace: string, tree = TREE): Promise<GeneratedTree> {
  const started = performance.now();
  const random = prng(tree.seed);
  const pool = linePool(random, 2_000);
  const small = tree.files - tree.largeFiles;
  const smallSizes = Array.from({ length: small }, () => Math.round(200 * Math.exp(random() * Math.log(80))));
  const largeSizes = Array.from({ length: tree.largeFiles }, () => Math.round(300_000 + random() * 1_000_000));
  const total = [...smallSizes, ...largeSizes].reduce((a, b) => a + b, 0);
  // A margin for the package.json files, which are small whatever their slot's size.
  const scale = Math.max(1, tree.minBytes / total) * 1.04;
  let bytes = 0;
  const perPackage = 30;
  const packages = Math.ceil(small / perPackage);
  for (let p = 0; p < packages; p++) {
    const dir = path.join(workspace, 'node_modules', p % 7 === 0 ? `@scope${p % 13}/pkg-${p}` : `pkg-${p}`);
    await mkdir(path.join(dir, 'lib'), { recursive: true });
    const writes: Promise<void>[] = [];
    for (let f = 0; f < perPackage; f++) {
      const k = p * perPackage + f;
      if (k >= small) break;
      const size = Math.round(smallSizes[k]! * scale);
      const name = f === 0 ? 'package.json' : f === 1 ? 'README.md' : f === 2 ? 'index.js' : `lib/m${f}.js`;
      const body = f === 0 ? Buffer.from(`${JSON.stringify({ name: `pkg-${p}`, version: `1.${p % 40}.${f}`, main: 'index.js', license: 'MIT' }, null, 2)}\n`) : fileText(random, pool, size, name);
      bytes += body.length;
      writes.push(writeFile(path.join(dir, name), body));
    }
    await Promise.all(writes);
  }
  const bundles = path.join(workspace, 'node_modules', 'big-bundles', 'dist');
  await mkdir(bundles, { recursive: true });
  for (let l = 0; l < tree.largeFiles; l++) {
    const body = fileText(random, pool, Math.round(largeSizes[l]! * scale), `bundle-${l}.js`);
    bytes += body.length;
    await writeFile(path.join(bundles, `bundle-${l}.js`), body);
  }
  if (bytes < tree.minBytes) throw new Error(`the tree came out at ${bytes} bytes, under ${tree.minBytes}`);
  return { files: small + tree.largeFiles, bytes, ms: performance.now() - started };
}

async function countFiles(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return { files, bytes };
}

// ---------------------------------------------------------------------------------------------
// The scripts

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const ENTRY_KEY = 'npm-bench';

/** Runs the save sidecar's script as the pod does, hand-over made; its time to `saved`. */
async function runSave(entry: CacheScriptEntry, dirs: CacheDirs, url: string): Promise<{ seconds: number; log: string }> {
  await writeFile(path.join(dirs.scratch, 'succeeded'), '');
  // The URL as the pod's Secret volume holds it: a file named by its key (the scratch folder stands in for the volume).
  await writeFile(path.join(dirs.scratch, 'SAVE_URL'), url);
  const started = performance.now();
  const child = spawn('/bin/sh', ['-c', cacheSaveScript([entry], dirs)], { env: { PATH, STEP_RUNNER_URLS: dirs.scratch }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    // A poll at 20 ms: the figure is seconds, and 20 ms of it is the poll's.
    while (!existsSync(path.join(dirs.scratch, 'saved'))) {
      if (child.exitCode !== null) throw new Error(`the save script exited before it wrote saved: ${log}`);
      if (performance.now() - started > 120_000) throw new Error(`the save took over 120 s: ${log}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return { seconds: (performance.now() - started) / 1000, log };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** `/bin/sh -c script` with only PATH and `env`, asynchronously: the S3 server it talks to runs on this process's event loop. */
function sh(script: string, env: Record<string, string>, timeoutMs = 120_000): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', script], { env: { PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

async function runRestore(entry: CacheScriptEntry, dirs: CacheDirs, url: string): Promise<{ seconds: number; log: string }> {
  const started = performance.now();
  await writeFile(path.join(dirs.scratch, 'RESTORE_URL'), url);
  const result = await sh(cacheRestoreScript([entry], dirs), { STEP_RUNNER_URLS: dirs.scratch });
  return { seconds: (performance.now() - started) / 1000, log: result.stdout + result.stderr };
}

/** One shell command's wall time, in seconds; throws if it fails. */
async function timed(command: string, env: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const result = await sh(command, env);
  if (result.status !== 0) throw new Error(`${command}: exit ${result.status}: ${result.stderr}`);
  return round((performance.now() - started) / 1000, 2);
}

const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

export interface ScriptFigures {
  tree: { files: number; mb: number; generatedSeconds: number };
  entryMb: number;
  compressionRatio: number;
  save: { seconds: number[]; median: number; mbPerSecond: number; target: number; met: boolean };
  restore: { seconds: number[]; median: number; mbPerSecond: number; target: number; met: boolean; filesRestored: number };
  /** Each stage alone, seconds (the same tools and files as the scripts). */
  profile: { save: Record<string, number>; restore: Record<string, number> };
}

/** Saves the tree RUNS times (a new key each: entries are immutable), restores the last RUNS times into empty workspaces; then the stages alone. */
async function measureScripts(dir: string, workspace: string, generated: GeneratedTree, store: LocalCacheStore, print: (line?: string) => void): Promise<ScriptFigures> {
  const treeMb = generated.bytes / MB;
  const saves: number[] = [];
  let key = '';
  for (let run = 0; run < RUNS; run++) {
    key = `cache/bench/branch/main/0123456789abcdef/${ENTRY_KEY}-${run}`;
    const scratch = await mkdtemp(path.join(dir, 'scratch-'));
    const entry: CacheScriptEntry = { key: ENTRY_KEY, paths: ['node_modules'], restore: [], save: { urlKey: 'SAVE_URL' } };
    const saved = await runSave(entry, { workspace, scratch }, await store.store.presignPut(key, 600));
    if (!/: saved \(/.test(saved.log)) throw new Error(`the save did not save: ${saved.log}`);
    saves.push(saved.seconds);
    print(`  save ${run + 1}: ${round(saved.seconds, 2)} s: ${saved.log.trim()}`);
    await rm(scratch, { recursive: true, force: true });
  }
  const restores: number[] = [];
  let filesRestored = 0;
  for (let run = 0; run < RUNS; run++) {
    const target = await mkdtemp(path.join(dir, 'restored-'));
    const scratch = await mkdtemp(path.join(dir, 'scratch-'));
    const entry: CacheScriptEntry = { key: ENTRY_KEY, paths: ['node_modules'], restore: [{ label: ENTRY_KEY, urlKey: 'RESTORE_URL' }] };
    const restored = await runRestore(entry, { workspace: target, scratch }, await store.store.presignGet(key, 600));
    if (!/: restored from /.test(restored.log)) throw new Error(`the restore did not restore: ${restored.log}`);
    restores.push(restored.seconds);
    print(`  restore ${run + 1}: ${round(restored.seconds, 2)} s: ${restored.log.trim()}`);
    if (run === RUNS - 1) {
      // The cached path alone: the restore's lock (.step-runner-cache, cache-scripts.ts) sits beside it in the workspace.
      const counted = await countFiles(path.join(target, 'node_modules'));
      filesRestored = counted.files;
      if (counted.files !== generated.files || counted.bytes !== generated.bytes) throw new Error(`restored ${counted.files} files, ${counted.bytes} bytes; saved ${generated.files}, ${generated.bytes}`);
    }
    // Kept until the end: deleting 30,000 files (ext4 with `discard` here) slowed the next extraction 2-3x.
  }

  // The stages alone, as the scripts run them. `| cat >/dev/null`: GNU tar writing to /dev/null itself skips reading the files.
  const p = path.join(dir, 'profile');
  await mkdir(p, { recursive: true });
  const ws = q(workspace);
  const save: Record<string, number> = {
    tarOnly: await timed(`tar -cf - -C ${ws} -- node_modules | cat > /dev/null`),
    tarToFile: await timed(`tar -cf - -C ${ws} -- node_modules > ${q(`${p}/tree.tar`)}`),
    gzipOnly: await timed(`gzip -1 < ${q(`${p}/tree.tar`)} > /dev/null`),
    tarPipeGzip: await timed(`tar -cf - -C ${ws} -- node_modules | gzip -1 > ${q(`${p}/payload`)}`),
    sha256sum: await timed(`sha256sum < ${q(`${p}/payload`)} > /dev/null`),
    copyIntoEntry: await timed(`printf 'header\\n' > ${q(`${p}/entry`)}; cat ${q(`${p}/payload`)} >> ${q(`${p}/entry`)}`),
    curlPut: await timed(`curl -fsS -o /dev/null -T ${q(`${p}/entry`)} -H 'If-None-Match: *' -H 'Content-Type: application/octet-stream' "$URL"`, {
      URL: await store.store.presignPut(`cache/bench/branch/main/0123456789abcdef/${ENTRY_KEY}-profile`, 600),
    }),
  };
  let outs = 0;
  const emptyOut = async () => {
    const out = path.join(p, `out-${++outs}`);
    await mkdir(out);
    return out;
  };
  const got = q(`${p}/got`);
  const payloadOfGot = `tail -c +$(($(head -n 1 ${got} | wc -c) + 1)) ${got}`;
  const restore: Record<string, number> = {
    curlGet: await timed(`curl -fsS -o ${got} "$URL"`, { URL: await store.store.presignGet(key, 600) }),
    sha256sumViaTail: await timed(`${payloadOfGot} | sha256sum > /dev/null`),
    gunzipOnly: await timed(`gzip -d < ${q(`${p}/payload`)} > /dev/null`),
  };
  // The entry as the store holds it: what the restore downloads.
  const entryBytes = (await stat(path.join(p, 'got'))).size;
  restore.untarOnly = await timed(`tar -x -o -f ${q(`${p}/tree.tar`)} -C ${q(await emptyOut())}`);
  restore.untarGzipViaTail = await timed(`${payloadOfGot} | tar -x -z -o -f - -C ${q(await emptyOut())}`);

  const saveMedian = median(saves);
  const restoreMedian = median(restores);
  return {
    tree: { files: generated.files, mb: round(treeMb, 1), generatedSeconds: round(generated.ms / 1000, 1) },
    entryMb: round(entryBytes / MB, 1),
    compressionRatio: round(generated.bytes / entryBytes, 2),
    save: { seconds: saves.map((s) => round(s, 2)), median: round(saveMedian, 2), mbPerSecond: round(treeMb / saveMedian, 1), target: CACHE_TARGETS.saveSeconds, met: saveMedian <= CACHE_TARGETS.saveSeconds },
    restore: {
      seconds: restores.map((s) => round(s, 2)),
      median: round(restoreMedian, 2),
      mbPerSecond: round(treeMb / restoreMedian, 1),
      target: CACHE_TARGETS.restoreSeconds,
      met: restoreMedian <= CACHE_TARGETS.restoreSeconds,
      filesRestored,
    },
    profile: { save, restore },
  };
}

// ---------------------------------------------------------------------------------------------
// The build

export interface BuildFigures {
  downloadMbPerSecond: number;
  cold: BuildRun;
  warm: BuildRun;
  warmOverCold: number;
  warmSkipsSave: boolean;
  met: boolean;
}

export interface BuildRun {
  status: string;
  seconds: number;
  steps: Record<string, number | null>;
  cacheLines: string[];
}

/** `run` of a repository with package-lock.json, twice over one state directory: cold (a miss, install, save), then warm (restored). */
async function measureBuild(dir: string, registry: string, treeMb: number): Promise<BuildFigures> {
  const repo = path.join(dir, 'app');
  await mkdir(repo, { recursive: true });
  const downloadSeconds = round(treeMb / DOWNLOAD_MB_PER_S, 1);
  await writeFile(path.join(repo, 'package-lock.json'), `${JSON.stringify({ name: 'app', lockfileVersion: 3, packages: { '': { name: 'app' } } }, null, 2)}\n`);
  await writeFile(
    path.join(repo, '.step-runner.yml'),
    [
      'version: 1',
      'cache:',
      '  - key:',
      '      files: [package-lock.json]',
      '      prefix: npm',
      '    paths: [node_modules]',
      'steps:',
      '  - name: install',
      '    image: busybox:1.37',
      '    commands:',
      // The download: the registry's folder at DOWNLOAD_MB_PER_S (the wait), then the copy.
      `      - if [ -d node_modules ]; then echo "node_modules restored"; else sleep ${downloadSeconds} && cp -R ${q(path.join(registry, 'node_modules'))} node_modules; fi`,
      '  - name: test',
      '    image: busybox:1.37',
      '    cache: []',
      '    commands: [ls node_modules | wc -l]',
      '',
    ].join('\n'),
  );
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-C', repo, '-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
  const stateDir = path.join(dir, 'state');
  const once = async (): Promise<BuildRun> => {
    const lines: string[] = [];
    const outs: string[] = [];
    const started = performance.now();
    await runBuild({ file: path.join(repo, '.step-runner.yml'), runtime: 'process', stateDir, json: true }, { out: (l) => outs.push(l), err: (l) => lines.push(l) });
    const wall = (performance.now() - started) / 1000;
    const summary = JSON.parse(outs.at(-1) ?? '{}') as { status: string; startedAt: string; stoppedAt: string; steps: { name: string; durationMs: number | null }[] };
    const seconds = summary.startedAt && summary.stoppedAt ? (Date.parse(summary.stoppedAt) - Date.parse(summary.startedAt)) / 1000 : wall;
    return {
      status: summary.status,
      seconds: round(seconds, 2),
      steps: Object.fromEntries((summary.steps ?? []).map((s) => [s.name, s.durationMs === null ? null : round(s.durationMs / 1000, 2)])),
      cacheLines: [...new Set(lines.filter((l) => /cache npm-/.test(l)).map((l) => l.replace(/^.*?(cache npm-)/, '$1')))],
    };
  };
  const cold = await once();
  const warm = await once();
  const warmSkipsSave = warm.cacheLines.some((l) => l.includes('will not be saved')) && !warm.cacheLines.some((l) => /: saved \(/.test(l));
  const warmOverCold = round(warm.seconds / cold.seconds, 2);
  return {
    downloadMbPerSecond: DOWNLOAD_MB_PER_S,
    cold,
    warm,
    warmOverCold,
    warmSkipsSave,
    met: cold.status === 'SUCCEEDED' && warm.status === 'SUCCEEDED' && warmSkipsSave && warmOverCold <= CACHE_TARGETS.warmOverCold,
  };
}

// ---------------------------------------------------------------------------------------------

export interface CacheFigures {
  scripts: ScriptFigures;
  build: BuildFigures;
}

const verdict = (ok: boolean, missedBy: string) => (ok ? 'met' : `MISSED by ${missedBy}`);

/** Both sections, printed; the figures for the JSON. What it writes stays in `dir` (about 1.5 GB) for the caller to remove. */
export async function measureCache(dir: string, print: (line?: string) => void): Promise<CacheFigures> {
  print();
  print(`Cache: the restore and save scripts (this machine's sh, tar, gzip -1, sha256sum, curl) against the local S3 server on loopback, ${RUNS} runs each`);
  const scriptsDir = path.join(dir, 'scripts');
  await mkdir(scriptsDir, { recursive: true });
  // One tree for both sections: the scripts' workspace, then the registry the build's install downloads from.
  const registry = path.join(dir, 'registry');
  const generated = await generateTree(registry);
  print(`  tree: ${generated.files} files, ${round(generated.bytes / MB, 1)} MB (seed ${TREE.seed}), generated in ${round(generated.ms / 1000, 1)} s; load average ${os.loadavg().map((l) => round(l, 1)).join(' ')} on ${os.cpus().length} cores`);
  const store = await startLocalCacheStore({ stateDir: path.join(scriptsDir, 'state'), host: '127.0.0.1' });
  let scripts: ScriptFigures;
  try {
    scripts = await measureScripts(scriptsDir, registry, generated, store, print);
  } finally {
    await store.close();
  }
  const s = scripts;
  print(`  entry ${s.entryMb} MB (${s.compressionRatio}x smaller than the tree)`);
  print(`  save    median ${s.save.median} s, ${s.save.mbPerSecond} MB/s of tree   target <= ${s.save.target} s: ${verdict(s.save.met, `${round(s.save.median - s.save.target, 2)} s`)}`);
  print(`  restore median ${s.restore.median} s, ${s.restore.mbPerSecond} MB/s of tree   target <= ${s.restore.target} s: ${verdict(s.restore.met, `${round(s.restore.median - s.restore.target, 2)} s`)}`);
  print(`  stages alone (s): save ${Object.entries(s.profile.save).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  print(`                    restore ${Object.entries(s.profile.restore).map(([k, v]) => `${k} ${v}`).join(', ')}`);

  print(`Cache: a two-step build (install, then test) through \`run --runtime process\`, cold then warm; the install downloads at ${DOWNLOAD_MB_PER_S} MB/s unless node_modules was restored`);
  // The scripts' trees stay until the end, for the same reason as the restores'.
  const build = await measureBuild(dir, registry, generated.bytes / MB);
  for (const [name, b] of [['cold', build.cold], ['warm', build.warm]] as const) {
    print(`  ${name} ${b.status} in ${b.seconds} s (steps: ${Object.entries(b.steps).map(([k, v]) => `${k} ${v} s`).join(', ')}): ${b.cacheLines.join(' | ')}`);
  }
  print(`  load average ${os.loadavg().map((l) => round(l, 1)).join(' ')}`);
  print(`  warm skips the save ("will not be saved"): ${build.warmSkipsSave ? 'met' : 'MISSED'}; warm / cold ${build.warmOverCold}   target <= ${CACHE_TARGETS.warmOverCold}: ${verdict(build.warmOverCold <= CACHE_TARGETS.warmOverCold, `${round(build.warmOverCold - CACHE_TARGETS.warmOverCold, 2)}`)}`);
  return { scripts, build };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { json: { type: 'boolean' } } });
  const print = (line = '') => (values.json ? process.stderr : process.stdout).write(`${line}\n`);
  const dir = await mkdtemp(path.join(tmpdir(), 'step-runner-bench-cache-'));
  const started = Date.now();
  try {
    const cache = await measureCache(dir, print);
    const benchSeconds = round((Date.now() - started) / 1000);
    print();
    print(`Bench took ${benchSeconds} s`);
    if (values.json) process.stdout.write(`${JSON.stringify({ cache, benchSeconds })}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
