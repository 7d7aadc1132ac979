/**
 * `step-runner serve`: the webhook endpoints on a laptop. Requests go through the same middy
 * handler as on Lambda; only the execution starter (the local executor instead of Step Functions),
 * the pipeline (a file, since the repository cannot be fetched) and the secrets (the command line
 * instead of Secrets Manager) differ. Commit statuses are printed, not posted.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Logger } from '@aws-lambda-powertools/logger';
import { CoreV1Api } from '@kubernetes/client-node';
import { ForgeEnvNames } from '../../forge/config.js';
import { fixedPipelineSource, type PipelineText } from '../../forge/pipeline-source.js';
import { MAX_BODY_BYTES } from '../../forge/request.js';
import { createWebhookHandler, staticSecrets } from '../../forge/webhook-handler.js';
import { WebhookRoutes } from '../../forge/webhook.js';
import { kubeConfigFromFile } from '../../kube/index.js';
import { parsePipeline } from '../../pipeline/index.js';
import { loadDefinition } from '../../workflow/definition.js';
import { logger as sharedLogger } from '../../workflow/lambda-task.js';
import { LOCAL_PROCESS_NOTICE, startEmbeddedCluster, type EmbeddedCluster, type KubeletTimings } from '../cluster/index.js';
import { stateGraph } from '../console/asl-graph.js';
import { layoutGraph } from '../console/graph-layout.js';
import { observeStepPods } from '../console/pod-observer.js';
import { ConsoleOutput } from '../console-output.js';
import { startLocalExecution } from '../executor.js';
import { LocalExecutions } from '../executions.js';
import { createConsoleRoutes } from '../http/console-routes.js';
import { createLocalHttpServer } from '../http/server.js';
import { useLocalTaskEnvironment } from '../task-environment.js';
import type { CommandIO } from './cluster.js';
import { localBuildId } from './run.js';
import { portOption, UsageError } from './usage.js';

export const summary =
  'serve [--port 3000] [--host 127.0.0.1] [--pipeline FILE] [--secret S] [--example FILE] [--kubeconfig F [--context C]] [--namespace NS] [--workspace DIR] [--images FILE] [--verbose]';

export const help = `Usage: step-runner ${summary}

Serves the webhook endpoints locally, with the Lambda handler's own code:
  POST ${WebhookRoutes.github}           GitHub (X-Hub-Signature-256)
  POST ${WebhookRoutes.generic}   generic: {"repository","commit","ref","pipeline"} (X-Signature-256)
  GET  /executions        every build so far; GET /executions/NAME: its run --json object
  GET  /                  in a browser: the console page (graph, steps, pod events, logs, history)
Builds run on the local executor, on the embedded cluster unless --kubeconfig is given.
  --pipeline FILE   the pipeline GitHub deliveries build (default: examples/hello.yml), since a
                    local server cannot read the repository
  --secret S        the webhook secret (default: $${ForgeEnvNames.githubWebhookSecret}; the generic webhook
                    uses $${ForgeEnvNames.genericWebhookSecret}, else this one). Unsigned requests are refused:
                    without a secret the endpoint answers 404.
  --example FILE    run this pipeline once as soon as the server is up (what \`npm start\` does)
  --port N          default: $PORT, else 3000
  --verbose         the handlers' log lines too`;

const DEFAULT_PIPELINE = fileURLToPath(new URL('../../../examples/hello.yml', import.meta.url));

export interface LocalServerOptions {
  port?: number;
  host?: string;
  /** The pipeline file GitHub deliveries build. */
  pipeline?: string;
  /** GitHub webhook secret; the generic one falls back to it. */
  secret?: string;
  genericSecret?: string;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  workspace?: string;
  images?: string[];
  /** Tests: a fast simulated kubelet, short waits between polls and retries. */
  timings?: Partial<KubeletTimings>;
  waitMs?: number;
  retryMs?: number;
  /** Progress lines (each build as the console shows it, one line per request). */
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
  const pipeline = await readPipeline(options.pipeline ?? DEFAULT_PIPELINE, options.pipeline ?? path.relative(process.cwd(), DEFAULT_PIPELINE));

  const cleanups: (() => Promise<void> | void)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step();
  };
  try {
    const scratch = await mkdtemp(path.join(tmpdir(), 'step-runner-serve-'));
    cleanups.push(() => rm(scratch, { recursive: true, force: true }));
    let kubeconfig = options.kubeconfig ? path.resolve(options.kubeconfig) : undefined;
    if (!kubeconfig) {
      const cluster: EmbeddedCluster = await startEmbeddedCluster({
        ...(options.workspace ? { workspace: path.resolve(options.workspace) } : {}),
        ...(options.images ? { catalogFiles: options.images.map((f) => path.resolve(f)) } : {}),
        ...(options.timings ? { timings: options.timings } : {}),
      });
      cleanups.push(() => cluster.stop());
      kubeconfig = path.join(scratch, 'kubeconfig');
      await writeFile(kubeconfig, cluster.kubeconfigYaml(), { mode: 0o600 });
      print(`Embedded cluster at ${cluster.url}. ${LOCAL_PROCESS_NOTICE}`);
    }
    cleanups.push(
      useLocalTaskEnvironment({
        kubeconfig,
        ...(options.context ? { context: options.context } : {}),
        namespace: options.namespace ?? 'default',
        logsDir: path.resolve('.step-runner/logs'),
      }),
    );

    let baseUrl = '';
    const consoles = new Map<string, ConsoleOutput>();
    const executions = new LocalExecutions({
      run: (executionName, input, onEvent) =>
        startLocalExecution(input, {
          executionName,
          onEvent,
          ...(options.waitMs !== undefined ? { waitMs: options.waitMs } : {}),
          ...(options.retryMs !== undefined ? { retryMs: options.retryMs } : {}),
        }),
      consoleUrl: (name) => `${baseUrl}/executions/${encodeURIComponent(name)}`,
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
    cleanups.push(() => executions.stopAll());
    // The console page shows each step's pod events, read from the cluster the builds run on.
    const podKube = kubeConfigFromFile(kubeconfig, options.context).makeApiClient(CoreV1Api);
    cleanups.push(observeStepPods(executions, async () => podKube, print));

    const secrets = {
      githubWebhookSecret: options.secret,
      genericWebhookSecret: options.genericSecret ?? options.secret,
    };
    const webhook = createWebhookHandler({
      logger,
      secrets: staticSecrets(secrets),
      deps: {
        starter: executions,
        pipelines: () => fixedPipelineSource(pipeline),
        log: logger,
        ...(options.namespace ? { namespace: options.namespace } : {}),
      },
    });
    const consolePage = createConsoleRoutes({ executions, graph: layoutGraph(stateGraph(loadDefinition())) });
    const server = createLocalHttpServer({ webhook, executions, console: consolePage, maxBodyBytes: MAX_BODY_BYTES, onRequest: print });
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

async function readPipeline(file: string, shownAs: string): Promise<PipelineText> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ServeRejected(`${shownAs}: cannot read the pipeline file (${(error as NodeJS.ErrnoException).code})`);
  }
  try {
    parsePipeline(text, shownAs);
  } catch (error) {
    throw new ServeRejected(`${(error as Error).name}: ${(error as Error).message}`);
  }
  return { file: shownAs, text };
}


export function parseServeArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): LocalServerOptions & { help?: boolean; verbose?: boolean; example?: string } {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: env.PORT || '3000' },
        example: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        pipeline: { type: 'string' },
        secret: { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string' },
        workspace: { type: 'string' },
        images: { type: 'string', multiple: true },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const port = portOption(values.port);
  if (values.context && !values.kubeconfig) throw new UsageError('--context needs --kubeconfig');
  const secret = values.secret ?? env[ForgeEnvNames.githubWebhookSecret];
  const genericSecret = env[ForgeEnvNames.genericWebhookSecret];
  return {
    port,
    host: values.host,
    ...(values.pipeline ? { pipeline: values.pipeline } : {}),
    ...(secret ? { secret } : {}),
    ...(genericSecret ? { genericSecret } : {}),
    ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
    ...(values.context ? { context: values.context } : {}),
    ...(values.namespace ? { namespace: values.namespace } : {}),
    ...(values.workspace ? { workspace: values.workspace } : {}),
    ...(values.images ? { images: values.images } : {}),
    ...(values.example ? { example: values.example } : {}),
    ...(values.help ? { help: true } : {}),
    ...(values.verbose ? { verbose: true } : {}),
  };
}

/** The CLI entry (lib/local/cli.ts): exit 2 for usage problems and an unusable pipeline, 1 if it cannot start. */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  let options;
  try {
    options = parseServeArgs(argv);
  } catch (error) {
    io.err(`step-runner serve: ${(error as Error).message}`);
    io.err(`Usage: step-runner ${summary}`);
    return 2;
  }
  if (options.help) {
    io.out(help);
    return 0;
  }
  let server: LocalServer;
  try {
    server = await startLocalServer({ ...options, print: io.out });
  } catch (error) {
    io.err(`step-runner serve: ${(error as Error).message}`);
    return error instanceof ServeRejected ? 2 : 1;
  }
  io.out(`Listening on ${server.url}`);
  io.out(`  POST ${server.url}${WebhookRoutes.github}          GitHub webhooks build ${options.pipeline ?? 'examples/hello.yml'}`);
  io.out(`  POST ${server.url}${WebhookRoutes.generic}  generic webhooks`);
  io.out(`  GET  ${server.url}/executions`);
  io.out(`Console page: ${server.url}/ (open it in a browser)`);
  if (!options.secret) io.out(`GitHub webhooks are refused (404) until a secret is given: --secret or ${ForgeEnvNames.githubWebhookSecret}.`);
  if (!options.genericSecret && !options.secret) io.out(`Generic webhooks are refused (404) until a secret is given: ${ForgeEnvNames.genericWebhookSecret} or --secret.`);
  io.out('Commit statuses are printed here, not posted. Press Ctrl-C to stop.');
  if (options.example) {
    try {
      const example = await readPipeline(path.resolve(options.example), options.example);
      const id = localBuildId(example.file);
      await server.executions.start(id, { build: { id, trigger: 'local run' }, pipeline: example });
      io.out(`Example build ${options.example}: ${server.url}/executions/${id}`);
    } catch (error) {
      io.err(`step-runner serve: ${(error as Error).message}`);
      await server.close();
      return error instanceof ServeRejected ? 2 : 1;
    }
  }

  const signal = await io.stopSignal;
  io.out(`Received ${signal}: aborting running builds and deleting their pods...`);
  await server.close();
  return 0;
}
