import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { InvalidImage, InvalidPipeline, parsePipeline } from '../../pipeline/index.js';
import { logger } from '../../workflow/lambda-task.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../cluster/index.js';
import { ConsoleOutput } from '../console-output.js';
import { startLocalExecution, type ExecutionSummary } from '../executor.js';
import { localBuildInput, localSource } from '../local-source.js';
import { uploaderFor, type SourceUploader } from '../source-upload.js';
import { readPipelineFile } from '../pipeline-file.js';
import { printedStatusReporter } from '../printed-status.js';
import { commandTaskRuntime } from '../task-runtime.js';
import type { CommandIO } from './cluster.js';
import { workspaceModeOption } from './usage.js';
import type { WorkspaceMode } from '../../workflow/settings.js';

export const RUN_USAGE =
  'run <pipeline.yml> [--source DIR] [--commit REF] [--kubeconfig FILE] [--context NAME] [--namespace NS] [--workspace-mode volume|ephemeral] [--images FILE] [--json] [--verbose]';

export const ExitCodes = { succeeded: 0, failed: 1, rejected: 2 } as const;

export interface RunOptions {
  file: string;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** As the deployment's WORKSPACE_MODE (default volume). */
  workspaceMode?: WorkspaceMode;
  /** The git work tree to check out (default: the one holding the pipeline file). */
  source?: string;
  /** Check this commit out instead of the work tree as it is on disk. */
  commit?: string;
  images?: string;
  json?: boolean;
  verbose?: boolean;
}

export const summary = 'run one build through the state machine, on the embedded cluster unless --kubeconfig is given';

/** The CLI entry: usage problems exit 2 like a rejected pipeline, since nothing was started. */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  let options: RunOptions;
  try {
    options = parseRunArgs(argv);
  } catch (error) {
    io.err(`step-runner run: ${(error as Error).message}`);
    return ExitCodes.rejected;
  }
  return runBuild(options, io);
}

export function parseRunArgs(args: string[]): RunOptions {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      namespace: { type: 'string' },
      'workspace-mode': { type: 'string' },
      source: { type: 'string' },
      // The old name of --source, from before builds had a checkout.
      workspace: { type: 'string' },
      commit: { type: 'string' },
      images: { type: 'string' },
      json: { type: 'boolean' },
      verbose: { type: 'boolean' },
    },
  });
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new TypeError(`usage: ${RUN_USAGE}`);
  const { workspace, 'workspace-mode': workspaceMode, ...rest } = values;
  const source = rest.source ?? workspace;
  return { file, ...rest, ...(source ? { source } : {}), ...(workspaceMode ? { workspaceMode: workspaceModeOption(workspaceMode) } : {}) };
}

/**
 * `run`: one build through the real state machine definition, on the embedded cluster unless a
 * kubeconfig is given. Progress reads like the Step Functions console; with --json it goes to
 * stderr and stdout's last line is the summary object.
 */
export async function runBuild(options: RunOptions, io: Pick<CommandIO, 'out' | 'err'>): Promise<number> {
  const print = options.json ? io.err : io.out;
  const file = path.resolve(options.file);
  const loaded = await readPipeline(file, options.file);
  if (loaded instanceof Error) {
    io.err(`${loaded.name}: ${loaded.message}`);
    if (options.json) io.out(JSON.stringify(rejectedSummary(loaded)));
    return ExitCodes.rejected;
  }

  let source;
  const pipeline = parsePipeline(loaded, options.file);
  try {
    source = await localSource(file, {
      checksOut: pipeline.checkout !== false,
      ...(options.source ? { sourceDir: path.resolve(options.source) } : {}),
      ...(options.commit ? { commit: options.commit } : {}),
      remoteCluster: options.kubeconfig !== undefined,
    });
  } catch (error) {
    io.err(`${(error as Error).name}: ${(error as Error).message}`);
    if (options.json) io.out(JSON.stringify(rejectedSummary(error as Error)));
    return ExitCodes.rejected;
  }
  print(`Source: ${source.description}`);

  const scratch = await mkdtemp(path.join(tmpdir(), 'step-runner-'));
  let cluster: EmbeddedCluster | undefined;
  let uploader: SourceUploader | undefined;
  try {
    let kubeconfig = options.kubeconfig ? path.resolve(options.kubeconfig) : undefined;
    if (!kubeconfig) {
      cluster = await startEmbeddedCluster(options.images ? { catalogFiles: [options.images] } : {});
      kubeconfig = path.join(scratch, 'kubeconfig');
      await writeFile(kubeconfig, cluster.kubeconfigYaml());
      print(`Embedded cluster at ${cluster.url}: step commands run as local processes in the build's workspace, not inside their images.`);
    }
    const runtime = commandTaskRuntime(kubeconfig, options);
    logger.setLogLevel(options.verbose ? 'INFO' : 'SILENT');
    uploader = uploaderFor(source.source, pipeline.checkout, { kubeconfig, context: options.context }, print);

    const buildId = localBuildId(file);
    const console = new ConsoleOutput(`${buildId} (${options.file})`);
    const execution = startLocalExecution(localBuildInput(buildId, { file: options.file, text: loaded }, source), {
      runtime,
      statuses: printedStatusReporter(print),
      onEvent: (event) => {
        console.lines(event).forEach(print);
        uploader?.onEvent(event);
      },
    });
    const stop = () => {
      print('Interrupted: aborting the execution and deleting its pods...');
      execution.abort();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const result = await execution.result.finally(() => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    });
    if (result.status === 'ABORTED') print('Execution ABORTED; its pods were deleted.');
    if (options.json) io.out(JSON.stringify(result));
    return result.status === 'SUCCEEDED' ? ExitCodes.succeeded : ExitCodes.failed;
  } finally {
    await uploader?.dispose();
    await cluster?.stop();
    await rm(scratch, { recursive: true, force: true });
    await source.dispose();
  }
}

/** The pipeline's text, or why it was rejected before anything started. */
async function readPipeline(file: string, shownAs: string): Promise<string | InvalidPipeline | InvalidImage> {
  try {
    return (await readPipelineFile(file, shownAs)).text;
  } catch (error) {
    if (error instanceof InvalidPipeline || error instanceof InvalidImage) return error;
    throw error;
  }
}

function rejectedSummary(error: Error): ExecutionSummary {
  return { status: 'FAILED', error: error.name, cause: error.message, steps: [], events: [] };
}

/** Unique, readable and a valid label value: `local-<file>-<time>-<random>`. */
export function localBuildId(file: string, now = new Date()): string {
  const base = path.basename(file).replace(/\.ya?ml$/i, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 20);
  const time = now.toISOString().replace(/[-:]/g, '').replace(/\..*/, '').toLowerCase();
  return `local-${base}-${time}-${Math.random().toString(36).slice(2, 6)}`.replace(/-+/g, '-');
}
