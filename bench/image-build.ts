/**
 * Issue 39's bench: a cold and a warm build of a small Node.js image (its dependencies already in
 * the context), each a `build:` step through the real definition on the embedded cluster's Docker
 * runtime, as `run --runtime docker` runs it: the builder (Debian's buildah, the tests' builder
 * image) pushing to a registry on loopback with a registry cache. Cold: a cache repository and tag
 * no build wrote yet; warm: the same commit again, whose inputs key the cold build pushed, so it
 * tags that image and runs no builder (lib/workflow/build-reuse.ts). Each pair has its own commit
 * (so its own inputs key), tag and cache repository, so every cold build is cold. Dev-only code, as the rest of bench/ that reads test
 * fixtures (no image hub: the Node.js base is this machine's node on the busybox root).
 */
// First, as in index.ts: run alone, this file is the entry point and its logs must stay quiet.
import './quiet.js';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { FAST_TIMINGS, startEmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { localSource } from '../lib/local/source/local-source.js';
import { uploaderFor } from '../lib/local/source/source-upload.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { DEFAULT_CHECKOUT } from '../lib/pipeline/index.js';
import { builderImageBuildable, pushBuilderImage } from '../test/fixtures/docker/builder-image.js';
import { dockerSocket } from '../test/fixtures/docker/engine-api.js';
import { startForwarder } from '../test/fixtures/docker/shared-registry.js';
import { pushNodeImage } from '../test/fixtures/docker/node-image.js';
import { startTestImages, testImagesBuildable } from '../test/fixtures/docker/test-images.js';
import { median, round } from './stats.js';

const run = promisify(execFile);

export const IMAGE_BUILD_TARGETS = {
  /** The issue's: warm at most a quarter of cold. */
  warmOverCold: 0.25,
};

/** The context's node_modules: this many packages of FILES_PER_PACKAGE files of FILE_BYTES each (about 8 MB). */
const PACKAGES = 40;
const FILES_PER_PACKAGE = 20;
const FILE_BYTES = 10_000;

export interface ImageBuildRun {
  status: string;
  /** StartExecution to its end, cleanup included. */
  seconds: number;
  /** The build step's pod: LaunchStep entered to FinishStep left. */
  stepSeconds: number;
  /** buildah said `Using cache` for every instruction after a FROM. */
  everyLayerCached: boolean;
  /** No builder ran: the step tagged the image pushed for its inputs (lib/workflow/build-reuse.ts). */
  tagged: boolean;
  digest: string | undefined;
}

export type ImageBuildFigures =
  | { skipped: string }
  | { failed: string }
  | { pairs: { cold: ImageBuildRun; warm: ImageBuildRun }[]; cold: number; warm: number; warmOverCold: number; met: boolean };

function dockerfile(registry: string): string {
  return `FROM ${registry}/test/node:1
WORKDIR /srv/app
COPY package.json ./
COPY node_modules ./node_modules
COPY index.js ./
RUN node -e "require('./index.js')" > /srv/built.txt
CMD ["node", "index.js"]
`;
}

async function writeContext(repo: string): Promise<void> {
  await mkdir(repo, { recursive: true });
  const dependencies: Record<string, string> = {};
  for (let p = 0; p < PACKAGES; p++) {
    const name = `dep-${p}`;
    dependencies[name] = '1.0.0';
    const dir = path.join(repo, 'app/node_modules', name);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'index.js' }));
    await writeFile(path.join(dir, 'index.js'), `module.exports = ${JSON.stringify(name)};\n`);
    for (let f = 0; f < FILES_PER_PACKAGE; f++) {
      // Text that compresses as source does, not zeros: a seeded line per file.
      const line = `// ${name} file ${f} ${'abcdefghijklmnopqrstuvwxyz'.repeat(3)}\n`;
      await writeFile(path.join(dir, `lib-${f}.js`), line.repeat(Math.ceil(FILE_BYTES / line.length)));
    }
  }
  await writeFile(path.join(repo, 'app/package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies }, null, 2));
  await writeFile(path.join(repo, 'app/index.js'), `console.log(Object.keys(require('./package.json').dependencies).map((d) => require(d)).length + ' dependencies');\n`);
}

/** Cold then warm, `pairs` times; medians of each. */
export async function measureImageBuild(dir: string, pairs: number, print: (line?: string) => void): Promise<ImageBuildFigures> {
  if (!testImagesBuildable.present) return { skipped: `${testImagesBuildable.missing} (${testImagesBuildable.remedy})` };
  if (!builderImageBuildable.present) return { skipped: `${builderImageBuildable.missing} (${builderImageBuildable.remedy})` };
  const images = await startTestImages();
  const cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, runtime: { kind: 'docker', socketPath: dockerSocket(), sandboxImage: images.sandbox } });
  const gateway = await startForwarder(images.registry, cluster.hostAddress);
  try {
    const builder = await pushBuilderImage(images.registry);
    await pushNodeImage(images.registry);
    const registry = gateway.host;
    const repo = path.join(dir, 'repo');
    await writeContext(repo);
    await writeFile(path.join(repo, 'app/Dockerfile'), dockerfile(registry));
    const git = (...args: string[]) => run('git', ['-C', repo, '-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args]);
    await git('init', '-q', '-b', 'main');
    await git('add', '.');
    await git('commit', '-q', '-m', 'app');
    const kubeconfig = path.join(dir, 'kubeconfig');
    await writeFile(kubeconfig, cluster.kubeconfigYaml());
    const logsDir = path.join(dir, 'logs');
    const runtime = localTaskRuntime({ kubeconfig, namespace: 'default', logsDir, settings: { cloneImage: images.git, builderImage: builder } });

    const pipelineOf = (pair: number) => `version: 1
steps:
  - name: image
    env: {STEP_RUNNER_INSECURE_REGISTRIES: "${registry}"}
    build:
      context: app
      tags: [${registry}/bench/app:${pair}]
      cache: ${registry}/bench/cache-${pair}
`;
    /** The same commit for a pair's two builds: its revision label, and so its last layer, is the same. */
    const once = async (id: string, pair: number): Promise<ImageBuildRun> => {
      const pipeline = pipelineOf(pair);
      const found = await localSource(path.join(repo, '.step-runner.yml'), { remoteCluster: true });
      const uploader = uploaderFor(found.source, DEFAULT_CHECKOUT, { kubeconfig }, () => undefined);
      const events: ExecutionEvent[] = [];
      const started = performance.now();
      try {
        const execution = startLocalExecution(
          { build: { id, trigger: 'benchmark', ...found.build }, pipeline: { file: '.step-runner.yml', text: pipeline }, source: found.source },
          {
            runtime,
            statuses: { report: async () => ({ posted: false, reason: 'benchmark' }) },
            overrides: { waitMs: 50, retryMs: 10 },
            onEvent: (event) => {
              events.push(event);
              uploader?.onEvent(event);
            },
          },
        );
        const summary = await execution.result;
        if (process.env['BENCH_IMAGE_PROFILE']) {
          const t0 = events[0]?.timestamp ?? 0;
          print(`  ${id}: ${events.filter((e) => e.type === 'StateEntered' || e.type === 'StateExited').map((e) => `${e.type === 'StateEntered' ? '>' : '<'}${e.state?.name}${e.index !== undefined ? `#${e.index}` : ''} ${e.timestamp - t0}`).join(', ')}`);
        }
        const seconds = (performance.now() - started) / 1000;
        const log = await readFile(path.join(logsDir, id, 'image.log'), 'utf8').catch(() => '');
        const lines = log.split('\n');
        const instructions = lines.filter((line) => /STEP \d+\/\d+: (?!FROM )/.test(line)).length;
        const cached = lines.filter((line) => line.startsWith('--> Using cache ')).length;
        const step = summary.steps.find((s) => s.name === 'image');
        return {
          status: summary.status === 'SUCCEEDED' ? summary.status : `${summary.status}: ${summary.error} ${summary.cause}`,
          seconds: round(seconds, 2),
          stepSeconds: round((step?.durationMs ?? 0) / 1000, 2),
          everyLayerCached: instructions > 0 && cached === instructions,
          tagged: /^Inputs key [0-9a-f]{64}: .* nothing built$/m.test(log),
          digest: step?.pushed?.digest,
        };
      } finally {
        await uploader?.dispose();
        await found.dispose();
      }
    };

    const results: { cold: ImageBuildRun; warm: ImageBuildRun }[] = [];
    for (let pair = 0; pair < pairs; pair++) {
      const stamp = Date.now().toString(36);
      await writeFile(path.join(repo, '.step-runner.yml'), pipelineOf(pair));
      await git('add', '.step-runner.yml');
      await git('commit', '-q', '-m', `pair ${pair}`);
      const cold = await once(`image-cold-${pair}-${stamp}`, pair);
      const warm = await once(`image-warm-${pair}-${stamp}`, pair);
      print(`  pair ${pair + 1}: cold ${cold.seconds} s (step ${cold.stepSeconds} s, ${cold.status}), warm ${warm.seconds} s (step ${warm.stepSeconds} s, ${warm.status}, ${warm.tagged ? 'tagged the image pushed for its inputs, no build' : `every layer cached: ${warm.everyLayerCached}`}, same digest: ${warm.digest === cold.digest})`);
      results.push({ cold, warm });
    }
    const cold = median(results.map((r) => r.cold.seconds));
    const warm = median(results.map((r) => r.warm.seconds));
    const warmOverCold = round(warm / cold, 2);
    const ok = results.every((r) => r.cold.status === 'SUCCEEDED' && r.warm.status === 'SUCCEEDED' && (r.warm.tagged || r.warm.everyLayerCached) && r.warm.digest === r.cold.digest);
    return { pairs: results, cold: round(cold, 2), warm: round(warm, 2), warmOverCold, met: ok && warmOverCold <= IMAGE_BUILD_TARGETS.warmOverCold };
  } finally {
    await gateway.stop();
    await cluster.stop();
    await images.stop();
  }
}

/** The section as `npm run bench` prints it (alone: `npx tsx bench/image-build.ts [PAIRS]`). */
export async function printImageBuild(dir: string, pairs: number, print: (line?: string) => void): Promise<ImageBuildFigures> {
  print();
  print(`Image build: a small Node.js image (${PACKAGES * FILES_PER_PACKAGE} files of node_modules in the context) built and pushed by a build: step on the Docker runtime, cold then warm, ${pairs} pairs`);
  const figures = await measureImageBuild(dir, pairs, print).catch((error: unknown) => ({ failed: (error as Error).message }));
  if ('skipped' in figures) print(`  skipped: ${figures.skipped}`);
  else if ('failed' in figures) print(`  could not measure: ${figures.failed}`);
  else {
    const verdict = figures.met ? 'met' : `MISSED by ${round(figures.warmOverCold - IMAGE_BUILD_TARGETS.warmOverCold, 2)}`;
    print(`  median cold ${figures.cold} s, warm ${figures.warm} s: warm / cold ${figures.warmOverCold}   target <= ${IMAGE_BUILD_TARGETS.warmOverCold}: ${verdict}`);
  }
  return figures;
}

// Alone, for this figure only: `npx tsx bench/image-build.ts [PAIRS]` (default 3); BENCH_IMAGE_PROFILE=1 prints each build's states and their times.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = await mkdtemp(path.join(tmpdir(), 'step-runner-bench-image-'));
  try {
    await printImageBuild(dir, Math.max(1, Number(process.argv[2] ?? 3)), (line = '') => process.stdout.write(`${line}\n`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
