/** `run`'s command line: its options, their defaults, and the help that says so. */
import { parseArgs } from 'node:util';
import { WhenEvents, type WhenEvent } from '../../pipeline/index.js';
import { inputOptions } from './input-args.js';
import { DEFAULT_CACHE_IMAGE, DEFAULT_CLONE_IMAGE, type WorkspaceMode } from '../../workflow/settings.js';
import type { RuntimeKind } from '../../emulators/kubernetes/runtime/container-runtime.js';
import { baseOption, branchOption, BUILD_TARGET_OPTIONS, durationOption, cacheImageOption, changedFileOption, cloneImageOption, eventOption, otlpEndpointOption, runtimeOption, UsageError, workspaceModeOption } from './usage.js';
import { envOptions } from './env-args.js';
import { secretArgument, type SecretArgument } from './secret-args.js';
import { identityOptions } from './identity-args.js';
import type { Identity } from '../../workflow/identities.js';

export const RUN_USAGE =
  'run [pipeline.yml] [--source DIR] [--commit REF] [--branch B] [--event E] [--runtime docker|process] [--kubeconfig FILE] [--context NAME] [--namespace NS] [--workspace-mode volume|ephemeral] [--clone-image IMAGE] [--cache-image IMAGE] [--images FILE] [--autoscale-after DURATION] [--env NAME=VALUE]... [--secret SECRET/KEY[=VALUE]]... [--secret-file FILE]... [--identity NAME=ROLE_ARN]... [--identities FILE] [--input NAME=VALUE]... [--step NAME]... [--no-needs] [--changed FILE]... [--base REF] [--default-branch B] [--keep] [--state-dir DIR] [--artifacts DIR] [--otlp-endpoint URL] [--shell-on-failure] [--json] [--verbose]';

export const RUN_HELP = `Usage: step-runner ${RUN_USAGE}

Runs one build of pipeline.yml through the state machine definition that is deployed to AWS, and
prints it the way the Step Functions console shows it. With no file: .step-runner.yml (else
.step-runner.yaml) at the root of the current git work tree (outside one, the current directory). Exit 0 if the execution SUCCEEDED, 1 if not
(FAILED, TIMED_OUT, ABORTED), 2 if nothing started (a usage error, a rejected pipeline: every
problem is listed, or a source that cannot be read). Ctrl-C aborts it and deletes its pods.
  --source DIR      the git work tree to check out, as it is on disk, uncommitted edits included
                    (default: the work tree holding pipeline.yml; outside one, an empty workspace)
  --commit REF      check out this commit of the work tree instead of what is on disk
  --branch B        the branch the build is on, for the steps' "when: branch" (default: the work
                    tree's current branch; with --event pull_request, the base branch)
  --event E         the event the build is for, for "when: event" and CI_EVENT: one of
                    ${WhenEvents.join(', ')}
                    (default: local, which "when" counts as a push too)
  --runtime R       what the embedded cluster runs steps in: docker (their images, through the
                    daemon at DOCKER_HOST=unix://..., else at the usual sockets of Docker, Docker
                    Desktop, colima or Podman) or process (local processes in the build's
                    workspace, not their images). Default: $STEP_RUNNER_RUNTIME, else docker when
                    a daemon answers, else process. Not with --kubeconfig
  --kubeconfig FILE run on that cluster, the step pods in their real images (default: a fresh
                    embedded cluster; see --runtime)
  --context NAME    the kubeconfig's context to use (default: its current context)
  --namespace NS    where the step pods go (default: the kubeconfig context's, else default)
  --workspace-mode  volume (default: one claim per build, shared by its steps) or ephemeral (an
                    emptyDir and a checkout in each step's pod), as the deployment's WORKSPACE_MODE
  --clone-image IMAGE
                    the checkout's (clone step's) image: git and /bin/sh, as the deployment's
                    CLONE_IMAGE (default: $CLONE_IMAGE, else ${DEFAULT_CLONE_IMAGE})
  --cache-image IMAGE
                    the image of the steps' cache containers: sh, curl, tar, gzip and sha256sum,
                    as the deployment's CACHE_IMAGE (default: $CACHE_IMAGE, else ${DEFAULT_CACHE_IMAGE})
  --images FILE     an extra image catalog for the embedded cluster (JSON; see
                    lib/emulators/kubernetes/images/README.md); default: lib/emulators/kubernetes/images/catalog.json only
  --autoscale-after DURATION
                    the embedded cluster plays a node autoscaler: no node at first, one joins
                    this long (e.g. 5s) after a step's pod needs it (the step shows "waiting for
                    a node"); a step no node would take fails at once. Not with --kubeconfig
  --env NAME=VALUE  a build variable every step sees, as it sees CI_BRANCH (repeatable); a step's
                    own env wins over it. Not masked: a value to hide is a --secret
  --input NAME=VALUE  a value of the pipeline's inputs:, seen as CI_INPUT_<NAME> (repeatable), as
                    \`trigger\` gives them; the build's event is then manual unless --event says.
                    A missing required input or a value outside its choices is refused, exit 2
  --secret SECRET/KEY=VALUE
                    the value a pipeline's secrets: [{env, secret: SECRET, key: KEY}] reads
                    (repeatable); SECRET/KEY alone takes it from this shell's variable named as
                    that entry's env. Stored as the Secret SECRET of the build in its namespace,
                    deleted with the build, masked (***) in every output; refused if the cluster
                    already has a Secret SECRET this run did not make. A secret the steps read that
                    nobody gave and the cluster lacks stops the run before any pod (exit 2)
  --secret-file FILE  SECRET/KEY=VALUE lines, as --secret (repeatable; blank lines and # comments
                    skipped; the value is the rest of the line; "..." is a JSON string, for a
                    value with newlines or edge spaces); --secret wins over a file
  --identity NAME=ROLE_ARN
                    an identity the steps may ask for with "identity: NAME" (repeatable), as the
                    deployment's identities.yml declares them: the step's pod runs as the service
                    account step-runner-id-NAME, made in the namespace if missing. A local build
                    may use every identity given (the deployment's rules are for the builds
                    others start). The embedded cluster plays EKS Pod Identity: the pod gets
                    AWS_CONTAINER_CREDENTIALS_FULL_URI and its token, and its AWS SDK or CLI gets
                    the role's credentials from STS AssumeRole made with this machine's AWS
                    credentials (AWS_PROFILE, the environment...; AWS_ENDPOINT_URL_STS honoured).
                    No AWS credentials here: the run stops before any pod (exit 2)
  --identities FILE the identities of a deployment's identities file (deploy/identities.example.yml
                    shows it), as --identity gives them: their roles, not their rules
  --step NAME       run only this step (repeatable), the checkout, and the steps it needs, through
                    needs or, without, the step above; the others show as skipped (default: all).
                    A matrix's combination by its own name (test-node-20-os-linux, as list shows
                    it), or the matrix's step (test) for all of its combinations
  --no-needs        with --step: only the steps named; their needs left out count as succeeded
  --default-branch B
                    the repository's default branch: a build whose own branch has no cache
                    entry restores the one this branch saved (default: the work tree's
                    origin/HEAD, else the HEAD of its current branch's remote, else main;
                    --verbose says which)
  --changed FILE    a file the change touches, as a path in the repository (repeatable), for the
                    steps' "when: paths" and "paths-ignore", as a push's or a pull request's
                    files are on GitHub (default: none known, and no step is skipped by paths)
  --base REF        the change is the work tree's (uncommitted and untracked files included, or
                    --commit's) against where its history left REF (git merge-base), as a pull
                    request's files are against its base branch. Not with --changed
  --keep            with --kubeconfig: leave a failed build's workspace claim and credential
                    Secrets on the cluster, and print the kubectl command that deletes them (run
                    cannot re-run its steps; only serve's builds can be re-run). Default: nothing
                    the build made stays on the cluster once run exits
  --state-dir DIR   where step logs go, as logs/BUILD/STEP.log (default: $XDG_STATE_HOME/step-runner,
                    else ~/.local/state/step-runner): never into the work tree being built
  --artifacts DIR   where the steps' artifacts are written once the build ends, as
                    DIR/BUILD/STEP/<path as the pipeline names it> (a folder unpacked), each
                    step's folder with a SHA256SUMS that sha256sum -c checks (default: the state
                    directory's artifacts/). Not with --kubeconfig, whose pods keep none here
  --otlp-endpoint URL
                    send the build, when it ends, as one OpenTelemetry trace to this OTLP/HTTP
                    endpoint (/v1/traces is added unless the URL ends with it), with the headers
                    of $OTEL_EXPORTER_OTLP_HEADERS, as a deployment does with its otlpEndpoint
                    (docs/traces.md); default: no trace
  --shell-on-failure
                    when a step fails (for good: after its retries), open a shell on this
                    terminal in a copy of its pod, before the build deletes anything: the step's
                    image, environment, workspace as it left it, and services (started again).
                    What the shell shows is masked (***) as the logs are. Leaving it (exit,
                    Ctrl-D) ends the build, which deletes its pods, workspace claim and Secrets, as
                    Ctrl-C does. Needs a terminal on stdin and stdout. On the process runtime the
                    shell is a process of this machine in the step's workspace (util-linux's
                    script gives it its terminal); with --workspace-mode ephemeral, the workspace
                    went with the pod and the shell gets a fresh checkout
  --json            progress on stderr; the last line of stdout is the summary object (status,
                    error, cause, problems, steps, events, name, executionArn, trigger, times,
                    artifacts). For example: step-runner run FILE --json | jq .status
  --verbose         the handlers' log lines too (default: only the console-like lines)
  -h, --help        this help`;

export interface RunOptions {
  file: string;
  /** `--runtime`: what the embedded cluster runs steps in (default: STEP_RUNNER_RUNTIME, else Docker if a daemon answers). */
  runtime?: RuntimeKind;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** As the deployment's WORKSPACE_MODE (default volume). */
  workspaceMode?: WorkspaceMode;
  /** `--clone-image`: the checkout's image, over $CLONE_IMAGE (task-runtime.ts). */
  cloneImage?: string;
  /** `--cache-image`: the cache containers' image, over $CACHE_IMAGE (task-runtime.ts). */
  cacheImage?: string;
  /** The git work tree to check out (default: the one holding the pipeline file). */
  source?: string;
  /** Check this commit out instead of the work tree as it is on disk. */
  commit?: string;
  /** `--branch`: the build's branch for `when` (default: the work tree's current branch). */
  branch?: string;
  /** `--event`: the build's event (default: local). */
  event?: WhenEvent;
  images?: string;
  /** `--autoscale-after`: the embedded cluster's node joins this long after a pod needs it (lib/emulators/kubernetes/autoscaler.ts). */
  autoscaleAfterMs?: number;
  /** `--env`: build variables, in addition to the runner's own. */
  env?: Record<string, string>;
  /** `--input`: the values of the pipeline's `inputs:` (BuildRef.inputs); the event is then manual unless --event says. */
  inputs?: Record<string, string>;
  /** `--secret`, in the order given. */
  secrets?: SecretArgument[];
  /** `--secret-file`, in the order given. */
  secretFiles?: string[];
  /** `--identity`: the identities the steps may ask for (no rules: a local build may use each). */
  identities?: Identity[];
  /** `--identities`: a deployment's identities file, read as --identity (identity-args.ts identitiesFromFile). */
  identitiesFile?: string;
  /** `--step`: only these steps (and the checkout, and what they need unless `noNeeds`). */
  steps?: string[];
  /** `--no-needs`: with `steps`, only the steps named. */
  noNeeds?: boolean;
  /** `--changed`: the files the build's change touches, for `when.paths` (repository paths). */
  changed?: string[];
  /** `--base`: the change is the work tree's against this ref's merge base. */
  base?: string;
  /** `--default-branch`: the branch whose cache entries the build falls back on (default: the repository's, local-source.ts). */
  defaultBranch?: string;
  /** `--keep`: a failed build's claim and credentials stay on the cluster (--kubeconfig only); default: deleted by CleanupBuild. */
  keep?: boolean;
  /** `--state-dir`: logs and local state (default: lib/local/stores/state-dir.ts's). */
  stateDir?: string;
  /** `--artifacts`: where the steps' artifacts are written (default: the state directory's `artifacts/`). */
  artifacts?: string;
  /** `--shell-on-failure`: a shell in a copy of the first pod that fails for good (lib/cli/failed-step-shell.ts). */
  shellOnFailure?: boolean;
  /** `--otlp-endpoint`: the build sent as a trace when it ends (lib/local/build-traces.ts). */
  otlpEndpoint?: string;
  json?: boolean;
  verbose?: boolean;
}

/** What the command line says: the file may be left out, for `run`'s default file to be found. */
export type RunArgs = Omit<RunOptions, 'file'> & { file?: string };

/** The options, or `{help: true}`; throws UsageError for a command line `run` cannot act on. */
export function parseRunArgs(args: string[]): RunArgs | { help: true } {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        ...BUILD_TARGET_OPTIONS,
        commit: { type: 'string' },
        branch: { type: 'string' },
        event: { type: 'string' },
        images: { type: 'string' },
        'autoscale-after': { type: 'string' },
        env: { type: 'string', multiple: true },
        input: { type: 'string', multiple: true },
        secret: { type: 'string', multiple: true },
        'secret-file': { type: 'string', multiple: true },
        identity: { type: 'string', multiple: true },
        identities: { type: 'string' },
        step: { type: 'string', multiple: true },
        'no-needs': { type: 'boolean' },
        changed: { type: 'string', multiple: true },
        base: { type: 'string' },
        keep: { type: 'boolean' },
        artifacts: { type: 'string' },
        'shell-on-failure': { type: 'boolean' },
        json: { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  const [file, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`one pipeline file at a time, got ${positionals.length}`);
  const { workspace, 'workspace-mode': workspaceMode, help: _help, event, env, secret, 'secret-file': secretFiles, step: steps, 'no-needs': noNeeds, 'state-dir': stateDir, runtime, 'clone-image': cloneImage, 'cache-image': cacheImage, changed, base, 'default-branch': defaultBranch, 'autoscale-after': autoscaleAfter, 'shell-on-failure': shellOnFailure, 'otlp-endpoint': otlpEndpoint, identity, identities: identitiesFile, input, ...rest } = values;
  if (noNeeds && !steps) throw new UsageError('--no-needs goes with --step NAME');
  if (changed && base !== undefined) throw new UsageError('--changed and --base both say what the change is: give the files, or the ref to compare the work tree with, not both');
  const source = rest.source ?? workspace;
  if (rest.branch !== undefined) branchOption(rest.branch);
  const askedRuntime = runtimeOption(runtime, rest.kubeconfig);
  if (rest.keep && rest.kubeconfig === undefined) throw new UsageError('--keep is for a cluster of your own (--kubeconfig): the embedded cluster, and all it holds, stops with run');
  if (rest.artifacts !== undefined && rest.kubeconfig !== undefined) throw new UsageError('--artifacts is for the embedded cluster: the pods of a cluster of your own (--kubeconfig) cannot be assumed to reach this machine, where artifacts are kept, so they keep none');
  if (rest.artifacts === '') throw new UsageError('--artifacts must name a folder');
  if (autoscaleAfter !== undefined && rest.kubeconfig !== undefined) throw new UsageError('--autoscale-after is for the embedded cluster; --kubeconfig names a cluster of your own, whose autoscaler adds its nodes: give one or the other');
  return {
    ...(file ? { file } : {}),
    ...rest,
    ...(stateDir ? { stateDir } : {}),
    ...(askedRuntime ? { runtime: askedRuntime } : {}),
    ...(source ? { source } : {}),
    ...(workspaceMode ? { workspaceMode: workspaceModeOption(workspaceMode) } : {}),
    ...(cloneImage !== undefined ? { cloneImage: cloneImageOption(cloneImage) } : {}),
    ...(cacheImage !== undefined ? { cacheImage: cacheImageOption(cacheImage) } : {}),
    ...(autoscaleAfter !== undefined ? { autoscaleAfterMs: durationOption(autoscaleAfter, '--autoscale-after') } : {}),
    ...(event !== undefined ? { event: eventOption(event) } : input ? { event: 'manual' as const } : {}),
    ...(env ? { env: envOptions(env) } : {}),
    ...(input ? { inputs: inputOptions(input) } : {}),
    ...(secret ? { secrets: secret.map((given) => secretArgument(given, `--secret ${given.split('=')[0]}`)) } : {}),
    ...(secretFiles ? { secretFiles } : {}),
    ...(identity ? { identities: identityOptions(identity) } : {}),
    ...(identitiesFile !== undefined ? { identitiesFile } : {}),
    ...(steps ? { steps, ...(noNeeds ? { noNeeds } : {}) } : {}),
    ...(changed ? { changed: changed.map(changedFileOption) } : {}),
    ...(base !== undefined ? { base: baseOption(base) } : {}),
    ...(defaultBranch !== undefined ? { defaultBranch: branchOption(defaultBranch, '--default-branch') } : {}),
    ...(shellOnFailure ? { shellOnFailure } : {}),
    ...(otlpEndpoint !== undefined ? { otlpEndpoint: otlpEndpointOption(otlpEndpoint) } : {}),
  };
}
