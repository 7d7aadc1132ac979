/**
 * `step-runner serve`: start the local stack (lib/local/server/local-server.ts), say where it listens,
 * run the example build if asked, and keep serving until Ctrl-C.
 */
import path from 'node:path';
import { parsePipeline } from '../../pipeline/index.js';
import { WebhookRoutes } from '../../forge/webhook.js';
import { localBuildInput, localSource, type LocalSource } from '../../local/source/local-source.js';
import { uploaderFor, type SourceUploader } from '../../local/source/source-upload.js';
import { isLoopback } from '../../local/server/http/control-guard.js';
import { readServedPipeline, ServeRejected, startLocalServer, type LocalServer } from '../../local/server/local-server.js';
import { DockerUnavailable, UnknownRuntime } from '../../emulators/kubernetes/runtime/runtime-choice.js';
import type { CommandIO } from './cluster.js';
import { localBuildId } from './run.js';
import { help, parseServeArgs, SecretEnvNames, summary } from './serve-args.js';

export { summary };

/** The CLI entry (lib/cli/main.ts): exit 2 for usage problems and an unusable pipeline, 1 if it cannot start. */
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
    // A runtime that cannot be had is the command line's fault, as a bad option is.
    if (error instanceof DockerUnavailable || error instanceof UnknownRuntime) {
      io.err(`Usage: step-runner ${summary}`);
      return 2;
    }
    return error instanceof ServeRejected ? 2 : 1;
  }
  io.out(`Listening on ${server.url}`);
  io.out(`  POST ${server.url}${WebhookRoutes.github}          GitHub webhooks build ${options.pipeline ?? 'examples/hello.yml'}`);
  io.out(`  POST ${server.url}${WebhookRoutes.generic}  generic webhooks`);
  io.out(`  GET  ${server.url}/executions`);
  io.out(`Console page: ${server.url}/ (open it in a browser)`);
  if (!options.secret) io.out(`GitHub webhooks are refused (404) until a secret is given: --secret or ${SecretEnvNames.github}.`);
  if (!options.genericSecret && !options.secret) io.out(`Generic webhooks are refused (404) until a secret is given: ${SecretEnvNames.generic} or --secret.`);
  if (!isLoopback(options.host ?? '127.0.0.1')) {
    io.out(
      options.secret || options.genericSecret
        ? 'Beyond loopback: stopping and re-running builds needs the webhook secret (Authorization: Bearer <secret>).'
        : 'Beyond loopback without a secret: nobody may stop or re-run builds; the pages and GET /executions are open to anyone who can reach this port.',
    );
  }
  io.out('Commit statuses are printed here, not posted. Press Ctrl-C to stop.');
  let source: LocalSource | undefined;
  let uploader: SourceUploader | undefined;
  if (options.example) {
    try {
      const example = await readServedPipeline(path.resolve(options.example), options.example);
      const pipeline = parsePipeline(example.text, example.file);
      source = await localSource(path.resolve(options.example), {
        checksOut: pipeline.checkout !== false,
        ...(options.source ? { sourceDir: path.resolve(options.source) } : {}),
        ...(options.branch !== undefined ? { branch: options.branch } : {}),
        ...(options.event !== undefined ? { event: options.event } : {}),
        remoteCluster: options.kubeconfig !== undefined,
      });
      io.out(`Example build source: ${source.description}`);
      const id = localBuildId(example.file);
      const sending = options.kubeconfig
        ? uploaderFor(source.source, pipeline.checkout, { kubeconfig: path.resolve(options.kubeconfig), context: options.context }, io.out)
        : undefined;
      if (sending) {
        server.executions.subscribe((change) => {
          if (change.kind === 'event' && change.name === id) sending.onEvent(change.event);
        });
        uploader = sending;
      }
      const input = localBuildInput(id, example, source);
      // --default-branch, else the work tree's own (origin/HEAD...), as run takes it; the server falls back on main.
      const defaultBranch = options.defaultBranch ?? source.defaultBranch?.name;
      await server.executions.start(id, defaultBranch ? { ...input, build: { ...input.build, defaultBranch } } : input);
      io.out(`Example build ${options.example}: ${server.url}/executions/${id}`);
    } catch (error) {
      io.err(`step-runner serve: ${(error as Error).message}`);
      await server.close();
      await uploader?.dispose();
      await source?.dispose();
      return error instanceof ServeRejected ? 2 : 1;
    }
  }

  const signal = await io.stopSignal;
  io.out(`Received ${signal}: aborting running builds and deleting their pods...`);
  await server.close();
  await uploader?.dispose();
  await source?.dispose();
  return 0;
}
