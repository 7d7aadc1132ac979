import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InvalidImage, InvalidPipeline, parsePipeline, problemLines, problemReports, resolveInputs, type Pipeline, type ProblemReport } from '../../pipeline/index.js';
import { inputsRefused } from '../../workflow/build-inputs.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../emulators/kubernetes/index.js';
import { chooseRuntime, DockerUnavailable, runtimeNotice, UnknownRuntime, type RuntimeChoice } from '../../emulators/kubernetes/runtime/runtime-choice.js';
import { ConsoleOutput } from '../../local/console-output.js';
import { LiveLogPrinter } from '../live-log-printer.js';
import { executionIdentity, type ExecutionIdentity } from '../../emulators/stepfunctions/execution-identity.js';
import { executionInstants } from '../../emulators/stepfunctions/execution-instants.js';
import { startLocalExecution, type ExecutionEvent, type ExecutionSummary } from '../../emulators/stepfunctions/executor.js';
import { localBuildInput, localSource } from '../../local/source/local-source.js';
import { uploaderFor, type SourceUploader } from '../../local/source/source-upload.js';
import { readPipelineFile } from '../../local/source/pipeline-file.js';
import { printedStatusReporter } from '../../emulators/lambda/printed-status.js';
import { commandTaskRuntime } from '../../local/task-runtime.js';
import { localBuildTraces } from '../../local/build-traces.js';
import { startLocalCacheStore, type LocalCacheStore } from '../../local/stores/local-cache-store.js';
import { stateDir } from '../../local/stores/state-dir.js';
import { keyFilesProblem } from '../../local/source/cache-key-files.js';
import { DEFAULT_BRANCH } from '../../workflow/cache-plan.js';
import { COST_DOCS, costWords } from '../../workflow/cost-model.js';
import { buildClaimName, type CleanupResult, type PreparedBuild } from '../../workflow/state-data.js';
import { buildSelector } from '../../kube/index.js';
import type { CommandIO } from './cluster.js';
import { parseRunArgs, RUN_HELP, RUN_USAGE, type RunOptions } from './run-args.js';
import { UsageError } from './usage.js';
import { withPipelineFile } from './run-file.js';
import { SecretAlreadyExists, SecretMissing } from '../build-secrets.js';
import { givenSecretValues, storeRunSecrets } from './run-secrets.js';
import { ensureIdentityAccounts } from '../identity-accounts.js';
import { identitiesFromFile } from './identity-args.js';
import { localIdentityCredentials, localPodIdentity, machineAwsCredentials, missingAwsCredentials } from '../../local/pod-identity.js';
import { stsIdentityCredentials } from '../../workflow/identity-credentials.js';
import { onlyAskedFor } from './step-choice.js';
import { writeRunArtifacts, type RunArtifacts } from './run-artifacts.js';
import { failedStepShell } from '../failed-step-shell.js';
import { noTerminalBecause } from '../shell-terminal.js';

export { parseRunArgs, type RunOptions };

export const ExitCodes = { succeeded: 0, failed: 1, rejected: 2 } as const;

/**
 * `run --json`'s object (docs/contracts.md): the summary, the execution's identity as
 * `GET /executions/NAME` gives it (null when nothing started), and every problem of a rejected
 * pipeline (empty otherwise), and where the steps' artifacts were written (null: none were).
 */
export type RunSummary = ExecutionSummary & { [K in keyof ExecutionIdentity]: ExecutionIdentity[K] | null } & { problems: ProblemReport[]; artifacts: RunArtifacts | null };

export const summary = 'run one build through the state machine, on the embedded cluster unless --kubeconfig is given';

/** The CLI entry: usage problems exit 2 like a rejected pipeline, since nothing was started. */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  let options;
  try {
    const args = parseRunArgs(argv);
    options = 'help' in args ? args : await withPipelineFile(args, io);
  } catch (error) {
    io.err(`step-runner run: ${(error as Error).message}`);
    io.err(`Usage: step-runner ${RUN_USAGE}`);
    io.err('Run `step-runner run --help` for what each option does.');
    return ExitCodes.rejected;
  }
  if ('help' in options) {
    io.out(RUN_HELP);
    return ExitCodes.succeeded;
  }
  return runBuild(options, io);
}

/**
 * `run`: one build through the real state machine definition, on the embedded cluster unless a
 * kubeconfig is given. Progress reads like the Step Functions console; with --json it goes to
 * stderr and stdout's last line is the summary object.
 */
export async function runBuild(given: RunOptions, io: Pick<CommandIO, 'out' | 'err'>): Promise<number> {
  let options = given;
  const print = options.json ? io.err : io.out;
  const file = path.resolve(options.file);
  const loaded = await readPipeline(file, options.file);
  if (loaded instanceof Error) {
    problemLines(loaded).forEach(io.err);
    if (options.json) io.out(JSON.stringify(rejectedSummary(loaded, problemReports(loaded))));
    return ExitCodes.rejected;
  }

  let source;
  const pipeline = parsePipeline(loaded, options.file);
  let only;
  try {
    only = onlyAskedFor(options, pipeline);
  } catch (error) {
    io.err(`step-runner run: ${(error as Error).message}`);
    if (options.json) io.out(JSON.stringify(rejectedSummary(error as Error)));
    return ExitCodes.rejected;
  }
  // --shell-on-failure lends the shell this terminal: refused before anything starts without one.
  const noTerminal = options.shellOnFailure ? noTerminalBecause({ input: process.stdin, output: process.stdout }) : undefined;
  if (noTerminal) {
    const error = new UsageError(`--shell-on-failure needs a terminal, and ${noTerminal}`);
    io.err(`step-runner run: ${error.message}`);
    if (options.json) io.out(JSON.stringify(rejectedSummary(error)));
    return ExitCodes.rejected;
  }
  // A manual run's inputs (--input, or --event manual with none), checked as the deployment checks them.
  const inputs = options.inputs ?? (options.event === 'manual' ? {} : undefined);
  const resolvedInputs = resolveInputs(pipeline.inputs, inputs);
  if (!resolvedInputs.ok) {
    const refused = inputsRefused(pipeline.file, resolvedInputs.problems);
    problemLines(refused).forEach(io.err);
    if (options.json) io.out(JSON.stringify(rejectedSummary(refused, problemReports(refused))));
    return ExitCodes.rejected;
  }
  let secretValues;
  try {
    secretValues = await givenSecretValues(options, pipeline);
  } catch (error) {
    io.err(`step-runner run: ${(error as Error).message}`);
    if (options.json) io.out(JSON.stringify(rejectedSummary(error as Error)));
    return ExitCodes.rejected;
  }
  // The embedded cluster assumes the identities' roles with this machine's credentials: none, nothing starts.
  const machineCredentials = machineAwsCredentials();
  try {
    if (options.identitiesFile !== undefined) options = { ...options, identities: identitiesFromFile(await readIdentitiesFile(options.identitiesFile), options.identitiesFile, options.identities) };
    const noCredentials = options.identities && options.identities.length > 0 && !options.kubeconfig ? await missingAwsCredentials(machineCredentials) : undefined;
    if (noCredentials !== undefined) {
      const names = options.identities!.map((identity) => identity.name).join(', ');
      throw new UsageError(
        `the identities given (${names}) need AWS credentials on this machine, to assume their roles as EKS Pod Identity would for the steps, and there are none: ${noCredentials}. Set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), or log in (aws sso login)`,
      );
    }
  } catch (error) {
    io.err(`step-runner run: ${(error as Error).message}`);
    if (options.json) io.out(JSON.stringify(rejectedSummary(error as Error)));
    return ExitCodes.rejected;
  }
  // Chosen before the source snapshot, so that the first line says what the steps run in, and a
  // `--runtime docker` without a daemon stops the run before anything is made.
  let runtimeChoice: RuntimeChoice | undefined;
  if (!options.kubeconfig) {
    try {
      runtimeChoice = await chooseRuntime(options.runtime);
    } catch (error) {
      if (!(error instanceof DockerUnavailable || error instanceof UnknownRuntime)) throw error;
      io.err(`step-runner run: ${error.message}`);
      if (options.json) io.out(JSON.stringify(rejectedSummary(error)));
      return ExitCodes.rejected;
    }
    // A build step's builder is a container (lib/kube/build-container.ts): local processes cannot run it.
    const building = runtimeChoice.kind === 'process' ? pipeline.steps.find((step) => step.build && (!only || only.steps.includes(step.name))) : undefined;
    if (building) {
      io.err(`step-runner run: step "${building.name}" builds an image (build:), which needs Docker: its builder (buildah) runs as the step's container, and local processes cannot run it; start Docker (or give --runtime docker), or run it on a cluster with --kubeconfig`);
      if (options.json) io.out(JSON.stringify(rejectedSummary(new UsageError(`step "${building.name}" builds an image, which needs Docker`))));
      return ExitCodes.rejected;
    }
    print(runtimeNotice(runtimeChoice));
  }
  try {
    source = await localSource(file, {
      checksOut: pipeline.checkout !== false,
      ...(options.source ? { sourceDir: path.resolve(options.source) } : {}),
      ...(options.commit ? { commit: options.commit } : {}),
      ...(options.branch !== undefined ? { branch: options.branch } : {}),
      ...(options.event !== undefined ? { event: options.event } : {}),
      ...(options.changed ? { changed: options.changed } : {}),
      ...(options.base !== undefined ? { base: options.base } : {}),
      // A cluster of the user's own, or containers in Docker: neither can read this machine's files, so the source is sent.
      remoteCluster: options.kubeconfig !== undefined || runtimeChoice?.kind === 'docker',
    });
  } catch (error) {
    io.err(`${(error as Error).name}: ${(error as Error).message}`);
    if (options.json) io.out(JSON.stringify(rejectedSummary(error as Error)));
    return ExitCodes.rejected;
  }
  const unmatched = await keyFilesProblem(pipeline, source.source);
  if (unmatched) {
    await source.dispose();
    problemLines(unmatched).forEach(io.err);
    if (options.json) io.out(JSON.stringify(rejectedSummary(unmatched, problemReports(unmatched))));
    return ExitCodes.rejected;
  }
  print(`Source: ${source.description}`);
  if (source.changesDescription) print(`Changes: ${source.changesDescription}`);

  const scratch = await mkdtemp(path.join(tmpdir(), 'step-runner-'));
  let cluster: EmbeddedCluster | undefined;
  let uploader: SourceUploader | undefined;
  let live: LiveLogPrinter | undefined;
  let deleteSecrets: (() => Promise<void>) | undefined;
  let deleteAccounts: (() => Promise<void>) | undefined;
  let cacheStore: LocalCacheStore | undefined;
  try {
    let kubeconfig = options.kubeconfig ? path.resolve(options.kubeconfig) : undefined;
    if (!kubeconfig) {
      cluster = await startEmbeddedCluster({
        ...(options.images ? { catalogFiles: [options.images] } : {}),
        ...(runtimeChoice ? { runtime: runtimeChoice } : {}),
        ...(options.autoscaleAfterMs !== undefined ? { autoscaler: { scaleUpDelayMs: options.autoscaleAfterMs } } : {}),
        ...(options.identities && options.identities.length > 0
          ? { podIdentity: localPodIdentity(options.identities, options.namespace ?? 'default', stsIdentityCredentials({ base: machineCredentials })) }
          : {}),
      });
      kubeconfig = path.join(scratch, 'kubeconfig');
      await writeFile(kubeconfig, cluster.kubeconfigYaml());
      print(`Embedded cluster at ${cluster.url}.`);
      if (options.identities && options.identities.length > 0) {
        print(`EKS Pod Identity: ${options.identities.map((identity) => `${identity.name} (${identity.roleArn})`).join(', ')}, each assumed with this machine's AWS credentials for the pods that ask for it`);
      }
    }
    cacheStore = await cacheStoreFor(pipeline, cluster, options, print);
    // run cannot re-run a failed build's steps (serve can): its claim is deleted with the build unless --keep.
    // The step's pod-bound token exchanged by the embedded cluster's EKS Auth, as on AWS (lib/local/pod-identity.ts).
    const identityCredentials = cluster?.assumeRoleForPodIdentity ? localIdentityCredentials(cluster.assumeRoleForPodIdentity) : undefined;
    const runtime = commandTaskRuntime(kubeconfig, {
      ...options,
      ...(cacheStore ? { cache: cacheStore.store } : {}),
      ...(options.keep ? {} : { failedWorkspaceKeepSeconds: 0 }),
      ...(identityCredentials ? { identityCredentials } : {}),
      ...(options.otlpEndpoint ? { exportTrace: localBuildTraces(options.otlpEndpoint, print) } : {}),
    });
    uploader = uploaderFor(source.source, pipeline.checkout, { kubeconfig, context: options.context }, print);

    const buildId = localBuildId(file);
    try {
      deleteSecrets = await storeRunSecrets(runtime, { buildId, facts: source.build, only }, pipeline, secretValues);
    } catch (error) {
      if (!(error instanceof SecretMissing || error instanceof SecretAlreadyExists)) throw error;
      io.err(`${error.name}: ${error.message}`);
      if (options.json) io.out(JSON.stringify(rejectedSummary(error)));
      return ExitCodes.rejected;
    }
    if (options.identities && options.identities.length > 0) {
      deleteAccounts = await ensureIdentityAccounts(await runtime.kube(), runtime.settings.namespace, options.identities);
    }
    let printing = Promise.resolve();
    // --shell-on-failure: the executor pauses before a failed step's pod is deleted, and the
    // build's lines wait while the shell has the terminal (lib/cli/failed-step-shell.ts).
    const terminal = { input: process.stdin, output: process.stdout };
    const shell = options.shellOnFailure ? failedStepShell({ kubeconfig, context: options.context, runtime, print, terminal, printed: () => printing }) : undefined;
    const shown = shell ? shell.heldWhileOpen(print) : print;
    const console = new ConsoleOutput(`${buildId} (${options.file})`, { liveLog: true, rerun: false });
    const printer = new LiveLogPrinter(shown);
    live = printer;
    const built = localBuildInput(buildId, { file: options.file, text: loaded }, source, options.env);
    const defaultBranch = options.defaultBranch !== undefined ? { name: options.defaultBranch, from: '--default-branch' } : (source.defaultBranch ?? { name: DEFAULT_BRANCH, from: 'no work tree: the default' });
    if (options.verbose) print(`Default branch: ${defaultBranch.name} (${defaultBranch.from}), whose cache entries a branch without its own restores`);
    const input = { ...built, build: { ...built.build, defaultBranch: defaultBranch.name, ...(inputs ? { inputs } : {}) }, ...(only ? { only } : {}) };
    const startedAt = new Date();
    const history: ExecutionEvent[] = [];
    const execution = startLocalExecution(input, {
      runtime,
      ...(shell ? { pauseBefore: shell.pauseBefore } : {}),
      statuses: printedStatusReporter(shown),
      onEvent: (event) => {
        history.push(event);
        // A step's last lines come before its result: the event waits for them.
        printing = printing.then(async () => {
          // A log file that cannot be read costs its live lines, never the console lines.
          await printer.onEvent(event).catch(() => undefined);
          console.lines(event).forEach(shown);
        });
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
    await printing;
    // The console lines already said "Execution ABORTED"; what is left to say is the cleanup.
    if (result.status === 'ABORTED') print('Its pods and workspace claim were deleted.');
    if (result.cost) print(`Cost: ${costWords(result.cost)}; how it is counted: ${COST_DOCS}`);
    const kept = keptOnCluster(history);
    if (kept && options.kubeconfig) {
      const secrets = (await (await runtime.kube()).listNamespacedSecret({ namespace: kept.namespace, labelSelector: buildSelector(buildId) })).items.length;
      const target = [`--kubeconfig ${shellWord(path.resolve(options.kubeconfig))}`, ...(options.context ? [`--context ${shellWord(options.context)}`] : []), `--namespace ${kept.namespace}`].join(' ');
      const what = `workspace claim ${kept.claim}${secrets > 0 ? ` and ${secrets} credential Secret(s)` : ''}`;
      print(`Kept on the cluster (--keep): ${what}, for you to look at (run cannot re-run the build, and only a deployment's orphan sweep would delete ${secrets > 0 ? 'them' : 'it'}, a day on). Delete with:`);
      print(`  kubectl ${target} delete ${secrets > 0 ? 'pvc,secret' : 'pvc'} --selector '${buildSelector(buildId)}'`);
    }
    // The instants the console lines' "in 8.8s" is computed from, as GET /executions gives them.
    const instants = executionInstants(history);
    const artifacts = await writeRunArtifacts(result, buildId, cacheStore, options, print);
    const summary: RunSummary = { ...executionIdentity(buildId, input, instants.startedAt ?? startedAt, instants.stoppedAt ?? new Date()), ...result, problems: [], artifacts };
    if (options.json) io.out(JSON.stringify(summary));
    return result.status === 'SUCCEEDED' ? ExitCodes.succeeded : ExitCodes.failed;
  } finally {
    await live?.stop();
    await uploader?.dispose();
    // Deleted by the build's cleanup already, unless the run stopped before it.
    await deleteSecrets?.().catch((error: Error) => io.err(`Could not delete the build's Secrets: ${error.message}`));
    await deleteAccounts?.().catch((error: Error) => io.err(`Could not delete the identities' service accounts: ${error.message}`));
    await cluster?.stop();
    await cacheStore?.close();
    await rm(scratch, { recursive: true, force: true });
    await source.dispose();
  }
}

/**
 * The store a pipeline with a cache saves to and restores from: the local stack's S3 over the
 * state directory, where the embedded cluster's pods reach it. A cluster of the user's own cannot
 * be assumed to reach this machine, so its builds run without their cache, and say so.
 */
async function cacheStoreFor(
  pipeline: Pipeline,
  cluster: EmbeddedCluster | undefined,
  options: Pick<RunOptions, 'stateDir'>,
  print: (line: string) => void,
): Promise<LocalCacheStore | undefined> {
  // Artifacts are kept in the same store, and test reports pass through it.
  if (!pipeline.steps.some((step) => (step.cache ?? []).length > 0 || (step.artifacts?.paths.length ?? 0) > 0 || (step.reports?.junit.length ?? 0) > 0)) return undefined;
  if (!cluster) {
    print('Cache: off: the pods of a cluster of your own (--kubeconfig) cannot be assumed to reach this machine, where the local cache is kept');
    return undefined;
  }
  const store = await startLocalCacheStore({ stateDir: stateDir(options.stateDir), host: cluster.hostAddress });
  print(`Cache: kept in ${path.join(stateDir(options.stateDir), 's3')} (served to the pods at ${store.endpoint})`);
  return store;
}

/** What CleanupBuild left on the cluster for a re-run (a failed build's claim, with --keep), from the history. */
function keptOnCluster(history: readonly ExecutionEvent[]): { claim: string; namespace: string } | undefined {
  const output = (name: string) => history.findLast((event) => event.type === 'StateExited' && event.state?.name === name)?.state?.output as Record<string, unknown> | undefined;
  const cleanup = output('CleanupBuild')?.['cleanup'] as CleanupResult | undefined;
  const prepared = output('PrepareBuild') as Partial<PreparedBuild> | undefined;
  const claim = prepared?.settings ? buildClaimName(prepared.settings) : undefined;
  return cleanup?.rerun && claim && prepared?.namespace ? { claim, namespace: prepared.namespace } : undefined;
}

async function readIdentitiesFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--identities ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

/** A word a POSIX shell reads back as it is. */
function shellWord(text: string): string {
  return /^[\w./:@=+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
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

function rejectedSummary(error: Error, problems: ProblemReport[] = []): RunSummary {
  return {
    name: null,
    executionArn: null,
    startedAt: null,
    stoppedAt: null,
    buildId: null,
    trigger: null,
    repository: null,
    commit: null,
    ref: null,
    status: 'FAILED',
    error: error.name,
    cause: error.message,
    steps: [],
    events: [],
    problems,
    artifacts: null,
  };
}

/** Unique, readable and a valid label value: `local-<file>-<time>-<random>`. */
export function localBuildId(file: string, now = new Date()): string {
  const base = path.basename(file).replace(/\.ya?ml$/i, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 20);
  const time = now.toISOString().replace(/[-:]/g, '').replace(/\..*/, '').toLowerCase();
  return `local-${base}-${time}-${Math.random().toString(36).slice(2, 6)}`.replace(/-+/g, '-');
}
