import { parseArgs } from 'node:util';
import { WebhookRoutes } from '../../forge/webhook.js';
import { WhenEvents, type WhenEvent } from '../../pipeline/index.js';
import { DEFAULT_CACHE_IMAGE, DEFAULT_CLONE_IMAGE } from '../../workflow/settings.js';
import type { LocalServerOptions } from '../../local/server/local-server.js';
import { branchOption, BUILD_TARGET_OPTIONS, cacheImageOption, cloneImageOption, eventOption, otlpEndpointOption, portOption, runtimeOption, UsageError, workspaceModeOption } from './usage.js';

/** The local server's secrets when not given on the command line (on AWS: Secrets Manager ids). */
export const SecretEnvNames = {
  github: 'GITHUB_WEBHOOK_SECRET',
  generic: 'GENERIC_WEBHOOK_SECRET',
} as const;

export const summary =
  'serve [--port 3000] [--host 127.0.0.1] [--pipeline FILE] [--source DIR] [--secret S] [--example FILE] [--branch B] [--event E] [--runtime docker|process] [--kubeconfig F [--context C]] [--namespace NS] [--workspace-mode volume|ephemeral] [--clone-image IMAGE] [--cache-image IMAGE] [--default-branch B] [--images FILE] [--state-dir DIR] [--otlp-endpoint URL] [--github-app-id ID --github-app-key FILE [--github-api-url URL]] [--verbose]';

export const help = `Usage: step-runner ${summary}

Serves the webhook endpoints locally, with the Lambda handler's own code:
  POST ${WebhookRoutes.github}           GitHub (X-Hub-Signature-256)
  POST ${WebhookRoutes.generic}   generic: {"repository","commit","ref","pipeline"} (X-Signature-256),
                          or a manual run (\`step-runner trigger\`): {"repository","ref","inputs"}
  GET  /executions        every build so far; GET /executions/NAME: its run --json object
  GET  /                  in a browser: the console page (graph, steps, pod events, logs, history)
Builds run on the local executor, on the embedded cluster unless --kubeconfig is given.
  --pipeline FILE   the pipeline GitHub deliveries and manual runs build (default:
                    examples/hello.yml), since a local server cannot read the repository
  --source DIR      the git repository GitHub deliveries and manual runs check their commit out
                    from (a manual run's ref is its head there), and the example build's source
                    as it is on disk (default: the current work tree)
  --secret S        the webhook secret (default: $${SecretEnvNames.github}; the generic webhook
                    uses $${SecretEnvNames.generic}, else this one). Unsigned requests are refused:
                    without a secret the endpoint answers 404.
  --example FILE    run this pipeline once as soon as the server is up (what \`step-runner\` with no
                    command does; default: none)
  --branch B        the example build's branch, for the steps' "when: branch", as run --branch
                    (default: the source work tree's current branch). Its re-runs from the page
                    keep it; webhook deliveries bring their own branch and event
  --event E         the example build's event, for "when: event" and CI_EVENT: one of
                    ${WhenEvents.join(', ')} (default: local)
  --runtime R       what the embedded cluster runs steps in: docker (their images, through the
                    daemon at DOCKER_HOST=unix://..., else at the usual sockets of Docker, Docker
                    Desktop, colima or Podman) or process (local processes, not their images).
                    Default: $STEP_RUNNER_RUNTIME, else docker when a daemon answers, else process.
                    Not with --kubeconfig
  --kubeconfig FILE run builds on that cluster, the step pods in their real images (default: an
                    embedded cluster; see --runtime)
  --context NAME    the kubeconfig's context (needs --kubeconfig; default: its current context)
  --namespace NS    where the step pods go (default: the kubeconfig context's, else default)
  --workspace-mode  volume (default: one claim per build, shared by its steps) or ephemeral (an
                    emptyDir and a checkout in each step's pod), as the deployment's WORKSPACE_MODE
  --clone-image IMAGE
                    the checkout's (clone step's) image: git and /bin/sh, as the deployment's
                    CLONE_IMAGE (default: $CLONE_IMAGE, else ${DEFAULT_CLONE_IMAGE})
  --cache-image IMAGE
                    the image of the steps' cache containers: sh, curl, tar, gzip and sha256sum,
                    as the deployment's CACHE_IMAGE (default: $CACHE_IMAGE, else ${DEFAULT_CACHE_IMAGE})
  --default-branch B
                    the repository's default branch, whose cache entries a build restores when its
                    own branch has none, for deliveries that do not name one (GitHub's do);
                    default: main (for the example build, the work tree's origin/HEAD first,
                    as run's)
  --images FILE     an extra image catalog for the embedded cluster (JSON, repeatable; see
                    lib/emulators/kubernetes/images/README.md)
  --state-dir DIR   where step logs go, as logs/BUILD/STEP.log (default: $XDG_STATE_HOME/step-runner,
                    else ~/.local/state/step-runner): never into the work tree being built
  --otlp-endpoint URL
                    send each build, when it ends, as one OpenTelemetry trace to this OTLP/HTTP
                    endpoint (/v1/traces is added unless the URL ends with it), with the headers
                    of $OTEL_EXPORTER_OTLP_HEADERS, as a deployment does with its otlpEndpoint
                    (docs/traces.md); default: no trace
  --github-app-id ID, --github-app-key FILE
                    a GitHub App (its id, its private key's .pem file): builds of its deliveries
                    (they name its installation) report a check run on its GitHub, as a deployment
                    with that App does, and its "Re-run" deliveries start builds; other builds'
                    statuses are printed. The key is read when a token is needed
  --github-api-url URL
                    the App's GitHub API (default: https://api.github.com; a GitHub Enterprise
                    Server's, or a stand-in's)
  --port N          default: $PORT, else 3000
  --host H          the address to listen on (default: 127.0.0.1, this machine only). Beyond
                    loopback, stopping and re-running builds needs the webhook secret too
  --verbose         the handlers' log lines too (default: only the console-like lines)
  -h, --help        this help`;

export type ServeArgs = LocalServerOptions & {
  help?: boolean;
  verbose?: boolean;
  example?: string;
  /** `--branch` and `--event`: what the example build's `when` sees (as run's). */
  branch?: string;
  event?: WhenEvent;
};

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeArgs {
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
        branch: { type: 'string' },
        event: { type: 'string' },
        ...BUILD_TARGET_OPTIONS,
        images: { type: 'string', multiple: true },
        verbose: { type: 'boolean' },
        'github-app-id': { type: 'string' },
        'github-app-key': { type: 'string' },
        'github-api-url': { type: 'string' },
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
  // Only the example build is started by serve itself; a webhook delivery names its own branch and event.
  for (const flag of ['branch', 'event'] as const) {
    if (values[flag] !== undefined && !values.example) throw new UsageError(`--${flag} needs --example: it sets what the example build's "when" sees (webhook deliveries bring their own)`);
  }
  const runtime = runtimeOption(values.runtime, values.kubeconfig);
  const appId = values['github-app-id'];
  const appKey = values['github-app-key'];
  if ((appId === undefined) !== (appKey === undefined)) throw new UsageError('--github-app-id and --github-app-key go together: the App\'s id and its private key\'s .pem file');
  if (values['github-api-url'] !== undefined && appId === undefined) throw new UsageError('--github-api-url needs --github-app-id and --github-app-key');
  if (values['github-api-url'] !== undefined && !/^https?:\/\/[^/\s]+/.test(values['github-api-url'])) throw new UsageError(`--github-api-url must be an http(s) URL, got "${values['github-api-url']}"`);
  const secret = values.secret ?? env[SecretEnvNames.github];
  const genericSecret = env[SecretEnvNames.generic];
  return {
    port,
    host: values.host,
    ...(values.pipeline ? { pipeline: values.pipeline } : {}),
    ...(secret ? { secret } : {}),
    ...(genericSecret ? { genericSecret } : {}),
    ...(runtime ? { runtime } : {}),
    ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
    ...(values.context ? { context: values.context } : {}),
    ...(values.namespace ? { namespace: values.namespace } : {}),
    ...(values['workspace-mode'] ? { workspaceMode: workspaceModeOption(values['workspace-mode']) } : {}),
    ...(values['clone-image'] !== undefined ? { cloneImage: cloneImageOption(values['clone-image']) } : {}),
    ...(values['cache-image'] !== undefined ? { cacheImage: cacheImageOption(values['cache-image']) } : {}),
    ...(values['default-branch'] !== undefined ? { defaultBranch: branchOption(values['default-branch'], '--default-branch') } : {}),
    ...(values.source ?? values.workspace ? { source: (values.source ?? values.workspace)! } : {}),
    ...(values.images ? { images: values.images } : {}),
    ...(values['state-dir'] ? { stateDir: values['state-dir'] } : {}),
    ...(values['otlp-endpoint'] !== undefined ? { otlpEndpoint: otlpEndpointOption(values['otlp-endpoint']) } : {}),
    ...(values.example ? { example: values.example } : {}),
    ...(values.branch !== undefined ? { branch: branchOption(values.branch) } : {}),
    ...(values.event !== undefined ? { event: eventOption(values.event) } : {}),
    ...(appId && appKey ? { githubApp: { appId, privateKeyFile: appKey, ...(values['github-api-url'] ? { apiUrl: values['github-api-url'].replace(/\/+$/, '') } : {}) } } : {}),
    ...(values.help ? { help: true } : {}),
    ...(values.verbose ? { verbose: true } : {}),
  };
}
