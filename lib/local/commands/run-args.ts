/** `run`'s command line: its options, their defaults, and the help that says so. */
import { parseArgs } from 'node:util';
import { WhenEvents, type WhenEvent } from '../../pipeline/index.js';
import type { WorkspaceMode } from '../../workflow/settings.js';
import { branchOption, BUILD_TARGET_OPTIONS, eventOption, UsageError, workspaceModeOption } from './usage.js';

export const RUN_USAGE =
  'run <pipeline.yml> [--source DIR] [--commit REF] [--branch B] [--event E] [--kubeconfig FILE] [--context NAME] [--namespace NS] [--workspace-mode volume|ephemeral] [--images FILE] [--json] [--verbose]';

export const RUN_HELP = `Usage: step-runner ${RUN_USAGE}

Runs one build of <pipeline.yml> through the state machine definition that is deployed to AWS, and
prints it the way the Step Functions console shows it. Exit 0 if the execution SUCCEEDED, 1 if not
(FAILED, TIMED_OUT, ABORTED), 2 if nothing started (a usage error, a rejected pipeline: every
problem is listed, or a source that cannot be read). Ctrl-C aborts it and deletes its pods.
  --source DIR      the git work tree to check out, as it is on disk, uncommitted edits included
                    (default: the work tree holding <pipeline.yml>; outside one, an empty workspace)
  --commit REF      check out this commit of the work tree instead of what is on disk
  --branch B        the branch the build is on, for the steps' "when: branch" (default: the work
                    tree's current branch; with --event pull_request, the base branch)
  --event E         the event the build is for, for "when: event" and CI_EVENT: one of
                    ${WhenEvents.join(', ')}
                    (default: local, which "when" counts as a push too)
  --kubeconfig FILE run on that cluster, the step pods in their real images (default: a fresh
                    embedded cluster, whose step commands run as local processes)
  --context NAME    the kubeconfig's context to use (default: its current context)
  --namespace NS    where the step pods go (default: the kubeconfig context's, else default)
  --workspace-mode  volume (default: one claim per build, shared by its steps) or ephemeral (an
                    emptyDir and a checkout in each step's pod), as the deployment's WORKSPACE_MODE
  --images FILE     an extra image catalog for the embedded cluster (JSON; see
                    lib/local/images/README.md); default: lib/local/images/catalog.json only
  --json            progress on stderr; the last line of stdout is the summary object (status,
                    error, cause, problems, steps, events, name, executionArn, trigger, times).
                    For a pipe, keep npm's banner off stdout:
                    npm start --silent -- run FILE --json | jq .status
  --verbose         the handlers' log lines too (default: only the console-like lines)
  -h, --help        this help`;

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
  /** `--branch`: the build's branch for `when` (default: the work tree's current branch). */
  branch?: string;
  /** `--event`: the build's event (default: local). */
  event?: WhenEvent;
  images?: string;
  json?: boolean;
  verbose?: boolean;
}

/** The options, or `{help: true}`; throws UsageError for a command line `run` cannot act on. */
export function parseRunArgs(args: string[]): RunOptions | { help: true } {
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
  if (!file) throw new UsageError('no pipeline file given');
  if (extra.length > 0) throw new UsageError(`one pipeline file at a time, got ${positionals.length}`);
  const { workspace, 'workspace-mode': workspaceMode, help: _help, event, ...rest } = values;
  const source = rest.source ?? workspace;
  if (rest.branch !== undefined) branchOption(rest.branch);
  return {
    file,
    ...rest,
    ...(source ? { source } : {}),
    ...(workspaceMode ? { workspaceMode: workspaceModeOption(workspaceMode) } : {}),
    ...(event !== undefined ? { event: eventOption(event) } : {}),
  };
}
