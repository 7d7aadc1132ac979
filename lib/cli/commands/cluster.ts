/** `step-runner cluster`: the embedded cluster alone, with a kubeconfig for kubectl. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedCluster } from '../../emulators/kubernetes/index.js';
import { chooseRuntime, DockerUnavailable, runtimeNotice, UnknownRuntime, type RuntimeChoice } from '../../emulators/kubernetes/runtime/runtime-choice.js';
import { clusterKubeconfig, stateDir } from '../../local/stores/state-dir.js';
import { durationOption, portOption, runtimeOption, UsageError } from './usage.js';

export const summary = 'cluster [--port N] [--host H] [--runtime docker|process] [--kubeconfig-out FILE] [--state-dir DIR] [--workspace DIR] [--images FILE]... [--autoscale-after DURATION]';

export const help = `Usage: step-runner ${summary}

Starts the embedded Kubernetes cluster and keeps it running until Ctrl-C.
  --port N               port to listen on (default: any free port)
  --host H               address to listen on (default: 127.0.0.1)
  --runtime R            what pods' containers run in: docker (their images, through the daemon
                         at DOCKER_HOST=unix://..., else at the usual sockets of Docker, Docker
                         Desktop, colima or Podman) or process (local processes, not their
                         images). Default: $STEP_RUNNER_RUNTIME, else docker when a daemon
                         answers, else process
  --kubeconfig-out FILE  where to write the kubeconfig (default: kubeconfig in the state directory)
  --state-dir DIR        the state directory (default: $XDG_STATE_HOME/step-runner, else
                         ~/.local/state/step-runner): never the current work tree
  --workspace DIR        working directory of step processes (process runtime; default: the
                         current directory)
  --images FILE          extra image catalog (JSON, repeatable); see lib/emulators/kubernetes/images/README.md
                         (default: lib/emulators/kubernetes/images/catalog.json only)
  --autoscale-after DURATION
                         play a node autoscaler: the node is not there at start and joins this
                         long (e.g. 5s) after a pod that fits it cannot be placed (TriggeredScaleUp
                         on the pod), again after kubectl delete node; a pod it could never take
                         gets NotTriggerScaleUp. Default: the node is there from the start
  -h, --help             this help`;

export interface CommandIO {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Resolves when the user asks the command to stop (SIGINT/SIGTERM). */
  stopSignal: Promise<string>;
}


function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        runtime: { type: 'string' },
        'kubeconfig-out': { type: 'string' },
        'state-dir': { type: 'string' },
        workspace: { type: 'string' },
        images: { type: 'string', multiple: true },
        'autoscale-after': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Exit 2 for usage problems (the CLI contract), 1 when the cluster cannot start. */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  try {
    return await serve(argv, io);
  } catch (error) {
    io.err(`step-runner cluster: ${(error as Error).message}`);
    if (!(error instanceof UsageError)) return 1;
    io.err(`Usage: step-runner ${summary}`);
    return 2;
  }
}

async function serve(argv: string[], io: CommandIO): Promise<number> {
  const options = parse(argv);
  if (options.help) {
    io.out(help);
    return 0;
  }
  const port = options.port === undefined ? 0 : portOption(options.port);
  const autoscaleAfter = options['autoscale-after'];
  const autoscaler = autoscaleAfter === undefined ? undefined : { scaleUpDelayMs: durationOption(autoscaleAfter, '--autoscale-after') };
  const runtime = await runtimeChoice(runtimeOption(options.runtime));
  io.out(runtimeNotice(runtime));

  const cluster = await startEmbeddedCluster({
    runtime,
    host: options.host,
    port,
    workspace: options.workspace === undefined ? undefined : resolve(options.workspace),
    catalogFiles: (options.images ?? []).map((f) => resolve(f)),
    ...(autoscaler ? { autoscaler } : {}),
  });
  const kubeconfig = resolve(options['kubeconfig-out'] ?? clusterKubeconfig(stateDir(options['state-dir'])));
  await mkdir(dirname(kubeconfig), { recursive: true });
  await writeFile(kubeconfig, cluster.kubeconfigYaml(), { mode: 0o600 });

  io.out(`Embedded Kubernetes API listening on ${cluster.url}`);
  io.out(`Kubeconfig written to ${kubeconfig}`);
  io.out(`  export KUBECONFIG=${kubeconfig}`);
  io.out('  kubectl get pods,events');
  if (autoscaler) io.out(`No node yet: one joins ${autoscaler.scaleUpDelayMs} ms after a pod needs it.`);
  io.out('Press Ctrl-C to stop.');

  const signal = await io.stopSignal;
  io.out(`Received ${signal}, stopping the cluster...`);
  await cluster.stop();
  return 0;
}

/** A runtime that cannot be had is a usage error: exit 2, as a bad option. */
async function runtimeChoice(asked: RuntimeChoice['kind'] | undefined): Promise<RuntimeChoice> {
  try {
    return await chooseRuntime(asked);
  } catch (error) {
    if (error instanceof DockerUnavailable || error instanceof UnknownRuntime) throw new UsageError(error.message);
    throw error;
  }
}
