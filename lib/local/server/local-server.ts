/**
 * The local stack behind `step-runner serve`: the webhook endpoints with the Lambda handler's own
 * code, the local executor in place of Step Functions, the console page, and the embedded cluster
 * unless a kubeconfig is given. Only the adapters differ from AWS: the pipeline is a file (a local
 * server cannot read the repository), secrets are values, and commit statuses are printed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MAX_BODY_BYTES } from '../../forge/request.js';
import { InvalidImage, InvalidPipeline, parsePipeline, problemLines } from '../../pipeline/index.js';
import { createWebhookHandler, staticSecrets } from '../../forge/webhook-handler.js';
import { loadDefinition } from '../../workflow/definition.js';
import { logger as sharedLogger } from '../../workflow/lambda-task.js';
import { startEmbeddedCluster, type KubeletTimings } from '../../emulators/kubernetes/index.js';
import type { RuntimeKind } from '../../emulators/kubernetes/runtime/container-runtime.js';
import { chooseRuntime, runtimeNotice } from '../../emulators/kubernetes/runtime/runtime-choice.js';
import { stateGraph } from '../../console/asl-graph.js';
import { layoutGraph } from '../../console/graph-layout.js';
import { observeStepPods } from './pod-observer.js';
import { ConsoleOutput } from '../console-output.js';
import { startLocalExecution, TaskTokens, type ExecutionOverrides } from '../../emulators/stepfunctions/executor.js';
import { localApprovalDesk, localApprovals } from './approvals.js';
import { LocalExecutions } from './executions.js';
import { memoryConcurrencyStore } from './memory-concurrency-store.js';
import { createConsoleRoutes } from './http/console-routes.js';
import { controlGuard } from './http/control-guard.js';
import { createControlRoutes } from './http/control-routes.js';
import { createLocalHttpServer } from './http/server.js';
import { fixedPipelineSource, readPipelineFile } from '../source/pipeline-file.js';
import { findWorkTree } from '../source/source-snapshot.js';
import { localRefHeadSource } from '../source/local-source.js';
import { uploaderFor } from '../source/source-upload.js';
import { printedStatusReporter } from '../../emulators/lambda/printed-status.js';
import { localGitHubApprovals, localGitHubAppReporter, type LocalGitHubApp } from './github-app-reporting.js';
import { commandTaskRuntime } from '../task-runtime.js';
import { localBuildTraces } from '../build-traces.js';
import { startLocalCacheStore, type LocalCacheStore } from '../stores/local-cache-store.js';
import { stateDir } from '../stores/state-dir.js';
import { DEFAULT_BRANCH } from '../../workflow/cache-plan.js';
import type { WorkspaceMode } from '../../workflow/settings.js';

export const DEFAULT_PIPELINE = fileURLToPath(new URL('../../../examples/hello.yml', import.meta.url));

export interface LocalServerOptions {
  port?: number;
  host?: string;
  /** The pipeline file GitHub deliveries build. */
  pipeline?: string;
  /**
   * The git repository GitHub deliveries check their commit out from, and the example build's
   * source (as it is on disk): default, the work tree of the current directory.
   */
  source?: string;
  /** GitHub webhook secret; the generic one falls back to it. */
  secret?: string;
  genericSecret?: string;
  kubeconfig?: string;
  /**
   * `--runtime`: what the embedded cluster runs steps in (default: STEP_RUNNER_RUNTIME, else
   * Docker if a daemon answers). DockerUnavailable or UnknownRuntime when it cannot be had.
   */
  runtime?: RuntimeKind;
  context?: string;
  namespace?: string;
  /** As the deployment's WORKSPACE_MODE (default volume). */
  workspaceMode?: WorkspaceMode;
  /** `--clone-image`: the checkout's image, over $CLONE_IMAGE (task-runtime.ts). */
  cloneImage?: string;
  /** `--cache-image`: the cache containers' image, over $CACHE_IMAGE (task-runtime.ts). */
  cacheImage?: string;
  /** `--default-branch`: whose cache entries a build falls back on when its delivery names none (default main). */
  defaultBranch?: string;
  images?: string[];
  /** `--state-dir`: where step logs go (default: lib/local/stores/state-dir.ts's). */
  stateDir?: string;
  /** `--otlp-endpoint`: each build sent as a trace when it ends (lib/local/build-traces.ts). */
  otlpEndpoint?: string;
  /** Tests: a fast simulated kubelet, and each execution's overrides (short waits between polls and retries). */
  timings?: Partial<KubeletTimings>;
  overrides?: ExecutionOverrides;
  /** A GitHub App: its deliveries' builds report check runs on its GitHub (github-app-reporting.ts), its re-runs are honoured. */
  githubApp?: LocalGitHubApp;
  /** Progress lines (each build as the console shows it, one line per request, commit statuses). */
  print?: (line: string) => void;
  logger?: Logger;
}

export interface LocalServer {
  /** http://HOST:PORT */
  url: string;
  executions: LocalExecutions;
  /** Aborts running builds (their pods are deleted), then stops the server and the cluster. */
  close(): Promise<void>;
}

/** The pipeline could not be used: said before anything starts (exit 2, like `run`). */
export class ServeRejected extends Error {
  override readonly name = 'ServeRejected';
}

export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const print = options.print ?? (() => {});
  const logger = options.logger ?? sharedLogger;
  const pipeline = await readServedPipeline(options.pipeline ?? DEFAULT_PIPELINE, options.pipeline ?? path.relative(process.cwd(), DEFAULT_PIPELINE));

  const cleanups: (() => Promise<void> | void)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step();
  };
  try {
    let kubeconfig = options.kubeconfig ? path.resolve(options.kubeconfig) : undefined;
    let inImages = false;
    let cache: LocalCacheStore | undefined;
    const { checkout, steps: pipelineSteps } = parsePipeline(pipeline.text, pipeline.file);
    if (!kubeconfig) {
      const runtime = await chooseRuntime(options.runtime);
      inImages = runtime.kind === 'docker';
      // First: what the steps run in is what a reader needs before any build's lines.
      print(runtimeNotice(runtime));
      const scratch = await mkdtemp(path.join(tmpdir(), 'step-runner-serve-'));
      cleanups.push(() => rm(scratch, { recursive: true, force: true }));
      const cluster = await startEmbeddedCluster({
        runtime,
        ...(options.images ? { catalogFiles: options.images.map((f) => path.resolve(f)) } : {}),
        ...(options.timings ? { timings: options.timings } : {}),
      });
      cleanups.push(() => cluster.stop());
      kubeconfig = path.join(scratch, 'kubeconfig');
      await writeFile(kubeconfig, cluster.kubeconfigYaml(), { mode: 0o600 });
      print(`Embedded cluster at ${cluster.url}.`);
      // As `run` keeps it: in the state directory, where this cluster's pods reach it.
      if (pipelineSteps.some((step) => (step.cache ?? []).length > 0 || (step.artifacts?.paths.length ?? 0) > 0 || (step.reports?.junit.length ?? 0) > 0)) {
        const store = await startLocalCacheStore({ stateDir: stateDir(options.stateDir), host: cluster.hostAddress });
        cleanups.push(() => store.close());
        cache = store;
        print(`Cache: kept in ${path.join(stateDir(options.stateDir), 's3')} (served to the pods at ${store.endpoint})`);
      }
    }
    let baseUrl = '';
    const executionPage = (name: string) => `${baseUrl}/executions/${encodeURIComponent(name)}`;
    // A step's page is the execution's with the step selected (`?step=N`, lib/console/step-list.ts).
    const consolePages = {
      run: executionPage,
      step: (name: string, step: string) => {
        const index = executions.stepIndex(name, step);
        return index === undefined ? undefined : `${executionPage(name)}?step=${index}`;
      },
    };
    const runtime = commandTaskRuntime(kubeconfig, {
      ...options,
      ...(cache ? { cache: cache.store } : {}),
      ...(options.otlpEndpoint ? { exportTrace: localBuildTraces(options.otlpEndpoint, print, consolePages) } : {}),
    });
    // The check run's cost line and its approvals' buttons read the execution's history (executions, below, by the time it reports).
    const statuses = options.githubApp ? localGitHubAppReporter(options.githubApp, print, (arn) => executions.costOf(arn), (arn) => executions.waitingApprovals(arn)) : printedStatusReporter(print);
    // On the embedded cluster, a delivery's commit comes from this repository (and a commit it
    // does not have fails the checkout, as on AWS); a cluster of the user's own cannot reach this
    // machine, so there deliveries clone from where GitHub says the repository is.
    const sourceDir = options.kubeconfig ? undefined : await findWorkTree(path.resolve(options.source ?? '.'));

    const consoles = new Map<string, ConsoleOutput>();
    // Each build's source uploader is disposed of at its end; close() waits for those too.
    const disposing = new Set<Promise<void>>();
    // SendTaskSuccess and SendTaskFailure name a token, not an execution: one set for every build of the server.
    const taskTokens = new TaskTokens();
    const executions = new LocalExecutions({
      approvals: localApprovals({ cluster: runtime.deps.cluster, tokens: taskTokens }),
      run: (executionName, input, onEvent, redrive) => {
        // In their images the clone cannot read this machine's repository: it is sent to each
        // clone container through exec, as to a cluster of the user's own (source-upload.ts).
        const source = inImages && input.source && kubeconfig ? { ...input.source, upload: true as const } : input.source;
        const uploader = source?.upload && kubeconfig ? uploaderFor(source, checkout, { kubeconfig }, print) : undefined;
        // A delivery that names no default branch (a generic one, the example build) falls back on --default-branch's entries.
        const build = { ...input.build, defaultBranch: input.build.defaultBranch ?? options.defaultBranch ?? DEFAULT_BRANCH };
        const execution = startLocalExecution({ ...input, build, ...(source ? { source } : {}) }, {
          runtime,
          statuses,
          executionName,
          taskTokens,
          onEvent: (event) => {
            uploader?.onEvent(event);
            onEvent(event);
          },
          ...(options.overrides ? { overrides: options.overrides } : {}),
          ...(redrive ? { redrive } : {}),
        });
        if (uploader) {
          const disposed = execution.result.catch(() => undefined).then(() => uploader.dispose());
          disposing.add(disposed);
          const forget = () => void disposing.delete(disposed);
          void disposed.then(forget, forget);
        }
        return execution;
      },
      consoleUrl: executionPage,
      onEvent: (name, input, event) => {
        let console = consoles.get(name);
        if (!console) {
          const { trigger, repository, commit } = input.build;
          console = new ConsoleOutput(`${name} (${[trigger, repository && commit ? `${repository}@${commit.slice(0, 7)}` : repository].filter(Boolean).join(' ')})`);
          consoles.set(name, console);
        }
        console.lines(event).forEach(print);
      },
      onEnd: (name) => consoles.delete(name),
    });
    // A build claims its concurrency group here and stops the older one through the registry.
    runtime.deps.superseding = { store: memoryConcurrencyStore(), executions: executions.stopper() };
    // Run in reverse: after stopAll, the disposals its ended builds began.
    cleanups.push(async () => void (await Promise.all([...disposing])));
    cleanups.push(() => executions.stopAll());
    // The console page shows each step's pod events, read from the cluster the builds run on.
    cleanups.push(observeStepPods(executions, runtime.kube, print));

    // A delivery's pipeline is named by its path in the repository, as GitHub names it (a check
    // run's annotation points there), when the served file is one of the --source repository's.
    const inRepository = sourceDir && options.pipeline ? path.relative(sourceDir, path.resolve(options.pipeline)) : undefined;
    const served = inRepository && !inRepository.startsWith('..') && !path.isAbsolute(inRepository) ? { ...pipeline, file: inRepository.split(path.sep).join('/') } : pipeline;
    const webhook = createWebhookHandler({
      logger,
      secrets: staticSecrets({ githubWebhookSecret: options.secret, genericWebhookSecret: options.genericSecret ?? options.secret }),
      deps: {
        starter: executions,
        pipelines: () => fixedPipelineSource(served),
        ...(sourceDir ? { gitHubCloneUrl: () => sourceDir, refHeads: () => localRefHeadSource(sourceDir) } : {}),
        log: logger,
        ...(options.namespace ? { namespace: options.namespace } : {}),
        ...(options.githubApp ? { gitHubAppId: options.githubApp.appId } : {}),
        // A check run's Approve and Reject (with the App), and a signed generic approval.
        approvals: options.githubApp ? localGitHubApprovals(options.githubApp, executions) : { desk: localApprovalDesk(executions), credentials: {} },
      },
    });
    const consolePage = createConsoleRoutes({ executions, graph: () => layoutGraph(stateGraph(loadDefinition())), ...(cache ? { artifacts: cache.store } : {}) });
    const control = createControlRoutes({
      executions,
      guard: controlGuard({ host: options.host ?? '127.0.0.1', secrets: [options.secret, options.genericSecret] }),
    });
    const server = createLocalHttpServer({ webhook, executions, console: consolePage, control, maxBodyBytes: MAX_BODY_BYTES, onRequest: print });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => resolve());
    });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const { address, port } = server.address() as AddressInfo;
    baseUrl = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;

    let closing: Promise<void> | undefined;
    return { url: baseUrl, executions, close: () => (closing ??= cleanup()) };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** A pipeline the server builds, refused (ServeRejected) when it cannot be used. */
export async function readServedPipeline(file: string, shownAs: string) {
  try {
    return await readPipelineFile(file, shownAs);
  } catch (error) {
    if (error instanceof InvalidPipeline || error instanceof InvalidImage) throw new ServeRejected(problemLines(error).join('\n'));
    throw new ServeRejected(`${(error as Error).name}: ${(error as Error).message}`);
  }
}
