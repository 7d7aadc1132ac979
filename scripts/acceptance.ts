/**
 * `npm run acceptance`: issue 37's "Done when", run for real (not part of `npm test`: minutes of
 * Docker builds). Three public repositories (REPOSITORIES) are cloned at pinned commits, their
 * dependencies put in an npm cache filled on the host (no registry is reachable from a container
 * here) inside each work tree, and each is built twice by `step-runner run` on the embedded
 * cluster's Docker runtime: an install step with a cache of node_modules, then a test step that
 * needs it. The second build must restore the cache in every step that has one. The images come
 * with no image hub: the tests' git, curl and pause stand-ins (test/fixtures/docker/test-images.ts)
 * and a Node.js image made from this machine's Debian nodejs package (acceptance/node-image.ts),
 * pushed to a loopback registry as the Docker tests do.
 *
 * Then `step-runner init`'s pnpm 9, pnpm 8 (`corepack pnpm@8`), Yarn 1 and Yarn 4 starters and
 * its skeleton (acceptance/starters.ts): each fixture of test/fixtures/init committed into a new
 * repository, `init` and `validate` run there, and the file built twice as init wrote it (its
 * images aside). Before the first build, the folders the install step caches are filled on the
 * host: the package manager's downloads by that install, corepack's home (`.corepack`) with the
 * version it runs (acceptance/corepack.ts); before the second they are removed from the work tree,
 * so the second build has its packages and its pnpm or Yarn from the caches the first saved, or
 * from nowhere: no registry is reachable from a container, the image has no corepack home, and
 * every step of these builds has COREPACK_ENABLE_NETWORK=0 (`run --env`), with which corepack
 * refuses any download (nodejs/corepack README, "Environment Variables").
 *
 *   npm run acceptance -- [--dir DIR] [--mirrors DIR] [--repo NAME]...
 *
 * --dir: where the clones, the host npm caches (kept between runs), the state directories and each
 * run's output go (default: $TMPDIR/step-runner-acceptance). --mirrors: a folder of bare clones
 * named owner+name (or owner+name/repo), tried before GitHub (default: $ACCEPTANCE_MIRRORS).
 * --repo: only these repositories or starters (kleur, commander.js, slugify, init-pnpm, init-pnpm8, init-yarn, init-yarn-berry, init-no-package-json).
 * Exit 0 when every build succeeded and every second build restored every cache of every step that has one.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SANDBOX_IMAGE_ENV } from '../lib/emulators/kubernetes/runtime/runtime-choice.js';
import { startTestImages, testImagesBuildable, type TestImages } from '../test/fixtures/docker/test-images.js';
import { parsePipeline } from '../lib/pipeline/index.js';
import { COREPACK_DIR } from '../lib/cli/init/starter-pipeline.js';
import { PACKAGE_MANAGERS, copyCorepackHome, fillCorepackHome } from './acceptance/corepack.js';
import { cloneFixture, cloneSource, committedFixture, fillOfflineCache, fillStarterCache, plainEnv } from './acceptance/fixtures.js';
import { ensureNodeImage, nodeImageProblem, nodeVersion } from './acceptance/node-image.js';
import { REPOSITORIES, cacheLines, pipelineFor, type AcceptanceRepository } from './acceptance/repositories.js';
import { STARTERS, installStep, withStandInImage, type AcceptanceStarter } from './acceptance/starters.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin/step-runner.js');

interface StepOutcome {
  name: string;
  status: string;
  /** The pipeline gives it a cache. */
  cached: boolean;
  /** Its log says each of its caches was restored, by itself or by a step before it. */
  restored: boolean;
  /** How many caches the pipeline gives it, and how many of them its log says were restored. */
  caches: number;
  restoredCaches: number;
  saved: boolean;
  without: boolean;
}

interface RunOutcome {
  repository: string;
  run: number;
  status: string;
  seconds: number;
  steps: StepOutcome[];
  output: string;
}

interface RunJson {
  status: string;
  name: string | null;
  steps: { name: string; status: string }[];
}

async function docker(args: string[]): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('docker', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`docker ${args.join(' ')}: ${stderr.trim()}`))));
  });
}

/** The node image (no pnpm nor Yarn in it) under the registry's name, pushed there so the build's image check and pull find it. */
async function pushNodeImage(images: TestImages): Promise<string> {
  const local = await ensureNodeImage();
  const name = `${images.registry}/acceptance/node:${await nodeVersion()}`;
  await docker(['tag', local, name]);
  await docker(['push', name]);
  return name;
}

/** One `step-runner run --json ...extra` in the work tree; its progress (stderr) kept in `output`. */
async function build(workTree: string, stateDir: string, images: TestImages, output: string, extra: readonly string[]): Promise<{ json: RunJson; seconds: number }> {
  const args = [BIN, 'run', '--runtime', 'docker', '--clone-image', images.git, '--cache-image', images.curl, '--state-dir', stateDir, '--json', ...extra];
  const started = process.hrtime.bigint();
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: workTree, env: plainEnv({ [SANDBOX_IMAGE_ENV]: images.sandbox }), stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.pipe(createWriteStream(output));
    child.on('error', reject);
    child.on('close', () => resolve(text));
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  try {
    return { json: JSON.parse(stdout) as RunJson, seconds };
  } catch {
    throw new Error(`run printed no JSON (see ${output}): ${stdout.slice(0, 500)}`);
  }
}

/** `step-runner ARGS` in `cwd`, as a user types it there. */
async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: plainEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Each step but the clone: restored when its log says so of as many caches as the pipeline gives it (`cachedSteps`: step name, caches). */
async function stepOutcomes(json: RunJson, stateDir: string, cachedSteps: ReadonlyMap<string, number>): Promise<StepOutcome[]> {
  return Promise.all(
    json.steps
      .filter((step) => step.name !== 'clone')
      .map(async (step) => {
        const log = json.name ? await readFile(path.join(stateDir, 'logs', json.name, `${step.name}.log`), 'utf8').catch(() => '') : '';
        const lines = cacheLines(log);
        const caches = cachedSteps.get(step.name) ?? 0;
        const restoredCaches = new Set(lines.restored.map((line) => line.split(':')[0])).size;
        return { name: step.name, status: step.status, cached: caches > 0, restored: caches > 0 && restoredCaches >= caches, caches, restoredCaches, saved: lines.saved.length > 0, without: lines.without.length > 0 };
      }),
  );
}

async function acceptRepository(repository: AcceptanceRepository, dir: string, mirrors: string | undefined, images: TestImages, nodeImage: string): Promise<RunOutcome[]> {
  const workTree = path.join(dir, 'repos', repository.name);
  const source = cloneSource(repository, mirrors);
  await cloneFixture(repository, source, workTree);
  const fill = await fillOfflineCache(repository, workTree, path.join(dir, 'npm-cache', repository.name), path.join(dir, 'scratch', repository.name));
  console.log(`${repository.name}: cloned from ${source} at ${repository.commit.slice(0, 12)}; host npm cache filled in ${fill.toFixed(1)} s`);
  const pipeline = pipelineFor(repository, nodeImage);
  await writeFile(path.join(workTree, '.step-runner.yml'), pipeline);
  return buildTwice(repository.name, workTree, cachedSteps(pipeline), dir, images);
}

function cachedSteps(text: string): Map<string, number> {
  return new Map(parsePipeline(text, '.step-runner.yml').steps.filter((step) => (step.cache?.length ?? 0) > 0).map((step) => [step.name, step.cache!.length]));
}

/** Two builds of the work tree, in a state directory of its own, `run`'s arguments `extra` added; `between` runs after the first. */
async function buildTwice(name: string, workTree: string, cached: ReadonlyMap<string, number>, dir: string, images: TestImages, extra: readonly string[] = [], between?: () => Promise<void>): Promise<RunOutcome[]> {
  // Empty: the first build finds no cache entry.
  const stateDir = path.join(dir, 'state', name);
  await rm(stateDir, { recursive: true, force: true });
  const outcomes: RunOutcome[] = [];
  for (const n of [1, 2]) {
    if (n === 2) await between?.();
    const output = path.join(dir, `${name}-run${n}.txt`);
    const { json, seconds } = await build(workTree, stateDir, images, output, extra);
    const outcome = { repository: name, run: n, status: json.status, seconds, steps: await stepOutcomes(json, stateDir, cached), output };
    console.log(`${name} run ${n}: ${json.status} in ${seconds.toFixed(1)} s (${output})`);
    outcomes.push(outcome);
  }
  return outcomes;
}

/** Every step of a starter's builds: corepack fails at once rather than download (README, "Environment Variables"). */
const NO_COREPACK_DOWNLOAD = ['--env', 'COREPACK_ENABLE_NETWORK=0'];

/**
 * init's starter for the fixture, built twice: `init` then `validate` in a new repository of the
 * fixture's files, the images replaced, the install's cache folders filled on the host for the
 * first build (corepack's home with the starter's package manager alone) and taken away before the
 * second.
 */
async function acceptStarter(starter: AcceptanceStarter, dir: string, images: TestImages, nodeImage: string, corepackHome: string): Promise<RunOutcome[]> {
  const workTree = path.join(dir, 'starters', starter.name);
  await committedFixture(path.join(ROOT, 'test/fixtures/init', starter.fixture), workTree);
  for (const command of [['init'], ['validate']]) {
    const { code, stdout, stderr } = await cli(command, workTree);
    if (code !== 0) throw new Error(`${starter.name}: step-runner ${command.join(' ')} exited ${code}: ${stderr.trim() || stdout.trim()}`);
    console.log(`${starter.name}: step-runner ${command[0]}: ${stdout.split('\n')[0]}`);
  }
  const file = path.join(workTree, '.step-runner.yml');
  const written = await readFile(file, 'utf8');
  const { text, replaced } = withStandInImage(written, starter.standIn === 'node' ? nodeImage : images.busybox);
  await writeFile(file, text);
  const standIn = `images ${replaced.join(', ')} -> ${starter.standIn === 'node' ? "the acceptance's node" : "the test images' busybox"}`;
  const install = installStep(parsePipeline(text, '.step-runner.yml'));
  if (!install) {
    console.log(`${starter.name}: ${standIn}; no step has a cache`);
    return buildTwice(starter.name, workTree, new Map(), dir, images);
  }
  if (starter.corepack.length > 0 && !install.cachePaths.includes(COREPACK_DIR)) throw new Error(`${starter.name}: the ${install.name} step caches ${install.cachePaths.join(', ')}, not corepack's ${COREPACK_DIR}`);
  const downloads = install.cachePaths.filter((cachePath) => cachePath !== COREPACK_DIR);
  const fill = await fillStarterCache(workTree, install, downloads, path.join(dir, 'scratch', starter.name), corepackHome);
  if (starter.corepack.length > 0) await copyCorepackHome(corepackHome, path.join(workTree, COREPACK_DIR), starter.corepack);
  console.log(`${starter.name}: ${standIn}; ${downloads.join(', ')} filled on the host by the ${install.name} step's commands in ${fill.toFixed(1)} s${starter.corepack.length > 0 ? `, ${COREPACK_DIR} with ${starter.corepack.join(', ')}` : ''}`);
  const removeCached = async () => {
    for (const cachePath of install.cachePaths) await rm(path.join(workTree, cachePath), { recursive: true, force: true });
  };
  return buildTwice(starter.name, workTree, cachedSteps(text), dir, images, NO_COREPACK_DOWNLOAD, removeCached);
}

/** Why a run does not pass: the first build succeeds and saves (when a step has a cache); the second succeeds and every step with a cache restores. */
function problemsOf(outcome: RunOutcome): string[] {
  const problems: string[] = [];
  if (outcome.status !== 'SUCCEEDED') problems.push(`${outcome.repository} run ${outcome.run}: ${outcome.status} (${outcome.output})`);
  for (const step of outcome.steps) {
    if (step.without) problems.push(`${outcome.repository} run ${outcome.run}: step ${step.name} ran without its cache`);
    if (outcome.run === 2 && step.cached && !step.restored) problems.push(`${outcome.repository} run 2: step ${step.name} did not restore every cache it has`);
  }
  if (outcome.run === 1 && outcome.steps.some((step) => step.cached) && !outcome.steps.some((step) => step.saved)) problems.push(`${outcome.repository} run 1: no step saved the cache`);
  return problems;
}

function table(outcomes: RunOutcome[]): string {
  const rows = [
    ['repository', 'run', 'result', 'seconds', 'cached steps restoring', 'caches restored', 'saved by'],
    ...outcomes.map((o) => [
      o.repository,
      String(o.run),
      o.status,
      o.seconds.toFixed(1),
      `${o.steps.filter((s) => s.restored).length}/${o.steps.filter((s) => s.cached).length}${o.steps.some((s) => s.restored) ? ` (${o.steps.filter((s) => s.restored).map((s) => s.name).join(', ')})` : ''}`,
      `${o.steps.reduce((sum, s) => sum + s.restoredCaches, 0)}/${o.steps.reduce((sum, s) => sum + s.caches, 0)}`,
      o.steps.filter((s) => s.saved).map((s) => s.name).join(', ') || '-',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')).join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { dir: { type: 'string' }, mirrors: { type: 'string' }, repo: { type: 'string', multiple: true } },
  });
  const dir = path.resolve(values.dir ?? path.join(tmpdir(), 'step-runner-acceptance'));
  const mirrors = values.mirrors ?? process.env.ACCEPTANCE_MIRRORS;
  const chosen = REPOSITORIES.filter((r) => !values.repo || values.repo.includes(r.name));
  const starters = STARTERS.filter((s) => !values.repo || values.repo.includes(s.name));
  if (chosen.length + starters.length === 0) throw new Error(`no such repository: ${values.repo?.join(', ')} (one of ${[...REPOSITORIES, ...STARTERS].map((r) => r.name).join(', ')})`);
  const missing = [testImagesBuildable.present ? undefined : `${testImagesBuildable.missing} (${testImagesBuildable.remedy})`, nodeImageProblem()].filter(Boolean);
  if (missing.length > 0) throw new Error(`cannot run the acceptance here: ${missing.join('; ')}`);
  await mkdir(dir, { recursive: true });

  const corepackHome = path.join(dir, 'corepack');
  if (starters.length > 0) await fillCorepackHome(corepackHome);
  const images = await startTestImages();
  const outcomes: RunOutcome[] = [];
  try {
    const nodeImage = await pushNodeImage(images);
    console.log(`images: ${nodeImage}, clone ${images.git}, cache ${images.curl}, sandbox ${images.sandbox}; on the host, in ${corepackHome}: ${PACKAGE_MANAGERS.map(({ name, version }) => `${name}@${version}`).join(', ')}`);
    for (const repository of chosen) outcomes.push(...(await acceptRepository(repository, dir, mirrors, images, nodeImage)));
    for (const starter of starters) outcomes.push(...(await acceptStarter(starter, dir, images, nodeImage, corepackHome)));
  } finally {
    await images.stop();
  }
  console.log(`\n${table(outcomes)}\n`);
  const problems = outcomes.flatMap(problemsOf);
  for (const problem of problems) console.log(`FAILED: ${problem}`);
  if (problems.length === 0) console.log('accepted: every build succeeded, and every second build restored every cache of each step that has one');
  return problems.length === 0 ? 0 : 1;
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`acceptance: ${(error as Error).message}`);
    process.exitCode = 2;
  },
);
