/**
 * `step-runner <command>`: one module per command under ./commands, loaded only when asked for.
 * Usage problems exit 2, as the CLI contract in docs/contracts.md says.
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CommandIO } from './commands/cluster.js';
import { packageVersion } from './version.js';

interface CommandModule {
  summary: string;
  run(argv: string[], io: CommandIO): Promise<number>;
}

/** Command name -> its module, loaded only when asked for. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  run: {
    summary: 'run one build through the state machine (embedded cluster unless --kubeconfig)',
    load: () => import('./commands/run.js'),
  },
  serve: {
    summary: 'serve webhooks locally (POST /webhook, /webhook/generic; GET /executions)',
    load: () => import('./commands/serve.js'),
  },
  cluster: {
    summary: 'start the embedded Kubernetes cluster alone and write a kubeconfig for kubectl',
    load: () => import('./commands/cluster.js'),
  },
  list: {
    summary: 'list a pipeline file\'s steps: image, needs, services, and what `when` decides (no cluster)',
    load: () => import('./commands/list.js'),
  },
  init: {
    summary: 'write a starter .step-runner.yml for this repository, from what is in it (no cluster)',
    load: () => import('./commands/init.js'),
  },
  validate: {
    summary: 'check a pipeline file as run does before it starts anything, exit 0 or 2 (no cluster)',
    load: () => import('./commands/validate.js'),
  },
  trigger: {
    summary: "start a build on a deployment by hand, with the pipeline's inputs (its signed generic webhook, event manual)",
    load: () => import('./commands/trigger.js'),
  },
  import: {
    summary: 'convert a GitHub Actions workflow or a .gitlab-ci.yml into a pipeline file, listing what it could not',
    load: () => import('./commands/import.js'),
  },
  approve: {
    summary: 'approve a waiting approval step of a build on the local server',
    load: () => import('./commands/approve.js'),
  },
  reject: {
    summary: 'reject a waiting approval step of a build on the local server: it fails ApprovalRejected',
    load: () => import('./commands/reject.js'),
  },
};

const DEFAULT_EXAMPLE = fileURLToPath(new URL('../../examples/hello.yml', import.meta.url));

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return ['Usage: step-runner <command> [options]', '', 'Commands:', ...lines, '', 'Run `step-runner <command> --help` (or `step-runner help <command>`) for its options and their defaults;', '`step-runner --version` prints the version.'].join('\n');
}

function stopSignal(): Promise<string> {
  return new Promise((resolveSignal) => {
    const onSignal = (signal: string) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolveSignal(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** The terminal's: stdout, stderr, and Ctrl-C (or a polite kill) as the stop signal. */
function terminalIO(): CommandIO {
  return {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    get stopSignal() {
      return stopSignal();
    },
  };
}

/** The handlers' log level for a command's arguments: INFO with `--verbose`, else the environment's, else none. */
export function handlerLogLevel(args: readonly string[], fromEnvironment: string | undefined): string {
  return args.includes('--verbose') ? 'INFO' : (fromEnvironment ?? 'SILENT');
}

/** The exit code; `io` is the terminal's unless a caller (a test) captures the lines itself. */
export async function main(argv: string[], io: CommandIO = terminalIO()): Promise<number> {
  // `npm start` with no command: the local stack (webhooks and the console page) and the example
  // build once, shown the way the console shows it; then it keeps serving until Ctrl-C.
  const [name, ...rest] = argv.length === 0 ? ['serve', '--example', DEFAULT_EXAMPLE] : argv;
  // The handlers' Powertools logger writes JSON lines meant for CloudWatch; on a terminal the
  // console-like output says the same, so they stay quiet unless asked for: `--verbose`, which wins
  // over the environment as a flag typed for this command should, else the environment's level.
  // Set before any command module (and so the logger) is loaded: the logger takes its level when it
  // is made, and Powertools' injectLambdaContext sets that level again at every warm invocation, so
  // a setLogLevel afterwards lasts one invocation.
  process.env.POWERTOOLS_LOG_LEVEL = handlerLogLevel(rest, process.env.POWERTOOLS_LOG_LEVEL);
  // The AWS SDK's own switch for its 9-line NodeVersionSupportWarning on Node 20, and for nothing
  // else (@aws-sdk/core emitWarningIfUnsupportedVersion): why it is safe is in the README.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // The command is no Lambda: AWS_LAMBDA_MAX_CONCURRENCY inherited from a process that ran local
  // executions (a bench, a script) makes Powertools' logger demand Lambda's InvokeStore before the
  // local Lambda host has made one ("InvokeStore is not available"); the host sets it again once
  // it has (lib/emulators/lambda/invocation-context.ts).
  if (!(globalThis as { awslambda?: { InvokeStore?: unknown } }).awslambda?.InvokeStore) delete process.env.AWS_LAMBDA_MAX_CONCURRENCY;
  if (name === '--version' || name === '-v') {
    io.out(packageVersion());
    return 0;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    // `help run` is `run --help`, as git and npm read it.
    const topic = rest[0] === undefined ? undefined : COMMANDS[rest[0]];
    if (topic) return (await topic.load()).run(['--help'], io);
    io.out(usage());
    return 0;
  }
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) {
    io.err(name === undefined ? 'step-runner: no command given' : `step-runner: unknown command "${name}"`);
    io.err(usage());
    return 2;
  }
  // Each command reports its own usage errors (exit 2); anything else escaping it is a crash.
  const module = await command.load();
  try {
    return await module.run(rest, io);
  } catch (error) {
    io.err(`step-runner ${name}: ${(error as Error).stack ?? String(error)}`);
    return 1;
  }
}

/**
 * The folder `npm start` was typed in. "Scripts are run from the root of the package folder,
 * regardless of what the current working directory is when npm run is called", and INIT_CWD "holds
 * the full path you were in" (docs.npmjs.com/cli/v11/commands/npm-run-script): the runner's own `start`
 * script goes back there, so `npm --prefix ~/src/serverless-step-runner start -- run` in a
 * repository builds that repository's pipeline, and relative paths are the user's, as with the
 * installed command. Other scripts and the installed bin never move.
 */
export function startFolder(env: NodeJS.ProcessEnv): string | undefined {
  return env.npm_lifecycle_event === 'start' && env.npm_package_name === 'serverless-step-runner' && env.INIT_CWD ? env.INIT_CWD : undefined;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) {
  const typedIn = startFolder(process.env);
  if (typedIn !== undefined) process.chdir(typedIn);
  process.exitCode = await main(process.argv.slice(2));
}
